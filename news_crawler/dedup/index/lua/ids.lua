
-- Kept ids (simhash -> doc id), shared by decide.lua and forget.lua.
-- An id is filed in one of 65,536 small hashes, <prefix>i<first two simhash bytes as hex>,
-- under the simhash's other six bytes, so that the server keeps each one a listpack. A URL
-- is filed short: byte 1, its origin's code, the rest of the URL; or, where the rest holds
-- two digits in a row and no byte above 127, byte 4, the code, and the rest with every two
-- digits in a row as one byte (128 + their value: "2019" is two bytes); the generation's
-- <prefix>origins hash numbers origins (scheme://host[:port] -> code and code -> origin, a
-- counter under 'next'; a few entries a site). A form longer than FILED_MAX bytes (the
-- server's default hash-max-listpack-value: a longer value would turn its small hash into a
-- hash table), or an id starting with a byte below 5 (it would read as a marked form), goes
-- whole to the <prefix>ids hash (8-byte simhash -> id), with byte 0 in its small hash (so
-- that a small hash names every simhash kept with its first two bytes: ids_near).

local FILED_MAX = 64
local ORIGINS  -- the origins hash's key: set by the script before any call below
local code_of, origin_of = {}, {}  -- what this call has read of ORIGINS

local function id_hash(prefix, fp)
  return format('%si%02x%02x', prefix, byte(fp, 1, 2))
end

-- Two digits in a row <-> one byte, 128 + their value (built when first needed).
local PAIRED, UNPAIRED
local function pairs_tables()
  PAIRED, UNPAIRED = {}, {}
  for n = 0, 99 do
    local two = format('%02d', n)
    PAIRED[two], UNPAIRED[char(128 + n)] = char(128 + n), two
  end
end

-- The form an id is filed in, or nil for an id that must be filed whole (one starting with
-- a byte below 5 would read as a marked form). A new origin is numbered only when number
-- is true; else an id of an origin never numbered has no form (false: it was never filed).
local function short_id(id, number)
  if byte(id, 1) < 5 then return nil end
  local origin, rest = string.match(id, '^(%a[%w+.%-]*://[^/?#]+)(.*)$')
  if not origin then return id end
  local code = code_of[origin] or redis.call('HGET', ORIGINS, origin)
  if not code then
    if not number then return false end
    code = tostring(redis.call('HINCRBY', ORIGINS, 'next', 1))
    redis.call('HSET', ORIGINS, origin, code, code, origin)
  end
  code_of[origin], origin_of[code] = code, origin
  if find(rest, '%d%d') and not find(rest, '[\128-\255]') then
    if not PAIRED then pairs_tables() end
    return '\4' .. code .. string.gsub(rest, '%d%d', PAIRED)
  end
  return '\1' .. code .. rest
end

-- The id a filed value stands for.
local function full_id(value)
  local first = byte(value, 1)
  if first ~= 1 and first ~= 4 then return value end
  local code, rest = string.match(value, '^[\1\4](%d+)(.*)$')
  local origin = origin_of[code]
  if not origin then
    origin = redis.call('HGET', ORIGINS, code) or '?'
    origin_of[code] = origin
  end
  if first == 4 then
    if not UNPAIRED then pairs_tables() end
    rest = string.gsub(rest, '[\128-\227]', UNPAIRED)
  end
  return origin .. rest
end

-- The id a small hash's value names for simhash fp.
local function value_id(prefix, fp, value)
  if value == '\0' then return redis.call('HGET', prefix .. 'ids', fp) end
  return full_id(value)
end

-- The id kept under prefix with 8-byte simhash fp, or false.
local function kept_id(prefix, fp)
  local value = redis.call('HGET', id_hash(prefix, fp), sub(fp, 3))
  return value and value_id(prefix, fp, value)
end

