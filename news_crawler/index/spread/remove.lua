-- Spread index: take entries out of buckets of one slot (a document that lost after it had
-- claimed some tables, or one that is forgotten).
--
-- KEYS[1]  a key of the slot, naming it (the buckets, of the same slot, are named in ARGV)
-- ARGV[1]  entry size (6: a table, 10: the sentence table); ARGV[2..] pairs: bucket key, entry
-- Returns how many entries were removed.

local find, sub = string.find, string.sub
local size = tonumber(ARGV[1])
local removed = 0
for j = 2, #ARGV, 2 do
  local key, entry = ARGV[j], ARGV[j + 1]
  local bucket = redis.call('GET', key)
  local p = bucket and find(bucket, entry, 1, true)
  while p and (p - 1) % size ~= 0 do p = find(bucket, entry, p + 1, true) end  -- an entry's own place
  if p then
    if #bucket == size then
      redis.call('DEL', key)
    else
      redis.call('SET', key, sub(bucket, 1, p - 1) .. sub(bucket, p + size))
    end
    removed = removed + 1
  end
end
return removed
