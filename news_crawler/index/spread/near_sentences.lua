-- Spread index, phase R, the sentence table (one hash slot): the entries a batch's documents
-- may share sentences with, and the table's version.
--
-- KEYS[1]  the sentence table's version key (the buckets, of the same slot, are built here)
-- ARGV[1]  bucket key prefix (before the "s"); ARGV[2] max distance; ARGV[3] length slack
-- ARGV[4]  per document and sentence key, sorted by key, 12 bytes: the 3-byte key, the
--          document's 8-byte simhash, its length code
-- Returns {version, near}: per distinct key, in order, a 2-byte count and the 9-byte entries
-- (kept simhash, length code; in the bucket's order) holding that key, within the length
-- slack and max distance of one of the documents with that key. Entries no document could
-- count are left out; a document's own decision sees every entry it could count.
-- (common.lua is prepended.)

local prefix, s_distance, s_slack, recs = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local HEX = {}
for i = 0, 255 do HEX[i] = format('%02x', i) end
-- Groups of records sharing a key (they come sorted): first and last record offsets.
local starts, ends, names = {}, {}, {}
local ps, last = prefix .. 's', nil
for p = 1, #recs, 12 do
  local key = sub(recs, p, p + 2)
  if key ~= last then
    local a, b = byte(key, 1, 2)
    names[#names + 1] = ps .. HEX[a] .. HEX[b]
    starts[#starts + 1] = p
    last = key
  end
  ends[#names] = p
end
local buckets = #names > 0 and redis.call('MGET', unpack(names)) or {}
local out, first, last, near = {}, 0, 0, nil
local function visit(other, len2)  -- one closure for every key: the key's records are first..last
  for r = first, last, 12 do
    local len = byte(recs, r + 11)
    if len2 - len <= s_slack and len - len2 <= s_slack and distance(sub(recs, r + 3, r + 10), other) <= s_distance then
      near = near or {}
      near[#near + 1] = other .. char(len2)
      return
    end
  end
end
for i = 1, #names do
  first, last, near = starts[i], ends[i], nil
  sentence_entries(buckets[i] or '', sub(recs, first + 2, first + 2), 0, 255, visit, true, 8)
  out[i] = near and char(math.floor(#near / 256), #near % 256) .. table.concat(near) or '\0\0'
end
return { redis.call('GET', KEYS[1]) or '0', table.concat(out) }
