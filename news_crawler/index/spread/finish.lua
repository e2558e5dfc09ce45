-- Spread index, last step, in the slot of the id hashes: record what a batch decided.
--
-- KEYS[1] ids hash, KEYS[2] docids hash, KEYS[3] drops hash (and <drops hash>:recent, the
-- last RECENT_DROPS dropped ids, newest first), all three of the newest generation (where
-- the batch is recorded); KEYS[4] stats hash (as decide.lua), KEYS[5] the begun hash
-- (decided.lua); KEYS[6..] the ids hashes of the older live generations (retention), where
-- a duplicate may be kept too. In the compact layout (ARGV[5] '1') kept ids are filed as on
-- one server (lua/ids.lua) under the live generations' prefixes ARGV[6..], newest first:
-- KEYS[1] is then the origins hash and KEYS[2] the newest generation's held count; a kept
-- id's record by its key (field the key's bytes 3-5, value the simhash's first two bytes,
-- as lua/ids.lua files it in <prefix>k<hex> on one server) goes in the same small hashes as
-- the ids, <prefix>i<the key's first two bytes as hex> (fields of 3 bytes, which name no
-- simhash: the id hashes' 6-byte fields and 7-byte pieces are told from them), so that
-- the slot holds one small hash a document, not two, while the index is small; and drop
-- records are filed in eras of small hashes (lua/drops.lua), KEYS[3] naming the list of the
-- last drops (<drops hash>:recent) only.
-- ARGV[1] time (seconds since 1970), ARGV[2] its day, ARGV[3] drop records before the drops
-- hash becomes drops:old (0: no limit); ARGV[4] the rows, one string, each: a code ('K' kept,
-- 'D' dropped when decided, 'L' a copy at distance 0 of the simhash another id registered
-- first, 'W' the same id being decided by another worker: nothing written, that worker
-- records it); the 8-byte simhash;
-- a byte 1 and the 8-byte simhash it duplicates, or a byte 0 when kept; the distance (a
-- byte); the rule (a byte of length, then its name); the id's 8-byte key; the id (4 bytes
-- of length, then its bytes).
-- A drop record is filed under the dropped id's 8-byte key, 23 bytes as lua/drops.lua packs
-- them: byte 3, the simhash, distance, rule (0 simhash, 1 sentences), the time (4 bytes)
-- and the simhash it duplicates, which the ids hash names (earlier versions filed JSON
-- records under the id).
-- The kept are registered in the ids hash first (their registration in the begun hash,
-- decided.lua, goes; the others' goes too), then the names of the documents duplicated are
-- read, then the records written.
-- Counts 'decided_again' in the stats hash: documents whose duplicate was gone (a race
-- with another worker, or a document forgotten).
-- Returns one string: per document, a byte 1 when the id was kept by another worker
-- meanwhile under the same simhash (the caller answers it as a replay), 2 when what it
-- duplicates is gone (another worker dropped it, or it was forgotten: nothing is recorded
-- and the caller decides it again), 3 when what it duplicates is still being decided by
-- another worker (nothing is recorded; the caller waits for that and decides it again),
-- else 0; then 4 bytes of length and the id it duplicates ('' when
-- kept).

local byte, sub, char = string.byte, string.sub, string.char
local rows, blob, p = {}, ARGV[4], 1
while p <= #blob do
  local r = { code = sub(blob, p, p), fp = sub(blob, p + 1, p + 8), dup = '' }
  p = p + 9
  if byte(blob, p) == 1 then
    r.dup = sub(blob, p + 1, p + 8)
    p = p + 8
  end
  r.dist = byte(blob, p + 1)
  local rule_len = byte(blob, p + 2)
  r.rule = sub(blob, p + 3, p + 2 + rule_len)
  p = p + 3 + rule_len
  r.key = sub(blob, p, p + 7)
  local b1, b2, b3, b4 = byte(blob, p + 8, p + 11)
  local id_len = ((b1 * 256 + b2) * 256 + b3) * 256 + b4
  r.id = sub(blob, p + 12, p + 11 + id_len)
  p = p + 12 + id_len
  rows[#rows + 1] = r
end
local out, names = {}, {}
local compact, id_filed, prefixes = ARGV[5] == '1', filed_id, {}  -- lua/ids.lua's
if compact then
  ORIGINS = KEYS[1]
  for k = 6, #ARGV do prefixes[#prefixes + 1] = ARGV[k] end
end
for _, r in ipairs(rows) do  -- the kept first: a drop of this batch can name one
  if r.code == 'K' then
    if compact then file_id(prefixes[1], r.fp, r.id) else redis.call('HSET', KEYS[1], r.fp, r.id) end
    if redis.call('HGET', KEYS[5], r.fp) == r.id then redis.call('HDEL', KEYS[5], r.fp) end
  end
end
-- The id kept with 8-byte simhash fp in a live generation, or ''.
local function kept_id(fp)
  for _, prefix in ipairs(prefixes) do
    local id = id_filed(prefix, fp)
    if id then return id end
  end
  for k = 1, compact and 0 or #KEYS do
    if k == 1 or k > 5 then
      local id = redis.call('HGET', KEYS[k], fp)
      if id then return id end
    end
  end
  return ''
end
local undecided = {}
for n, r in ipairs(rows) do
  names[n] = r.dup ~= '' and kept_id(r.dup) or ''
  undecided[n] = names[n] == '' and r.dup ~= '' and redis.call('HEXISTS', KEYS[5], r.dup) == 1
end
local kept, dropped, by_sentences, again = 0, 0, 0, 0
local rotate = tonumber(ARGV[3])
local held = rotate > 0 and not compact and redis.call('HLEN', KEYS[3]) or 0  -- records in the drops hash
local n_records = 0  -- compact: records filed as on one server (lua/drops.lua), counted in <prefix>drops:n
if compact then n_records = select(2, drop_eras(prefixes[1], rotate)) end
local recent = {}
local t = tonumber(ARGV[1])
local when = char(math.floor(t / 16777216) % 256, math.floor(t / 65536) % 256, math.floor(t / 256) % 256, t % 256)
local RECENT_DROPS = 10000  -- as decide.lua
for n, r in ipairs(rows) do
  local code, id, fp, dist, rule = r.code, r.id, r.fp, r.dist, r.rule
  local name, replay = names[n], 0
  if code ~= 'W' and code ~= 'K' and redis.call('HGET', KEYS[5], fp) == id then redis.call('HDEL', KEYS[5], fp) end
  if code == 'W' then
    replay = 1
  elseif code == 'K' then
    if compact then
      local filed_key = id_hash(prefixes[1], r.key)
      file_key(filed_key, r.key, fp, redis.call('HGET', filed_key, sub(r.key, 3, 5)))
    else
      redis.call('HSET', KEYS[2], r.key, fp)
    end
    kept = kept + 1
  elseif name == id then
    replay = 1  -- the same id, kept meanwhile by another worker: not a drop
  elseif undecided[n] then
    replay = 3
  elseif name == '' then
    replay = 2
    again = again + 1
  else
    local record = '\3' .. fp .. char(dist, rule == 'sentences' and 1 or 0) .. when .. r.dup
    if compact then
      n_records = file_drop(prefixes[1], rotate, n_records, r.key, record)
    else
      held = held + redis.call('HSET', KEYS[3], r.key, record)
    end
    recent[#recent + 1] = id
    dropped = dropped + 1
    if rotate > 0 and held >= rotate then
      redis.call('UNLINK', KEYS[3] .. ':old')
      redis.call('RENAME', KEYS[3], KEYS[3] .. ':old')
      held = 0
    end
    if rule == 'sentences' then by_sentences = by_sentences + 1 end
  end
  local m = #name
  out[#out + 1] = char(replay, math.floor(m / 16777216), math.floor(m / 65536) % 256, math.floor(m / 256) % 256,
                       m % 256) .. name
end
if kept > 0 then
  redis.call('HINCRBY', KEYS[4], 'kept', kept)
  if compact then redis.call('INCRBY', KEYS[2], kept) end
end
if dropped > 0 then
  for i = 1, #recent, 1000 do
    redis.call('LPUSH', KEYS[3] .. ':recent', unpack(recent, i, math.min(i + 999, #recent)))
  end
  redis.call('LTRIM', KEYS[3] .. ':recent', 0, RECENT_DROPS - 1)
  redis.call('HINCRBY', KEYS[4], 'dropped', dropped)
  if compact then redis.call('SET', prefixes[1] .. 'drops:n', n_records) end
  redis.call('HINCRBY', KEYS[4], 'drops:' .. ARGV[2], dropped)
end
if by_sentences > 0 then redis.call('HINCRBY', KEYS[4], 'dropped:sentences', by_sentences) end
if again > 0 then redis.call('HINCRBY', KEYS[4], 'decided_again', again) end
return table.concat(out)
