-- Spread index, in the slot of the id hashes: the decisions recorded before for some ids,
-- and, for a batch to decide, the registration of the others' simhashes.
--
-- KEYS[1] the begun hash (simhash -> id of a document being decided: registered when its
-- batch began, until it is recorded); then per live generation, newest first, five keys: its
-- docids hash, ids hash, docs hash (written before docids), drops hash and drops:old; in the
-- compact layout only KEYS[2], the origins hash: kept ids and drop records are filed as on
-- one server (lua/ids.lua, lua/drops.lua: ARGV[6] records an era; records by id key in the
-- i<hex> small hashes, see finish.lua) under the live
-- generations' prefixes ARGV[7..], newest first
-- ARGV[1] '1' when the docs hash is to be read; ARGV[2] per id: its 8-byte key, its 8-byte
-- simhash (zeros when only reading), 4 bytes of length, the id; ARGV[3] '1' to register;
-- ARGV[4] '1' when the drops hashes may hold records filed by id (an index begun by an
-- earlier version); drops:old is read where it exists; ARGV[5] '1': the compact layout
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
local by_id, begun = ARGV[4] == '1', KEYS[1]
local compact, id_filed = ARGV[5] == '1', filed_id  -- lua/ids.lua's
local docids, ids, docs, drops, prefixes = {}, {}, {}, {}, {}  -- per live generation; drops: every drop hash
if compact then
  ORIGINS = KEYS[2]
  for k = 7, #ARGV do prefixes[#prefixes + 1] = ARGV[k] end
else
  for k = 2, #KEYS, 5 do
    docids[#docids + 1], ids[#ids + 1], docs[#docs + 1] = KEYS[k], KEYS[k + 1], KEYS[k + 2]
    drops[#drops + 1] = KEYS[k + 3]
    if redis.call('EXISTS', KEYS[k + 4]) == 1 then drops[#drops + 1] = KEYS[k + 4] end
  end
end
-- The drop record filed under an id's 8-byte key in a live generation, and the hash and
-- field it is filed under; or nil.
local eras = {}
for g, prefix in ipairs(prefixes) do eras[g] = drop_eras(prefix, tonumber(ARGV[6])) end
local function drop_of(key)
  for g, prefix in ipairs(prefixes) do
    local raw, where = find_drop(prefix, eras[g], key)
    if raw then return raw, where, sub(key, 2) end
  end
  for _, where in ipairs(drops) do
    local raw = redis.call('HGET', where, key)
    if raw then return raw, where, key end
  end
  return nil
end
-- The id kept with 8-byte simhash fp in a live generation, or false.
local function kept_id(fp)
  for _, h in ipairs(compact and prefixes or ids) do
    local id
    if compact then id = id_filed(h, fp) else id = redis.call('HGET', h, fp) end
    if id then return id end
  end
  return false
end
-- The 8-byte simhash id (8-byte key) is kept with in a live generation, or false.
local function kept_simhash(key, id)
  for g = 1, compact and #prefixes or #docids do
    local fp
    if compact then
      fp = filed_simhash(prefixes[g], id_hash(prefixes[g], key), key, id)
    else
      fp = redis.call('HGET', docids[g], key)
      if fp and redis.call('HGET', ids[g], fp) ~= id then fp = false end
      if not fp and ARGV[1] == '1' then fp = redis.call('HGET', docs[g], id) end
    end
    if fp then return fp end
  end
  return false
end
while p <= #blob do
  local key, simhash = sub(blob, p, p + 7), sub(blob, p + 8, p + 15)
  local b1, b2, b3, b4 = byte(blob, p + 16, p + 19)
  local n = ((b1 * 256 + b2) * 256 + b3) * 256 + b4
  local id = sub(blob, p + 20, p + 19 + n)
  p = p + 20 + n
  local fp = kept_simhash(key, id)
  local a
  if fp then
    a = 'K' .. fp
  else
    local drop, where, field = drop_of(key)
    while drop do  -- a record whose kept simhash names no id (forgotten since) goes
      local name = kept_id(sub(drop, 16, 23))
      if name then
        a, drop = 'd' .. drop .. name, nil
      else
        redis.call('HDEL', where, field)
        drop, where, field = drop_of(key)
      end
    end
    for _, where in ipairs(by_id and drops or {}) do
      local drop = not a and redis.call('HGET', where, id)
      if drop then a = 'D' .. drop end
    end
    a = a or ''
    if a == '' and register then
      local kept = kept_id(simhash)
      if kept then
        a = kept == id and 'W' or 'L'
      elseif redis.call('HSETNX', begun, simhash, id) == 1 then
        mine[simhash] = true
      elseif not mine[simhash] and redis.call('HGET', begun, simhash) == id then
        a = 'W'
      end
    end
  end
  local m = #a
  out[#out + 1] = char(math.floor(m / 16777216), math.floor(m / 65536) % 256, math.floor(m / 256) % 256, m % 256) .. a
end
return table.concat(out)
