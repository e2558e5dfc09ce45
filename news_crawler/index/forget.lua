-- Remove one document from the index, in one step (see decide.lua for the layout).
--
-- KEYS[1] ids hash, KEYS[2] docids hash (earlier versions'), KEYS[3] drops hash, KEYS[4] stats hash,
-- KEYS[5] origins hash (lua/ids.lua, prepended with lua/common.lua and lua/drops.lua)
-- ARGV[1] doc id; ARGV[2] bucket key prefix (as in decide.lua); ARGV[3] the id's 8-byte key;
-- ARGV[4] drop records an era holds (decide.lua, ARGV[8])
-- Returns 'kept' (its fingerprint left the four tables), 'dropped' (its drop record was
-- removed) or '' (never decided). A kept document's sentence entries stay: they name a
-- simhash no kept id is filed under, and decide.lua skips them.

local id, prefix, id_key = ARGV[1], ARGV[2], ARGV[3]
ORIGINS = KEYS[5]
local legacy = prefix .. 'docs'  -- id -> simhash, as earlier versions wrote it
local filed = prefix .. string.format('k%02x%02x', string.byte(id_key, 1, 2))  -- see decide.lua
local field = string.sub(id_key, 3)
local fp = filed_simhash(prefix, filed, id_key, id)  -- lua/ids.lua
if not fp then  -- as earlier versions filed it
  fp = redis.call('HGET', filed, field) or redis.call('HGET', KEYS[2], id_key)
  if fp and kept_id(prefix, fp) ~= id then fp = nil end
end
if not fp then fp = redis.call('HGET', legacy, id) end
if not fp then
  local rec, where = find_drop(prefix, drop_eras(prefix, tonumber(ARGV[4])), id_key)  -- lua/drops.lua
  local drop_field = string.sub(id_key, 2)
  if not rec then where, drop_field = KEYS[3], id; rec = redis.call('HGET', where, id) end
  if not rec then where = prefix .. 'drops:old'; rec = redis.call('HGET', where, id) end
  if not rec then return '' end
  redis.call('HDEL', where, drop_field)
  redis.call('HINCRBY', KEYS[4], 'dropped', -1)
  local drop = unpack_drop(rec)
  if drop.rule == 'sentences' then redis.call('HINCRBY', KEYS[4], 'dropped:sentences', -1) end
  local day = 'drops:' .. drop.day  -- the day it was counted under
  if tonumber(redis.call('HGET', KEYS[4], day) or '0') > 0 then redis.call('HINCRBY', KEYS[4], day, -1) end
  return 'dropped'
end
for t = 0, 3 do
  local block = string.sub(fp, 2 * t + 1, 2 * t + 2)
  local key = prefix .. t .. string.format('%02x%02x', string.byte(block, 1, 2))
  local entry = string.sub(fp, 1, 2 * t) .. string.sub(fp, 2 * t + 3)
  local bucket = redis.call('GET', key) or ''
  for pos = 1, #bucket, 6 do
    if string.sub(bucket, pos, pos + 5) == entry then
      bucket = string.sub(bucket, 1, pos - 1) .. string.sub(bucket, pos + 6)
      if #bucket == 0 then
        redis.call('DEL', key)
      else
        redis.call('SET', key, bucket)
      end
      break
    end
  end
end
unfile_key(filed, id_key, fp)
if redis.call('HGET', filed, field) == fp then redis.call('HDEL', filed, field) end
if redis.call('HGET', KEYS[2], id_key) == fp then redis.call('HDEL', KEYS[2], id_key) end
redis.call('HDEL', legacy, id)
redis.call('DECR', held_key(prefix))
unfile_id(prefix, fp)
redis.call('HINCRBY', KEYS[4], 'kept', -1)
return 'kept'