-- The simhashes kept under prefix whose short_ref (lua/common.lua) is ref (a sentence
-- entry's document: one, nearly always), and their ids, as {simhash, id} pairs.
local function ids_near(prefix, ref)
  local out = {}
  local filed = redis.call('HGETALL', id_hash(prefix, ref))
  local third, check = sub(ref, 3, 3), byte(ref, 4)
  for i = 1, #filed, 2 do
    local field = filed[i]
    local fp = sub(ref, 1, 2) .. field
    if sub(field, 1, 1) == third and check_byte(fp) == check then
      local id = value_id(prefix, fp, filed[i + 1])
      if id then out[#out + 1] = { fp, id } end
    end
  end
  return out
end

local function file_id(prefix, fp, id)
  local short = short_id(id, true)
  if short and #short <= FILED_MAX then
    redis.call('HSET', id_hash(prefix, fp), sub(fp, 3), short)
  else
    redis.call('HSET', prefix .. 'ids', fp, id)
    redis.call('HSET', id_hash(prefix, fp), sub(fp, 3), '\0')
  end
end

local function unfile_id(prefix, fp)
  redis.call('HDEL', id_hash(prefix, fp), sub(fp, 3))
  redis.call('HDEL', prefix .. 'ids', fp)
end

-- Kept ids are also filed by id key: 65,536 small hashes <prefix>k<first two bytes of the
-- 8-byte id key as hex>, field its next three bytes, value the first two bytes of the
-- simhash of each id kept with that key (one, nearly always): which small hash the id is
-- filed in by simhash, where it is found by its value.
local function key_hash(prefix, id_key)
  return format('%sk%02x%02x', prefix, byte(id_key, 1, 2))
end

-- The 8-byte simhash id was kept with under prefix, or nil; and what its key's small hash
-- held under the key (for file_key).
local function filed_simhash(prefix, id_key, id)
  local refs = redis.call('HGET', key_hash(prefix, id_key), sub(id_key, 3, 5))
  if not refs then return nil, nil end
  local form = short_id(id, false)
  if form == false then return nil, refs end
  for p = 1, #refs - 1, 2 do
    local ref = sub(refs, p, p + 1)
    local filed = redis.call('HGETALL', id_hash(prefix, ref))
    for i = 1, #filed, 2 do
      local value = filed[i + 1]
      if value == form or (value == '\0' and redis.call('HGET', prefix .. 'ids', ref .. filed[i]) == id) then
        return ref .. filed[i], refs
      end
    end
  end
  return nil, refs
end

-- File a kept id's simhash under its key; refs is what the key's small hash held (filed_simhash).
local function file_key(prefix, id_key, fp, refs)
  redis.call('HSET', key_hash(prefix, id_key), sub(id_key, 3, 5), (refs or '') .. sub(fp, 1, 2))
end

-- Take a forgotten id's simhash from under its key.
local function unfile_key(prefix, id_key, fp)
  local key, field = key_hash(prefix, id_key), sub(id_key, 3, 5)
  local refs, ref = redis.call('HGET', key, field), sub(fp, 1, 2)
  if not refs then return end
  for p = 1, #refs - 1, 2 do
    if sub(refs, p, p + 1) == ref then
      refs = sub(refs, 1, p - 1) .. sub(refs, p + 2)
      if refs == '' then redis.call('HDEL', key, field) else redis.call('HSET', key, field, refs) end
      return
    end
  end
end

-- A kept document's publication time, and the outlet its 来源 line names when that is
-- another's, when either is known: 65,536 small hashes <prefix>p<first two simhash bytes as
-- hex>, under the other six bytes, 4 bytes (seconds since 1970, big-endian; 0: unknown),
-- then 4 more (base.py outlet_key) only for a document that names another outlet.
local function published_hash(prefix, fp)
  return format('%sp%02x%02x', prefix, byte(fp, 1, 2))
end

local function word_at(raw, at)
  local a, b, c, d = byte(raw, at, at + 3)
  return ((a * 256 + b) * 256 + c) * 256 + d
end

-- Its publication second and the outlet it credits (0 each when unknown).
local function kept_published(prefix, fp)
  local raw = redis.call('HGET', published_hash(prefix, fp), sub(fp, 3))
  if not raw then return 0, 0 end
  return word_at(raw, 1), #raw >= 8 and word_at(raw, 5) or 0
end

-- A story's original that took the place of the one kept before (decide.lua) leaves a link
-- from the old simhash to the new one in <prefix>moved, so that a drop record naming the old
-- one names the original. The id kept under prefix with simhash fp, or the id of the
-- original that took its place (links followed, at most MOVES of them), or false.
local MOVES = 32
local function current_id(prefix, fp)
  for _ = 0, MOVES do
    local id = kept_id(prefix, fp)
    if id then return id end
    fp = redis.call('HGET', prefix .. 'moved', fp)
    if not fp then return false end
  end
  return false
end

-- The 8-byte key an id is filed under: the first bytes of its SHA-1 (base.py: id_key).
local function key_of(id)
  return (string.gsub(sub(redis.sha1hex(id), 1, 16), '..', function(h) return char(tonumber(h, 16)) end))
end
