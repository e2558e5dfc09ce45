-- Decide documents in order against one generation of the index (redis_store.py): keep
-- each one, or name the kept document it duplicates. One call is one atomic decision for
-- every document it carries, so concurrent workers never both keep two documents that
-- either rule calls duplicates. Every key it touches is under the generation's prefix, so
-- on a Redis Cluster it runs on one slot.
--
-- Rule 1, simhash: a kept document within max distance. A fingerprint is 8 bytes, big-endian.
-- The layout (ARGV[11], layout.py, lua/common.lua read_layout) cuts it into blocks; each table
-- files it permuted, its key blocks first, in the bucket <prefix><t>:<its first bits in hex>,
-- a string of entries (the permuted fingerprint after those bits' whole bytes). Two
-- fingerprints within max distance agree on some table's key blocks, so they meet in a bucket.
-- Rule 2, sentences (only when rule 1 finds nothing, and when ARGV[5] > 0): a kept document
-- holding at least ARGV[5] of the document's sentence keys (all but one of a short
-- document's three or four, all of its one or two: SentenceRule.needed), within ARGV[6] bits and within
-- ARGV[7] length codes. A sentence key is 3 bytes: the first two name its bucket,
-- <prefix>S<hex>, a string of 6-byte entries (lua/common.lua); the entry's short ref names
-- the documents kept with it (lua/ids.lua, ids_near), each checked for distance. Entries
-- of a forgotten document stay: they name no kept id and are skipped.
--
-- Older generations are sealed and read in calls of their own, without writing (ARGV[9] 0;
-- { -2 } when the generation was archived: its archive is read instead, archive.py):
-- their best match comes in as a document's prior, and only the newest generation is
-- written. A writing call on a sealed generation (<prefix>sealed, set when a newer one
-- began) refuses the whole batch: it returns { -1 }, and the caller decides it again on
-- the newest generation.
--
-- KEYS[1]  the generation's stats hash, <prefix>stats: kept, dropped, dropped:sentences,
--          drops:<YYYY-MM-DD>
-- ARGV[1]  max distance; ARGV[2] time, seconds since 1970; ARGV[3] its day (in TIMEZONE)
-- ARGV[4]  the generation's key prefix. Keys are built here rather than passed as KEYS to
--          keep a batch's arguments small: <prefix>ids, <prefix>held (kept ids, counted),
--          <prefix>origins (lua/ids.lua), <prefix>drops:recent (the ids of the last
--          RECENT_DROPS drops, newest first: the records name no id), lua/drops.lua's hashes
-- ARGV[5]  sentences to share (0: the sentence rule is off); ARGV[6] its max distance
--          (0..64); ARGV[7] its largest difference of length codes
-- ARGV[8]  drop records an era holds (lua/drops.lua); 0: no limit
-- ARGV[9]  1: decide and write; 0: only read (an older generation)
-- ARGV[10] 1: the earliest published copy is the story's original (DEDUP_ORIGINAL
--          "earliest"); 0: the first decided is ("first")
-- ARGV[11] the layout: a line a table (lua/common.lua read_layout)
-- ARGV[12..] per document, four values: its head (the 8-byte simhash, its 8-byte id key
--          (the first bytes of its SHA-1: lua/ids.lua key_of), its length code (a byte), the
--          simhash permuted for each table (8 bytes a table, layout.py), then when it was
--          published: 8 bytes, the earliest and the latest second it may have been,
--          big-endian, zeros when unknown; the key of the outlet whose page it is and that of
--          the outlet its 来源 line names when another (4 bytes each, base.py outlet_key; 0:
--          none)); its id; its sentence keys (3 bytes each); its prior:
--          '' or a flags byte (1: decide afresh, its drop record here is stale), then
--          optionally the best match older generations found: rule byte (1 simhash, 2
--          sentences), distance, shared sentences, the kept simhash (8 bytes), its id.
-- Returns per document two values: its place in the call (2 bytes), status, distance + 1
-- (0: none), rule (0 none, 1 simhash, 2 sentences) and shared sentences (a byte each), then
-- a simhash (8 bytes) or record; and the id it duplicates (status 5: the id it superseded)
-- or ''. A call that only reads leaves out status 0.
-- Status 0: kept (read: nothing found); 1: a duplicate, its drop recorded (read: the best
-- match here, its simhash in the fourth value); 2: kept before, with that simhash; 3:
-- dropped before, with the simhash it was dropped with; 4: dropped before, the kept document
-- its record names is not kept in this generation: the fourth value is the raw record (the
-- caller looks in the others, and decides afresh when none holds it); 5: kept as the story's
-- original in place of the matching document kept before, which was published more than
-- SAME_TIME seconds after it, or which names this one's outlet as its source and was not
-- published more than SAME_TIME seconds before it (ARGV[10] 1; base.py original_of): that one leaves the tables and ids, gets a drop
-- record naming this one, and <prefix>moved links its simhash to this one's, so that the
-- drop records naming it name this one (lua/ids.lua current_id). Only a match of this
-- generation is superseded: a copy kept in a sealed one stays the original.

