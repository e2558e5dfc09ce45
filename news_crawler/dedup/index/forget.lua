-- Remove one document from one generation of the index, in one step (see decide.lua for the
-- layout; lua/common.lua, lua/ids.lua and lua/drops.lua are prepended).
--
-- KEYS[1] the generation's stats hash
-- ARGV[1] doc id; ARGV[2] the generation's key prefix; ARGV[3] the id's 8-byte key;
-- ARGV[4] drop records an era holds (decide.lua, ARGV[8]); ARGV[5] the seconds the days of
-- the drop counts are ahead of UTC (TIMEZONE); ARGV[6] the layout (decide.lua, ARGV[11])
-- Returns 'kept' (its fingerprint left the tables), 'dropped' (its drop record was
-- removed) or '' (not decided in this generation). A kept document's sentence entries stay:
-- they name a simhash no kept id is filed under, and decide.lua skips them.

local id, prefix, id_key = ARGV[1], ARGV[2], ARGV[3]
ORIGINS = prefix .. 'origins'
local fp = filed_simhash(prefix, id_key, id)  -- lua/ids.lua
if not fp then
  local rec, where = find_drop(prefix, drop_eras(prefix, tonumber(ARGV[4])), id_key)  -- lua/drops.lua
  if not rec then return '' end
  redis.call('HDEL', where, sub(id_key, 2))
  redis.call('HINCRBY', KEYS[1], 'dropped', -1)
  local drop = unpack_drop(rec)
  if drop.rule == 'sentences' then redis.call('HINCRBY', KEYS[1], 'dropped:sentences', -1) end
  local day = 'drops:' .. day_of(drop.seconds + tonumber(ARGV[5]))  -- the day it was counted under
  if tonumber(redis.call('HGET', KEYS[1], day) or '0') > 0 then redis.call('HINCRBY', KEYS[1], day, -1) end
  return 'dropped'
end
unfile_tables(prefix, read_layout(ARGV[6]), fp)  -- lua/common.lua
unfile_key(prefix, id_key, fp)
unfile_id(prefix, fp)
redis.call('HDEL', published_hash(prefix, fp), sub(fp, 3))
redis.call('DECR', prefix .. 'held')
redis.call('HINCRBY', KEYS[1], 'kept', -1)
return 'kept'
