-- Make the due set hold exactly the spider's start pages: a new one is due at once, one
-- already scheduled keeps its time, one no longer a start page leaves with its state.
-- KEYS[1]: the due set; KEYS[2]: the pages' states
-- ARGV: the start page URLs
-- Returns the number of pages that were new.
local wanted = {}
for _, url in ipairs(ARGV) do wanted[url] = true end
for _, url in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if not wanted[url] then
    redis.call('ZREM', KEYS[1], url)
    redis.call('HDEL', KEYS[2], url)
  end
end
local added = 0
for _, url in ipairs(ARGV) do
  added = added + redis.call('ZADD', KEYS[1], 'NX', 0, url)
end
return added
