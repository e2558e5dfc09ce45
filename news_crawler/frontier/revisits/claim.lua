-- Claim the start pages that are due: each is pushed CLAIM seconds into the future, so no
-- other watcher takes it while its visit runs; a watcher that dies leaves it due again then.
-- KEYS[1]: the due set (url -> when, server seconds); KEYS[2]: the pages' states (url -> JSON)
-- ARGV[1]: claim seconds; ARGV[2]: pages to claim at most
-- Returns {now, when the first page is due after these claims or '' (both strings: Lua numbers
-- become integers on the way out), url, state, url, state, ...}
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
local out = {tostring(now)}
for _, url in ipairs(due) do
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), url)
  out[#out + 1] = url
  out[#out + 1] = redis.call('HGET', KEYS[2], url) or ''
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
table.insert(out, 2, first[2] or '')
return out
