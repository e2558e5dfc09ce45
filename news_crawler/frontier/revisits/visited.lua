-- Record a visit: the page's new state, and its next visit INTERVAL seconds from now, if
-- the state is still the one the new state was computed from (compare and set: a visit
-- recorded meanwhile by another watcher is never overwritten; the caller reads again).
-- KEYS[1]: the due set; KEYS[2]: the pages' states
-- ARGV[1]: url; ARGV[2]: the new state (JSON); ARGV[3]: interval; ARGV[4]: the state read ("" for none)
-- Returns 1 written, 0 the page is no longer scheduled, -1 the state changed meanwhile.
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
if (redis.call('HGET', KEYS[2], ARGV[1]) or '') ~= ARGV[4] then return -1 end
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
return 1
