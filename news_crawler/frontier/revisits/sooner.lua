-- Record new links found after a visit: the page's new state, and its next visit moved to
-- WHEN if that is sooner than it stands (a claim in progress is never extended); compare and
-- set, as visited.lua.
-- KEYS[1]: the due set; KEYS[2]: the pages' states
-- ARGV[1]: url; ARGV[2]: the new state (JSON); ARGV[3]: when the next visit is due (server seconds);
-- ARGV[4]: the state read
-- Returns 1 written, 0 the page is no longer scheduled, -1 the state changed meanwhile.
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
if (redis.call('HGET', KEYS[2], ARGV[1]) or '') ~= ARGV[4] then return -1 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[1], 'XX', 'LT', ARGV[3], ARGV[1])
return 1
