-- Lease the first request of a priority queue: move it, in one step, from the queue to the
-- in-flight set, where it stays until its outcome is recorded (ack) or its lease expires.
--
-- KEYS[1]  queue: sorted set, member = request JSON, score = -priority (scrapy-redis' layout)
-- KEYS[2]  in-flight: sorted set, member = "<owner>\n<request JSON>", score = lease expiry
--          (server time, seconds)
-- ARGV[1]  owner: the worker taking the request ("<host>:<pid>:<process start>")
-- ARGV[2]  lease seconds
-- Returns the in-flight member ("<owner>\n<request JSON>"), or false when the queue is empty.

local top = redis.call('ZRANGE', KEYS[1], 0, 0)
if #top == 0 then
  return false
end
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local member = ARGV[1] .. '\n' .. top[1]
redis.call('ZREM', KEYS[1], top[1])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), member)
return member
