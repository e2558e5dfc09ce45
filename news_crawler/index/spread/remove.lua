-- Spread index: take entries out of buckets of one slot (a document that lost after it had
-- claimed some tables, or one that is forgotten).
--
-- KEYS[1]  a key of the slot, naming it (the buckets, of the same slot, are named in ARGV)
-- ARGV[1]  entry size (6: a table, 10: the sentence table); ARGV[2..] pairs: bucket key, entry
-- Returns how many entries were removed.

local sub = string.sub
local size = tonumber(ARGV[1])
local removed = 0
for j = 2, #ARGV, 2 do
  local key, entry = ARGV[j], ARGV[j + 1]
  local bucket = redis.call('GET', key)
  if bucket then
    for p = 1, #bucket, size do
      if sub(bucket, p, p + size - 1) == entry then
        bucket = sub(bucket, 1, p - 1) .. sub(bucket, p + size)
        if #bucket == 0 then redis.call('DEL', key) else redis.call('SET', key, bucket) end
        removed = removed + 1
        break
      end
    end
  end
end
return removed
