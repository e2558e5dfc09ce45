
-- Kept ids (simhash -> doc id), shared by decide.lua and forget.lua.
-- An id is filed in one of 65,536 small hashes, <prefix>i<first two simhash bytes as hex>,
-- under the simhash's other six bytes, so that the server keeps each one a listpack. A URL
-- is filed short: byte 1, its origin's code, the rest of the URL; or, where the rest holds
-- two digits in a row and no byte above 127, byte 4, the code, and the rest with every two
-- digits in a row as one byte (128 + their value: "2019" is two bytes); the ORIGINS hash numbers
-- origins (scheme://host[:port] -> code and code -> origin, a counter under 'next'; a few
-- entries a site, never deleted). A form longer than FILED_MAX bytes (the server's default
-- hash-max-listpack-value; a longer value would turn its small hash into a hash table) is
-- filed in pieces in the same small hash: byte 2, the number n of further pieces and the
-- form's first FILED_MAX - 2 bytes under the six bytes, piece k (1..n, FILED_MAX bytes at
-- most) under the six bytes and byte k (a 7-byte field, which names no simhash). An id
-- needing more than PIECES_MAX pieces, or starting with a byte below 5 (it would read as a
-- marked form), goes to the <prefix>ids hash (8-byte simhash -> id), where earlier versions
-- filed every id and every id over 64 bytes, and its small hash holds byte 0 in its place
-- (so that a small hash names every simhash kept with its first two bytes: ids_near). All
-- are read.

local FILED_MAX, PIECES_MAX = 64, 8
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

-- An origin's code and the rest of the id, short: byte 1 and the rest as it is, or byte 4
-- and its digit pairs each as one byte.
local function short_form(code, rest)
  if find(rest, '%d%d') and not find(rest, '[\128-\255]') then
    if not PAIRED then pairs_tables() end
    return '\4' .. code .. string.gsub(rest, '%d%d', PAIRED)
  end
  return '\1' .. code .. rest
end

-- The form an id is filed in (a new origin is numbered), or nil for an id that must be
-- filed whole (one starting with a byte below 5 would read as a marked form).
local function short_id(id)
  local first = byte(id, 1)
  if first < 5 then return nil end
  local origin, rest = string.match(id, '^(%a[%w+.%-]*://[^/?#]+)(.*)$')
  if not origin then return id end
  local code = code_of[origin]
  if not code then
    code = redis.call('HGET', ORIGINS, origin)
    if not code then
      code = tostring(redis.call('HINCRBY', ORIGINS, 'next', 1))
      redis.call('HSET', ORIGINS, origin, code, code, origin)
    end
    code_of[origin], origin_of[code] = code, origin
  end
  return short_form(code, rest)
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

