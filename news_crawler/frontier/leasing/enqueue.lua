-- Queue a request unless its fingerprint was seen, in one step: a URL is never marked
-- seen without being queued (or the other way round), whatever dies in between.
--
-- KEYS[1]  dupefilter set of request fingerprints; KEYS[2] queue (see pop.lua)
-- ARGV[1]  the request's fingerprint; ARGV[2] its queue score (-priority);
-- ARGV[3]  the request JSON; ARGV[4] '1' for dont_filter: queued, the dupefilter untouched
-- Returns 1 when queued, 0 when it was seen before.

if ARGV[4] ~= '1' and redis.call('SADD', KEYS[1], ARGV[1]) == 0 then
  return 0
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
return 1
