-- Extend the leases a live worker holds.
--
-- KEYS[1]  in-flight sorted set (see pop.lua)
-- ARGV[1]  lease seconds
-- ARGV[2..] in-flight members this worker holds (one acked meanwhile stays absent: XX)
-- Returns how many leases were extended.

local t = redis.call('TIME')
local until_ = tonumber(t[1]) + tonumber(t[2]) / 1000000 + tonumber(ARGV[1])
local n = 0
for i = 2, #ARGV do
  n = n + redis.call('ZADD', KEYS[1], 'XX', 'CH', until_, ARGV[i])
end
return n
