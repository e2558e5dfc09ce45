-- Spread index, phase R: the buckets of one table (or of the sentence table), in one reply.
--
-- KEYS[1]  any key of the table's slot (routing only; the buckets are built here)
-- ARGV[1]  bucket key prefix with the table's digit or "s" (e.g. "{news.t04}:0")
-- ARGV[2..] 2-byte bucket numbers
-- Returns one string: per bucket asked, its length in 4 bytes (big-endian) and its bytes.

local byte, char, floor = string.byte, string.char, math.floor
local prefix = ARGV[1]
local keys = {}
for i = 2, #ARGV do keys[i - 1] = string.format('%s%02x%02x', prefix, byte(ARGV[i], 1, 2)) end
local parts = {}
if #keys > 0 then
  local buckets = redis.call('MGET', unpack(keys))
  for i = 1, #keys do
    local b = buckets[i] or ''
    local n = #b
    parts[#parts + 1] = char(floor(n / 16777216) % 256, floor(n / 65536) % 256, floor(n / 256) % 256, n % 256) .. b
  end
end
return table.concat(parts)
