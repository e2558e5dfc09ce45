-- Spread index, phase C, the sentence table (one hash slot): check and insert, in order,
-- the documents a worker decided to keep. A document that now shares the rule's number of
-- sentence keys with another kept document, within its distance and length slack, loses;
-- otherwise its entries are appended (layout as in decide.lua). All sentence buckets are in
-- this one slot, so a document is counted against another's whole signature at once. When
-- the table's version is still the one the worker read, the entries are appended unscanned.
--
-- KEYS[1]  the sentence table's version key (the buckets, of the same slot, are built here)
-- ARGV[1]  bucket key prefix; ARGV[2] sentences to share; ARGV[3] max distance; ARGV[4] length slack
-- ARGV[5]  the version read
-- ARGV[6]  per document: 8-byte simhash, a byte of the number of sentence keys and the
--          keys (3 bytes each), length code, 2 bytes of the number of simhashes to ignore
--          (documents no longer kept) and those (8 bytes each)
-- Returns one string: per document '\0' (inserted), or '\1' and the 8-byte simhash it lost to.
-- (common.lua is prepended.)

local prefix, s_match, s_distance, s_slack = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local unchanged = (redis.call('GET', KEYS[1]) or '0') == ARGV[5]

local out, inserted = {}, 0
local blob, j = ARGV[6], 1
while j <= #blob do
  local fp, n = sub(blob, j, j + 7), byte(blob, j + 8)
  local sig, len = sub(blob, j + 9, j + 8 + 3 * n), byte(blob, j + 9 + 3 * n)
  local m1, m2 = byte(blob, j + 10 + 3 * n, j + 11 + 3 * n)
  local dead = sub(blob, j + 12 + 3 * n, j + 11 + 3 * n + 8 * (m1 * 256 + m2))
  j = j + 12 + 3 * n + #dead
  local keys = {}
  for i = 1, n do keys[i] = format('%ss%02x%02x', prefix, byte(sig, 3 * i - 2, 3 * i - 1)) end
  local lost = ''
  local buckets = n > 0 and redis.call('MGET', unpack(keys)) or {}
  for i = 1, n do buckets[i] = buckets[i] or '' end
  if not unchanged and n > 0 then
    local ignore = {}
    for p = 1, #dead, 8 do ignore[sub(dead, p, p + 7)] = true end
    local shared = {}
    for i = 1, n do
      sentence_entries(buckets[i], sub(sig, 3 * i, 3 * i), len, s_slack, function(other)
        if ignore[other] then return end
        shared[other] = (shared[other] or 0) + 1
        if shared[other] >= s_match and lost == '' and distance(fp, other) <= s_distance then lost = other end
      end, false, 8)
    end
  end
  if lost == '' and n > 0 then
    -- MSET of whole buckets, not APPEND: a string grown by APPEND keeps spare room.
    redis.call('MSET', unpack(sentence_mset({}, keys, buckets, sig, fp, len)))
  end
  inserted = inserted + claim_answer(out, lost)
end
return claim_reply(out, inserted, KEYS[1])