-- A form as filed: one value, or the pieces of a long one (see above).
local function pieces(form)
  if #form <= FILED_MAX then return { form } end
  local rest = sub(form, FILED_MAX - 1)
  local n = math.ceil(#rest / FILED_MAX)
  if n > PIECES_MAX then return nil end
  local out = { '\2' .. char(n) .. sub(form, 1, FILED_MAX - 2) }
  for k = 1, n do out[k + 1] = sub(rest, (k - 1) * FILED_MAX + 1, k * FILED_MAX) end
  return out
end

-- The whole form a filed value begins: piece(k) gives piece k of a long one.
local function joined(value, piece)
  if byte(value, 1) ~= 2 then return value end
  local out = { sub(value, 3) }
  for k = 1, byte(value, 2) do out[k + 1] = piece(k) or '' end
  return table.concat(out)
end

-- The value filed under low (six bytes) in small hash key, whole (pieces joined), or nil.
local function filed_value(key, low)
  local value = redis.call('HGET', key, low)
  if not value or byte(value, 1) ~= 2 then return value end
  local names = {}
  for k = 1, byte(value, 2) do names[k] = low .. char(k) end
  local got = redis.call('HMGET', key, unpack(names))
  return joined(value, function(k) return got[k] end)
end

-- The whole value of entry i of a small hash's HGETALL reply (filed), the pieces of a long
-- form joined (looked for in the reply: rare); nil for a piece's own entry.
local function entry_value(filed, i)
  local low, value = filed[i], filed[i + 1]
  if #low ~= 6 then return nil end
  if byte(value, 1) ~= 2 then return value end
  return joined(value, function(k)
    local name = low .. char(k)
    for j = 1, #filed, 2 do
      if filed[j] == name then return filed[j + 1] end
    end
  end)
end

-- The id kept under the generation prefix with 8-byte simhash fp, or false.
local function kept_id(prefix, fp)
  local value = filed_value(id_hash(prefix, fp), sub(fp, 3))
  if value and value ~= '\0' then return full_id(value) end
  return redis.call('HGET', prefix .. 'ids', fp)
end

-- kept_id for an index whose small hashes name every simhash kept (byte 0 for an id in
-- the ids hash): an id not in its small hash is not looked for in the ids hash.
local function filed_id(prefix, fp)
  local value = filed_value(id_hash(prefix, fp), sub(fp, 3))
  if not value then return false end
  if value == '\0' then return redis.call('HGET', prefix .. 'ids', fp) end
  return full_id(value)
end

-- found(fp, filed, i) for each simhash kept under prefix whose short_ref (lua/common.lua) is
-- ref (a compact sentence entry's document: one, nearly always), filed[i] its field in its
-- small hash's HGETALL reply.
local function each_near(prefix, ref, found)
  local filed = redis.call('HGETALL', id_hash(prefix, ref))
  local third, check = sub(ref, 3, 3), byte(ref, 4)
  for i = 1, #filed, 2 do
    local field = filed[i]
    local fp = sub(ref, 1, 2) .. field
    if #field == 6 and sub(field, 1, 1) == third and check_byte(fp) == check then found(fp, filed, i) end
  end
end

-- The simhashes kept under prefix whose short_ref is ref, and their ids, as {simhash, id} pairs.
local function ids_near(prefix, ref)
  local out = {}
  each_near(prefix, ref, function(fp, filed, i)
    local value = entry_value(filed, i)
    local id
    if value == '\0' then id = redis.call('HGET', prefix .. 'ids', fp) else id = full_id(value) end
    if id then out[#out + 1] = { fp, id } end
  end)
  return out
end

local function file_id(prefix, fp, id)
  local short = short_id(id)
  local parts = short and pieces(short)
  if parts then
    local low = sub(fp, 3)
    local args = { id_hash(prefix, fp), low, parts[1] }
    for k = 2, #parts do
      args[#args + 1] = low .. char(k - 1)
      args[#args + 1] = parts[k]
    end
    redis.call('HSET', unpack(args))
  else
    redis.call('HSET', prefix .. 'ids', fp, id)
    redis.call('HSET', id_hash(prefix, fp), sub(fp, 3), '\0')
  end
end

local function unfile_id(prefix, fp)
  local low, fields = sub(fp, 3), {}
  for k = 1, PIECES_MAX do fields[k] = low .. char(k) end
  redis.call('HDEL', id_hash(prefix, fp), low, unpack(fields))
  redis.call('HDEL', prefix .. 'ids', fp)
end

-- Kept ids are also filed by id key (decide.lua's KEYS[2]): 65,536 small hashes <prefix>k<first
-- two bytes of the 8-byte id key as hex>, field its next three bytes, value the first two
-- bytes of the simhash of each id kept with that key (one, nearly always): which small hash
-- the id is filed in by simhash, where it is found by its value. (Earlier versions filed the
-- key's other six bytes -> the 8-byte simhash: decide.lua and forget.lua read those too.)

-- id's forms as filed (short_id, and byte 1's as versions before wrote it for any URL), or
-- nil when its origin was never numbered; nothing is written.
local function filed_forms(id)
  local first = byte(id, 1)
  if first < 5 then return nil end
  local origin, rest = string.match(id, '^(%a[%w+.%-]*://[^/?#]+)(.*)$')
  if not origin then return id end
  local code = code_of[origin] or redis.call('HGET', ORIGINS, origin)
  if not code then return nil end
  return short_form(code, rest), '\1' .. code .. rest
end

-- The 8-byte simhash id was kept with under prefix, found through its key's small hash, or nil.
-- Also returns what that small hash held under the key (for file_key).
local function filed_simhash(prefix, filed_key, id_key, id)
  local refs = redis.call('HGET', filed_key, sub(id_key, 3, 5))
  if not refs then return nil, nil end
  local form, plain = filed_forms(id)
  for p = 1, #refs - 1, 2 do
    local ref = sub(refs, p, p + 1)
    local filed = redis.call('HGETALL', id_hash(prefix, ref))
    for i = 1, #filed, 2 do
      local value = entry_value(filed, i)
      if value and (value == form or value == plain
          or (value == '\0' and redis.call('HGET', prefix .. 'ids', ref .. filed[i]) == id)) then
        return ref .. filed[i], refs
      end
    end
  end
  return nil, refs
end

-- File a kept id's simhash under its key; refs is what the key's small hash held (filed_simhash).
local function file_key(filed_key, id_key, fp, refs)
  redis.call('HSET', filed_key, sub(id_key, 3, 5), (refs or '') .. sub(fp, 1, 2))
end

-- Take a forgotten id's simhash from under its key.
local function unfile_key(filed_key, id_key, fp)
  local field = sub(id_key, 3, 5)
  local refs, ref = redis.call('HGET', filed_key, field), sub(fp, 1, 2)
  if not refs then return end
  for p = 1, #refs - 1, 2 do
    if sub(refs, p, p + 1) == ref then
      refs = sub(refs, 1, p - 1) .. sub(refs, p + 2)
      if refs == '' then redis.call('HDEL', filed_key, field) else redis.call('HSET', filed_key, field, refs) end
      return
    end
  end
end

-- <prefix>held counts the generation's kept ids. An index of earlier versions has none yet
-- and all its ids are in the ids hash: the count starts from there, before anything is filed.
local function held_key(prefix)
  local key = prefix .. 'held'
  if redis.call('EXISTS', key) == 0 then redis.call('SET', key, redis.call('HLEN', prefix .. 'ids')) end
  return key
end
