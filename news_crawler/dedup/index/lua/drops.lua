-- Drop records, shared by decide.lua and forget.lua.
-- A record is filed by the dropped document's 8-byte id key in one of 8,192 small hashes,
-- <prefix>d<era>:<the key's first 13 bits as 4 hex digits>, under the key's last seven
-- bytes: byte 3, the dropped simhash (8 bytes), the distance (one byte), the rule (one byte:
-- 0 simhash, 1 sentences), the time (4 bytes, seconds since 1970, big-endian) and the kept
-- document's simhash (8 bytes), which names it through the kept ids (lua/ids.lua): 23 bytes,
-- no URL. A record whose kept document is no longer filed (forgotten, expired) is stale: the
-- dropped document is decided again. <prefix>drops:n counts the records written; with a cap
-- (decide.lua, ARGV[8]) every `rotate` of them begin a new era and the era two before goes.

local DROP_HASH_STEP = 8  -- 65,536 / 8 = 8,192 hashes: about 61 records each at 500,000

local function drop_hash(prefix, era, id_key)
  local b1, b2 = byte(id_key, 1, 2)
  return format('%sd%d:%04x', prefix, era, math.floor((b1 * 256 + b2) / DROP_HASH_STEP))
end

-- The eras live once n records were written, newest first.
local function drop_eras_of(n, rotate)
  local era = (rotate > 0 and n > 0) and math.floor((n - 1) / rotate) or 0
  if era == 0 then return { 0 } end
  return { era, era - 1 }
end

-- The eras whose records are live under prefix, newest first, and the records written.
local function drop_eras(prefix, rotate)
  local n = tonumber(redis.call('GET', prefix .. 'drops:n') or '0')
  return drop_eras_of(n, rotate), n
end

-- id_key's record under prefix in the eras given: the record and the hash holding it, or nil.
local function find_drop(prefix, eras, id_key)
  local field = sub(id_key, 2)
  for _, era in ipairs(eras) do
    local where = drop_hash(prefix, era, id_key)
    local raw = redis.call('HGET', where, field)
    if raw then return raw, where end
  end
  return nil
end

-- File record number n + 1 under prefix; returns n + 1. The first record of an era deletes
-- the era two before (8,192 hashes, freed in the background).
local function file_drop(prefix, rotate, n, id_key, record)
  n = n + 1
  local era = rotate > 0 and math.floor((n - 1) / rotate) or 0
  redis.call('HSET', drop_hash(prefix, era, id_key), sub(id_key, 2), record)
  if rotate > 0 and era >= 2 and (n - 1) % rotate == 0 then
    local names = {}
    for h = 0, 65535, DROP_HASH_STEP do
      names[#names + 1] = drop_hash(prefix, era - 2, char(math.floor(h / 256), h % 256))
      if #names == 1024 then redis.call('UNLINK', unpack(names)); names = {} end
    end
  end
  return n
end

-- The time as 4 bytes, big-endian.
local function time_bytes(seconds)
  local t = tonumber(seconds)
  return char(math.floor(t / 16777216) % 256, math.floor(t / 65536) % 256, math.floor(t / 256) % 256, t % 256)
end

local function pack_drop(fp, dist, rule, seconds, kept_fp)
  return '\3' .. fp .. char(dist, rule == 'sentences' and 1 or 0) .. time_bytes(seconds) .. kept_fp
end

-- YYYY-MM-DD of a time in seconds since 1970 (moved to the zone's day by its offset first) (the civil date of its day number).
local function day_of(seconds)
  local z = math.floor(seconds / 86400) + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local d = doy - math.floor((153 * mp + 2) / 5) + 1
  local m = mp < 10 and mp + 3 or mp - 9
  local y = yoe + era * 400 + (m <= 2 and 1 or 0)
  return format('%04d-%02d-%02d', y, m, d)
end

-- A record as a table: simhash (8 bytes), distance, rule, seconds (since 1970), kept (the
-- kept document's simhash).
local function unpack_drop(raw)
  local t1, t2, t3, t4 = byte(raw, 12, 15)
  return { simhash = sub(raw, 2, 9), distance = byte(raw, 10), rule = byte(raw, 11) == 1 and 'sentences' or 'simhash',
           seconds = ((t1 * 256 + t2) * 256 + t3) * 256 + t4, kept = sub(raw, 16, 23) }
end
