-- Put leased requests back at the head of their queue's priority, once each: a member is
-- moved only by the caller whose ZREM removed it, so two workers reclaiming at once
-- never queue it twice.
--
-- KEYS[1]  queue (see pop.lua); KEYS[2] in-flight sorted set
-- ARGV[1]  1: move even an unexpired lease (its owner is known dead); 0: only expired ones
-- ARGV[2..] pairs: in-flight member, queue score (-priority)
-- Returns how many were moved.

local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local force = ARGV[1] == '1'
local moved = 0
for i = 2, #ARGV, 2 do
  local member = ARGV[i]
  local expiry = redis.call('ZSCORE', KEYS[2], member)
  if expiry and (force or tonumber(expiry) < now) then
    redis.call('ZREM', KEYS[2], member)
    local cut = string.find(member, '\n', 1, true)
    redis.call('ZADD', KEYS[1], ARGV[i + 1], string.sub(member, cut + 1))
    moved = moved + 1
  end
end
return moved
