-- Record a recheck, if the article's state is still the one claimed (compare and set: a
-- recheck recorded meanwhile by another worker is never overwritten). After the last one, or
-- a deletion, the article leaves the schedule and its state goes (memory stays bounded by
-- the articles of the last RECHECK_AFTER; the events stay in the change log).
-- KEYS[1]: the due set; KEYS[2]: the articles' states
-- ARGV[1]: url; ARGV[2]: the new state (JSON); ARGV[3]: the state as claimed; ARGV[4]: 1 when no
-- recheck follows (the last one, or the article is gone); ARGV[5]: when the next is due
-- Returns 1 written, 0 not (the state changed, or the article is no longer tracked).
if (redis.call('HGET', KEYS[2], ARGV[1]) or '') ~= ARGV[3] then return 0 end
if ARGV[4] == '1' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
else
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  redis.call('ZADD', KEYS[1], ARGV[5], ARGV[1])
end
return 1
