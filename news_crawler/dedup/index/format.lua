-- The index's format and layout, read and (for a writer) recorded in one step: a process that
-- records a new index's format and then writes its first keys can never be seen between the two.
-- KEYS[1]     the format key; KEYS[2] the layout key
-- KEYS[3..n]  keys only an index writes; one of them without a format is an index written
--             before formats were recorded
-- ARGV[1]     the format to record when the namespace holds no index yet, or "" to only read;
-- ARGV[2]     the layout to record with it
-- Returns { format, layout } as recorded (those just recorded included); { "" } when index
-- keys exist without a format; false (nil) when there is no index and nothing was recorded.
local found = redis.call('GET', KEYS[1])
if found then
  return { found, redis.call('GET', KEYS[2]) }
end
for i = 3, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    return { '' }
  end
end
if ARGV[1] ~= '' then
  redis.call('SET', KEYS[1], ARGV[1])
  redis.call('SET', KEYS[2], ARGV[2])
  return { ARGV[1], ARGV[2] }
end
return false
