-- Spread index, phase C, one block table (its own hash slot): check and insert, in order,
-- the documents a worker decided to keep. A document finds an entry within max distance
-- (another worker's, put there since this worker read the table) and loses; otherwise its
-- entry is appended. Two near-duplicates share a block in some table; the tables are
-- claimed in one order by every worker, so in the first table they share, the later of
-- the two finds the earlier: never are both kept. When the table's version is still the
-- one the worker read, nothing was written since: the entries are appended unscanned.
--
-- KEYS[1]  the table's version key (the buckets, of the same slot, are built here)
-- ARGV[1]  bucket key prefix of the table; ARGV[2] the table (0..3); ARGV[3] max distance
-- ARGV[4]  the version read; ARGV[5] the documents' 8-byte simhashes, one string
-- Returns one string: per document '\0' (inserted), or '\1' and the 8-byte simhash it lost to.

-- (common.lua is prepended.)

local prefix, t, k, fps = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[5]
local unchanged = (redis.call('GET', KEYS[1]) or '0') == ARGV[4]
local out, inserted = {}, 0
for j = 1, #fps, 8 do
  local fp = sub(fps, j, j + 7)
  local block = sub(fp, 2 * t + 1, 2 * t + 2)
  local entry = sub(fp, 1, 2 * t) .. sub(fp, 2 * t + 3)
  local key = format('%s%02x%02x', prefix, byte(block, 1, 2))
  local lost = ''
  local bucket = redis.call('GET', key) or ''
  if not unchanged then
    local q = { byte(entry, 1, 6) }
    for p = 1, #bucket, 6 do
      local a = { byte(bucket, p, p + 5) }
      local d = 0
      for i = 1, 6 do d = d + POP[bxor(a[i], q[i])] end
      if d <= k then
        local other = sub(bucket, p, p + 5)
        lost = sub(other, 1, 2 * t) .. block .. sub(other, 2 * t + 1)
        break
      end
    end
  end
  if lost == '' then
    redis.call('SET', key, bucket .. entry)  -- not APPEND: a string grown by APPEND keeps spare room
  end
  inserted = inserted + claim_answer(out, lost)
end
return claim_reply(out, inserted, KEYS[1])
