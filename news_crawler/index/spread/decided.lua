-- Spread index, in the slot of the id hashes: the decisions recorded before for some ids.
--
-- KEYS[1] docids hash, KEYS[2] ids hash, KEYS[3] docs hash (written before docids),
-- KEYS[4] drops hash, KEYS[5] drops:old
-- ARGV[1] '1' when the docs hash is to be read; ARGV[2] per id: its 8-byte key, 4 bytes of
-- length, the id
-- Returns one string: per id, 4 bytes of length and its answer: 'K' and its 8-byte simhash
-- when kept (the docids entry confirmed by the ids hash); when dropped, 'd', its 23-byte drop
-- record (finish.lua, filed under the id's key) and the id its kept simhash names, or 'D'
-- and a JSON record of earlier versions (filed under the id); else ''. A record whose kept
-- simhash names no id (forgotten since) is deleted: the id is decided afresh. (One string,
-- not a list: a client reads it at once.)

local byte, sub, char = string.byte, string.sub, string.char
local out, blob, p = {}, ARGV[2], 1
while p <= #blob do
  local key = sub(blob, p, p + 7)
  local b1, b2, b3, b4 = byte(blob, p + 8, p + 11)
  local n = ((b1 * 256 + b2) * 256 + b3) * 256 + b4
  local id = sub(blob, p + 12, p + 11 + n)
  p = p + 12 + n
  local fp = redis.call('HGET', KEYS[1], key)
  if fp and redis.call('HGET', KEYS[2], fp) ~= id then fp = false end
  if not fp and ARGV[1] == '1' then fp = redis.call('HGET', KEYS[3], id) end
  local a
  if fp then
    a = 'K' .. fp
  else
    for _, where in ipairs({ KEYS[4], KEYS[5] }) do
      local drop = not a and redis.call('HGET', where, key)
      if drop then
        local name = redis.call('HGET', KEYS[2], sub(drop, 16, 23))
        if name then a = 'd' .. drop .. name else redis.call('HDEL', where, key) end
      end
    end
    if not a then
      local drop = redis.call('HGET', KEYS[4], id) or redis.call('HGET', KEYS[5], id)
      a = drop and 'D' .. drop or ''
    end
  end
  local m = #a
  out[#out + 1] = char(math.floor(m / 16777216), math.floor(m / 65536) % 256, math.floor(m / 256) % 256, m % 256) .. a
end
return table.concat(out)
