-- Record a visit: the page's new state, and its next visit INTERVAL seconds from now.
-- KEYS[1]: the due set; KEYS[2]: the pages' states
-- ARGV[1]: url; ARGV[2]: the new state (JSON, whose "last" the caller set from TIME too); ARGV[3]: interval
-- Only a page still scheduled is written (one removed meanwhile stays removed). Returns 1 or 0.
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
return 1
