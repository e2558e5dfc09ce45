-- Spread index, phase C, one block table (its own hash slot): check and insert, in order,
-- the documents a worker decided to keep. A document finds an entry within max distance
-- (another worker's, put there since this worker read the table) and loses; otherwise its
-- entry is appended. Two near-duplicates share a block in some table; the tables are
-- claimed in one order by every worker, so in the first table they share, the later of
-- the two finds the earlier: never are both kept.
--
-- KEYS[1]  any key of this table's slot (routing only; the buckets are built here)
-- ARGV[1]  bucket key prefix of the table; ARGV[2] the table (0..3); ARGV[3] max distance
-- ARGV[4..] 8-byte simhashes
-- Returns per document the 8-byte simhash it lost to, or '' (inserted).

-- (common.lua is prepended.)

local prefix, t, k = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local out = {}
for j = 4, #ARGV do
  local fp = ARGV[j]
  local block = sub(fp, 2 * t + 1, 2 * t + 2)
  local entry = sub(fp, 1, 2 * t) .. sub(fp, 2 * t + 3)
  local key = format('%s%d%02x%02x', prefix, t, byte(block, 1, 2))
  local bucket = redis.call('GET', key) or ''
  local q = { byte(entry, 1, 6) }
  local lost = ''
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
  if lost == '' then redis.call('SET', key, bucket .. entry) end
  out[#out + 1] = lost
end
return out