-- (lua/common.lua, lua/ids.lua and lua/drops.lua are prepended.)

local max_distance = tonumber(ARGV[1])
local now, day, prefix = ARGV[2], ARGV[3], ARGV[4]
local s_match, s_distance, s_slack = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local rotate, write, earliest = tonumber(ARGV[8]), ARGV[9] == '1', ARGV[10] == '1'
local TABLES = read_layout(ARGV[11])
local SAME_TIME = 60  -- base.py: copies published closer than this are as early as each other
local stats_key, recent_key, RECENT_DROPS = KEYS[1], prefix .. 'drops:recent', 10000
ORIGINS = prefix .. 'origins'
if write and redis.call('EXISTS', prefix .. 'sealed') == 1 then return { -1 } end
-- An archived generation (archive.py) is read from its archive, not here.
if not write and redis.call('EXISTS', prefix .. 'A:meta') == 1 then return { -2 } end

-- The sentence rule: the kept id sharing the most keys (then the nearest, then the smallest
-- fingerprint), its count, distance and simhash, or nil; and the buckets read, for the keep.
local function sentence_buckets(sig)
  local keys = {}
  for i = 1, #sig / 3 do keys[i] = format('%sS%02x%02x', prefix, byte(sig, 3 * i - 2, 3 * i - 1)) end
  local buckets = redis.call('MGET', unpack(keys))
  for i = 1, #keys do buckets[i] = buckets[i] or '' end
  return keys, buckets
end

