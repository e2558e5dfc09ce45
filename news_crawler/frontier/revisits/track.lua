-- Start a kept article's rechecks, unless it is tracked already (a later version of it).
-- KEYS[1]: the due set; KEYS[2]: the articles' states
-- ARGV[1]: url; ARGV[2]: its state (JSON); ARGV[3]: when its first recheck is due (server seconds)
-- Returns 1 when tracked now, 0 when it was before.
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
return 1
