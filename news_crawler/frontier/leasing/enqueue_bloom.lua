-- Queue a request unless a Bloom filter says its fingerprint was seen, in one step (the
-- Bloom twin of enqueue.lua). One bitmap per period: a request is seen when all its bits
-- are set in any live period's bitmap; a new one sets its bits in the current period's.
--
-- KEYS[1]  queue (see pop.lua), or any key when ARGV[2] is '' (only check and mark)
-- KEYS[2]  the current period's bitmap; KEYS[3..] the older live periods' bitmaps
-- ARGV[1]  queue score (-priority); ARGV[2] the request JSON ('' : do not queue)
-- ARGV[3]  '1' for dont_filter: queued, the filter untouched
-- ARGV[4]  seconds a period's bitmap lives (set once, when it is created)
-- ARGV[5]  the bitmap's size in bytes: created whole, so that it never grows (a bitmap grown
--          by SETBIT is over-allocated by up to a half)
-- ARGV[6..] the fingerprint's bit positions
-- Returns 1 when new (and queued), 0 when it was seen before.

if ARGV[3] ~= '1' then
  for g = 2, #KEYS do
    local all = true
    for i = 6, #ARGV do
      if redis.call('GETBIT', KEYS[g], ARGV[i]) == 0 then
        all = false
        break
      end
    end
    if all then
      return 0
    end
  end
  if redis.call('EXISTS', KEYS[2]) == 0 then
    redis.call('SET', KEYS[2], string.rep('\0', tonumber(ARGV[5])), 'EX', ARGV[4])
  end
  for i = 6, #ARGV do
    redis.call('SETBIT', KEYS[2], ARGV[i], 1)
  end
end
if ARGV[2] ~= '' then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
end
return 1