local function sentence_match(fp, sig, len)
  local shared, order = {}, {}
  local keys, buckets = sentence_buckets(sig)
  for i = 1, #keys do
    sentence_entries(buckets[i], sub(sig, 3 * i, 3 * i), len, s_slack, function(ref)
      if not shared[ref] then order[#order + 1] = ref end
      shared[ref] = (shared[ref] or 0) + 1
    end)
  end
  local needed = math.min(s_match, #keys > 2 and #keys - 1 or #keys)
  local best_n, best_d, best_id, best_fp = 0, 0, nil, nil
  for _, ref in ipairs(order) do
    local c = shared[ref]
    if c >= needed then
      for _, kept in ipairs(ids_near(prefix, ref)) do
        local d = distance(fp, kept[1])
        if d <= s_distance and (not best_id or c > best_n or (c == best_n and (d < best_d
            or (d == best_d and below(kept[1], best_fp))))) then
          best_n, best_d, best_id, best_fp = c, d, kept[2], kept[1]
        end
      end
    end
  end
  return best_id, best_n, best_d, best_fp, keys, buckets
end

-- The nearest kept document within max distance (on a tie, the smallest fingerprint, so that
-- the order entries were filed in never matters): its distance, simhash and id, or nil; and
-- the buckets read, with their names, for the keep. pfps: the query permuted for each table.
local function simhash_match(pfps)
  local keys = {}
  for t, tbl in ipairs(TABLES) do keys[t] = table_key(prefix, t, tbl, sub(pfps, 8 * t - 7, 8 * t)) end
  -- One MGET and, to keep, one MSET: redis.call is the expensive part of this script.
  local buckets = redis.call('MGET', unpack(keys))
  local best, best_fp = max_distance + 1, nil
  for t, tbl in ipairs(TABLES) do
    local at, width = 8 * t - 8, tbl.entry
    local bucket = buckets[t] or ''
    buckets[t] = bucket
    if #bucket > 0 then
      local q1, q2, q3, q4, q5, q6, q7, q8 = byte(pfps, at + 9 - width, at + 8)
      for p = 1, #bucket, width do
        -- Most entries differ in far more bits than max distance: two bytes usually tell.
        local a1, a2 = byte(bucket, p, p + 1)
        local d = POP[bxor(a1, q1)] + POP[bxor(a2, q2)]
        if d <= best then
          local a3, a4, a5, a6, a7, a8 = byte(bucket, p + 2, p + width - 1)
          d = d + POP[bxor(a3, q3)] + POP[bxor(a4, q4)] + POP[bxor(a5, q5)] + POP[bxor(a6, q6)]
          if width > 6 then d = d + POP[bxor(a7, q7)] end
          if width > 7 then d = d + POP[bxor(a8, q8)] end
          if d < best or (d == best and best_fp) then
            local head = sub(pfps, at + 1, at + 8 - width)
            local kept = unpermute(head .. sub(bucket, p, p + width - 1), tbl)
            if d < best or below(kept, best_fp) then best, best_fp = d, kept end
          end
        end
      end
    end
    if best == 0 then break end
  end
  if not best_fp then return nil, nil, nil, keys, buckets end
  return best, best_fp, kept_id(prefix, best_fp) or '', keys, buckets
end

local out = {}
local n_kept, n_dropped, n_by_sentences = 0, 0, 0
local eras, n_records = drop_eras(prefix, rotate)
local NONE, NO_CREDITS = string.rep('\0', 8), string.rep('\0', 4)
-- Whether the document published in the 8 bytes ``published`` (NONE: unknown), of the outlet
-- ``outlet``, is the story's original in place of the kept one with simhash kept_fp (base.py
-- original_of).
local function original_of(published, outlet, kept_fp)
  if published == NONE and outlet == 0 then return false end
  local kept_at, kept_credits = kept_published(prefix, kept_fp)
  local known = published ~= NONE and kept_at > 0
  if known and word_at(published, 5) + SAME_TIME < kept_at then return true end
  local later = known and word_at(published, 1) > kept_at + SAME_TIME
  return outlet ~= 0 and outlet == kept_credits and not later
end

local n_superseded = 0
local n_tables = #TABLES
for at = 12, #ARGV, 4 do
  local place = (at - 12) / 4
  local head, id, sig, prior = ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3]
  local fp, id_key, len = sub(head, 1, 8), sub(head, 9, 16), byte(head, 17)
  local pfps, published = sub(head, 18, 17 + 8 * n_tables), sub(head, 18 + 8 * n_tables, 25 + 8 * n_tables)
  local outlet, credits = word_at(head, 26 + 8 * n_tables), sub(head, 30 + 8 * n_tables, 33 + 8 * n_tables)
  local afresh = byte(prior, 1) == 1
  local status, dup, dist, stored, rule, count = 0, '', -1, '', '', 0
  local superseded_by  -- status 5: the rule that matched the document this one supersedes
  local known, refs = filed_simhash(prefix, id_key, id)
  local dropped, where
  if not known then dropped, where = find_drop(prefix, eras, id_key) end
  if dropped and afresh then  -- stale: its record goes, and it is decided again
    if write then redis.call('HDEL', where, sub(id_key, 2)) end
    dropped = nil
  end
  if known then
    status, stored = 2, known
  elseif dropped then
    local rec = unpack_drop(dropped)
    local named = current_id(prefix, rec.kept)
    if named then
      status, dup, dist, stored, rule = 3, named, rec.distance, rec.simhash, rec.rule
    else
      status, stored = 4, dropped
    end
  else
    -- The prior: older generations' best match.
    local p_rule, p_dist, p_count, p_fp, p_id
    if #prior > 1 then
      p_rule, p_dist, p_count = byte(prior, 2, 4)
      p_fp, p_id = sub(prior, 5, 12), sub(prior, 13)
    end
    local d, kept_fp, kept, keys, buckets = simhash_match(pfps)
    local s_keys, s_buckets
    local here = true  -- the match is one of this generation's (not the prior's)
    if d then
      rule = 'simhash'
      if p_rule == 1 and p_dist < d then d, kept_fp, kept, here = p_dist, p_fp, p_id, false end
    elseif p_rule == 1 then
      rule, d, kept_fp, kept, here = 'simhash', p_dist, p_fp, p_id, false
    elseif s_match > 0 and #sig > 0 then
      local n
      kept, n, d, kept_fp, s_keys, s_buckets = sentence_match(fp, sig, len)
      if p_rule == 2 and (not kept or p_count > n or (p_count == n and p_dist < d)) then
        kept, n, d, kept_fp, here = p_id, p_count, p_dist, p_fp, false
      end
      if kept then rule, count = 'sentences', n end
    end
    local supersede = write and earliest and rule ~= '' and here and kept ~= ''
      and original_of(published, outlet, kept_fp)
    if supersede then
      -- This one is the story's original: the one kept before becomes its copy.
      local old_key = key_of(kept)
      unfile_tables(prefix, TABLES, kept_fp, keys, buckets)
      unfile_key(prefix, old_key, kept_fp)
      unfile_id(prefix, kept_fp)
      redis.call('HDEL', published_hash(prefix, kept_fp), sub(kept_fp, 3))
      redis.call('HSET', prefix .. 'moved', kept_fp, fp)
      n_records = file_drop(prefix, rotate, n_records, old_key, pack_drop(kept_fp, d, rule, now, fp))
      eras = drop_eras_of(n_records, rotate)
      redis.call('LPUSH', recent_key, kept)
      n_dropped, n_kept, n_superseded = n_dropped + 1, n_kept - 1, n_superseded + 1
      if rule == 'sentences' then n_by_sentences = n_by_sentences + 1 end
      status, dup, dist, stored = 5, kept, d, fp
      if not s_keys and s_match > 0 and #sig > 0 then s_keys, s_buckets = sentence_buckets(sig) end
      superseded_by, rule = rule, ''  -- kept: the code below files it
    end
    if rule ~= '' then
      status, dup, dist, stored = 1, kept, d, kept_fp
      if write then
        n_records = file_drop(prefix, rotate, n_records, id_key, pack_drop(fp, dist, rule, now, kept_fp))
        eras = drop_eras_of(n_records, rotate)
        redis.call('LPUSH', recent_key, id)
        n_dropped = n_dropped + 1
        if rule == 'sentences' then n_by_sentences = n_by_sentences + 1 end
      end
    elseif write then
      -- Whole buckets are written again, not APPENDed to: APPEND over-allocates.
      local mset = {}
      for t, tbl in ipairs(TABLES) do
        mset[2 * t - 1] = keys[t]
        mset[2 * t] = buckets[t] .. table_entry(tbl, sub(pfps, 8 * t - 7, 8 * t))
      end
      if s_keys then sentence_mset(mset, s_keys, s_buckets, sig, short_ref(fp), len) end
      redis.call('MSET', unpack(mset))
      file_id(prefix, fp, id)
      file_key(prefix, id_key, fp, refs)
      if published ~= NONE or credits ~= NO_CREDITS then
        local value = sub(published, 1, 4) .. (credits ~= NO_CREDITS and credits or '')
        redis.call('HSET', published_hash(prefix, fp), sub(fp, 3), value)
      end
      n_kept = n_kept + 1
    end
  end
  if status == 5 then rule = superseded_by end
  if write or status ~= 0 then
    -- two values a document: what was decided, packed, and the id it names
    local rule_byte = rule == 'simhash' and 1 or rule == 'sentences' and 2 or 0
    out[#out + 1] = char(math.floor(place / 256), place % 256, status, dist + 1, rule_byte, count) .. stored
    out[#out + 1] = dup
  end
end
if n_kept ~= 0 then
  redis.call('HINCRBY', stats_key, 'kept', n_kept)
  redis.call('INCRBY', prefix .. 'held', n_kept)
end
if n_superseded > 0 then redis.call('HINCRBY', stats_key, 'superseded', n_superseded) end
if n_dropped > 0 then
  redis.call('SET', prefix .. 'drops:n', n_records)
  redis.call('LTRIM', recent_key, 0, RECENT_DROPS - 1)
  redis.call('HINCRBY', stats_key, 'dropped', n_dropped)
  redis.call('HINCRBY', stats_key, 'drops:' .. day, n_dropped)
end
if n_by_sentences > 0 then redis.call('HINCRBY', stats_key, 'dropped:sentences', n_by_sentences) end
return out
