-- Spread index, in the slot of the id hashes: the decisions recorded before for some ids,
-- and, for a batch to decide, the registration of the others' simhashes.
--
-- KEYS[1] docids hash, KEYS[2] ids hash, KEYS[3] docs hash (written before docids),
-- KEYS[4] drops hash, KEYS[5] drops:old, KEYS[6] the begun hash (simhash -> id of a document
-- being decided: registered when its batch began, until it is recorded)
-- ARGV[1] '1' when the docs hash is to be read; ARGV[2] per id: its 8-byte key, its 8-byte
-- simhash (zeros when only reading), 4 bytes of length, the id; ARGV[3] '1' to register;
-- ARGV[4] '1' when the drops hashes may hold records filed by id (an index begun by an
-- earlier version); drops:old is read where it exists
-- Returns one string: per id, 4 bytes of length and its answer: 'K' and its 8-byte simhash
-- when kept (the docids entry confirmed by the ids hash); when dropped, 'd', its 23-byte drop
-- record (finish.lua, filed under the id's key) and the id its kept simhash names, or 'D'
-- and a JSON record of earlier versions (filed under the id); else ''. A record whose kept
-- simhash names no id (forgotten since) is deleted: the id is decided afresh. (One string,
-- not a list: a client reads it at once.)
-- Registering, an id with no decision has its simhash registered under it in the begun hash.
-- A simhash kept under another id makes its answer 'L' (a copy at distance 0 of that one);
-- this id, kept or begun under the simhash, 'W' (another worker is deciding it at this
-- moment and records it). A simhash begun under another id is left to it (the claims then
-- tell which of the two comes first); one registered by an earlier id of the same call is
-- that one's: the worker decides the two itself. The record (finish.lua) moves a kept
-- document's registration to the ids hash and removes the others'.

local byte, sub, char = string.byte, string.sub, string.char
local out, blob, p, register, mine = {}, ARGV[2], 1, ARGV[3] == '1', {}
local by_id = ARGV[4] == '1'
local drops = redis.call('EXISTS', KEYS[5]) == 1 and { KEYS[4], KEYS[5] } or { KEYS[4] }
while p <= #blob do
  local key, simhash = sub(blob, p, p + 7), sub(blob, p + 8, p + 15)
  local b1, b2, b3, b4 = byte(blob, p + 16, p + 19)
  local n = ((b1 * 256 + b2) * 256 + b3) * 256 + b4
  local id = sub(blob, p + 20, p + 19 + n)
  p = p + 20 + n
  local fp = redis.call('HGET', KEYS[1], key)
  if fp and redis.call('HGET', KEYS[2], fp) ~= id then fp = false end
  if not fp and ARGV[1] == '1' then fp = redis.call('HGET', KEYS[3], id) end
  local a
  if fp then
    a = 'K' .. fp
  else
    for _, where in ipairs(drops) do
      local drop = not a and redis.call('HGET', where, key)
      if drop then
        local name = redis.call('HGET', KEYS[2], sub(drop, 16, 23))
        if name then a = 'd' .. drop .. name else redis.call('HDEL', where, key) end
      end
    end
    if not a and by_id then
      local drop = redis.call('HGET', KEYS[4], id) or redis.call('HGET', KEYS[5], id)
      a = drop and 'D' .. drop
    end
    a = a or ''
    if a == '' and register then
      local kept = redis.call('HGET', KEYS[2], simhash)
      if kept then
        a = kept == id and 'W' or 'L'
      elseif redis.call('HSETNX', KEYS[6], simhash, id) == 1 then
        mine[simhash] = true
      elseif not mine[simhash] and redis.call('HGET', KEYS[6], simhash) == id then
        a = 'W'
      end
    end
  end
  local m = #a
  out[#out + 1] = char(math.floor(m / 16777216), math.floor(m / 65536) % 256, math.floor(m / 256) % 256, m % 256) .. a
end
return table.concat(out)
