-- The index's format, read and (for a writer) recorded in one step: a process that records a
-- new index's format and then writes its first keys can never be seen between the two.
-- KEYS[1]     the format key
-- KEYS[2..n]  keys only an index writes; one of them without a format is an index written
--             before formats were recorded
-- ARGV[1]     the format to record when the namespace holds no index yet, or "" to only read
-- Returns the format recorded (the one just recorded included); "" when index keys exist
-- without one; false (nil) when there is no index and nothing was recorded.
local found = redis.call('GET', KEYS[1])
if found then
  return found
end
for i = 2, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    return ''
  end
end
if ARGV[1] ~= '' then
  redis.call('SET', KEYS[1], ARGV[1])
  return ARGV[1]
end
return false
