-- Decide documents in order: keep each one, or name the kept document it duplicates.
-- One call is one atomic decision for every document it carries, so concurrent workers
-- never both keep two documents that either rule calls duplicates.
--
-- Rule 1, simhash: a kept document within max distance (0..3). A fingerprint is 8 bytes,
-- big-endian. Table t (0..3) is keyed by bytes 2t+1..2t+2 (its 16-bit block); a bucket is
-- a string of 6-byte entries: the fingerprint without that block. Two fingerprints within
-- distance 3 share a block, so they meet in one bucket.
-- Rule 2, sentences (only when rule 1 finds nothing, and when ARGV[5] > 0): a kept document
-- holding at least ARGV[5] of the document's sentence keys, within ARGV[6] bits and within
-- ARGV[7] length codes. A sentence key is 3 bytes: the first two name its bucket,
-- <prefix>S<hex>, a string of 6-byte entries: the key's third byte, the kept simhash's
-- short_ref (its first three bytes and a check byte, lua/common.lua), its length code (one
-- byte). The ref names the documents kept with it (lua/ids.lua, ids_near; one, nearly
-- always), each checked for distance. Buckets
-- <prefix>s<hex> of 10-byte entries (the whole simhash), written before, are read too where
-- the generation's <prefix>form is '1'. Entries of a forgotten document stay: they name no
-- kept id and are skipped.
-- Lua numbers are doubles and `bit` is 32-bit, so bytes are compared one at a time.
--
-- KEYS[1]  ids hash of the newest generation: 8-byte simhash -> doc id, for ids too long to
--          file in a small hash (lua/ids.lua files kept ids: <prefix>i<hex> small hashes,
--          URLs by their origin's code; <prefix>held counts them)
-- KEYS[2]  docids hash of earlier versions: 8-byte id key -> simhash, read where it exists.
--          A kept document is also filed under its 8-byte id key (BLAKE2b of the doc id, the
--          caller computes it) in one of 65,536 small hashes, <prefix>k<first two bytes as
--          hex>: field the next three bytes, value its simhash's first two (lua/ids.lua,
--          filed_simhash: the id is then found by its value among the kept ids filed there).
--          Where <prefix>form is '1', fields of the other six bytes -> the 8-byte simhash,
--          as the version before wrote them, are read too; such a hit counts only when the
--          id kept with that simhash is the same id. <prefix>docs (doc id -> simhash),
--          written by still earlier versions, is read too where it exists.
-- KEYS[3]  drops hash of earlier versions: doc id -> drop record, read where it exists;
--          records are filed by id key in small hashes (lua/drops.lua).
--          <drops hash>:recent lists the ids of its generation's last RECENT_DROPS drops,
--          newest first (the records name no id)
-- KEYS[4]  stats hash: kept, dropped, dropped:sentences, drops:<YYYY-MM-DD>
-- KEYS[5]  origins hash (lua/ids.lua), one for every generation
-- ARGV[1]  max distance (0..3)
-- ARGV[2]  time, seconds since 1970; ARGV[3] its day (UTC), YYYY-MM-DD
-- ARGV[4]  key prefix: table buckets are <prefix><table><block as 4 hex digits>, sentence
--          buckets <prefix>S<4 hex digits>, e.g. news:0ab12 and news:S0ab1. They are built
--          here rather than passed as KEYS to keep a batch's arguments small (a standalone
--          server or a single-slot cluster is assumed).
-- ARGV[5]  sentences to share (0: the sentence rule is off); ARGV[6] its max distance
--          (0..64); ARGV[7] its largest difference of length codes
-- ARGV[8]  drop records an era holds (lua/drops.lua): the era two before a new one is
--          deleted, so at most twice that many are kept; 0: no limit. (Earlier versions
--          renamed a full drops hash <prefix>drops:old: read too.)
-- ARGV[9]  how many older generations are live (retention, see redis_store.py), then their
--          key prefixes, newest first. A generation is a whole index under its own prefix
--          (buckets, and the ids, docids and drops hashes: <prefix>ids ...); a document is
--          decided against every live generation and kept into the newest, ARGV[4], whose
--          hashes KEYS[1..3] are. Without retention there is one generation and no older one.
-- ARGV[10+older..] per document: 8-byte simhash, doc id, its 8-byte id key, its sentence
--          keys (3 bytes each), its length code
-- Returns per document five values: status (0 kept, 1 duplicate, 2 kept before, 3 dropped
-- before), the id it duplicates or '', the distance or -1, for a replay (status 2 or 3) the
-- simhash stored at the first decision: 8 bytes (kept) or 16 hex digits (dropped), '' otherwise;
-- and the rule that dropped it ('simhash' or 'sentences'), '' when kept.

-- (lua/common.lua, lua/ids.lua and lua/drops.lua, prepended, give POP, distance,
-- sentence_entries, sentence_mset, kept_id, file_id, held_key, pack_drop, unpack_drop,
-- find_drop, file_drop and kept_named.)

local max_distance = tonumber(ARGV[1])
local now, day, prefix = ARGV[2], ARGV[3], ARGV[4]
local s_match, s_distance, s_slack = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local docs_key, drops_key, stats_key = KEYS[2], KEYS[3], KEYS[4]
local recent_key, RECENT_DROPS = KEYS[3] .. ':recent', 10000
ORIGINS = KEYS[5]

-- Live generations, newest first: prefixes, and their docids / drops hashes.
local rotate = tonumber(ARGV[8])
local n_old = tonumber(ARGV[9])
local gens = { prefix }
for g = 1, n_old do gens[g + 1] = ARGV[9 + g] end
local G = #gens
local function docid_key(g, key)  -- the small hash a kept document's id key is filed in
  return format('%sk%02x%02x', gens[g], byte(key, 1, 2))
end
local function hash_key(g, name)
  if g == 1 then
    if name == 'docids' then return docs_key else return drops_key end
  end
  return gens[g] .. name
end

-- Generations whose sentence table may hold 10-byte entries (s<hex> buckets, written before
-- compact entries): <prefix>form says, '1' or '2', set at a generation's first call from
-- whether anything was filed in it before (so before held_key).
local wide = {}
for g = 1, G do
  local key = gens[g] .. 'form'
  local form = redis.call('GET', key)
  if not form then
    local before = redis.call('EXISTS', gens[g] .. 'held', gens[g] .. 'ids', gens[g] .. 'docids', gens[g] .. 'docs')
    form = before > 0 and '1' or '2'
    redis.call('SET', key, form)
  end
  wide[g] = form == '1'
end
-- The sentence rule: the kept id sharing the most keys (then the nearest, then the first
-- found), or nil; and the keys and buckets read, the newest generation's compact buckets
-- first, for the keep that follows. A compact entry's short ref names its documents through
-- ids_near, each checked for distance.
local function sentence_match(fp, sig, len)
  local n = #sig / 3
  local keys, refs, needles = {}, {}, {}
  for g = 1, G do
    for _, form in ipairs(wide[g] and { 'S', 's' } or { 'S' }) do
      for i = 1, n do
        keys[#keys + 1] = format('%s%s%02x%02x', gens[g], form, byte(sig, 3 * i - 2, 3 * i - 1))
        refs[#keys], needles[#keys] = form == 'S' and 4 or 8, sub(sig, 3 * i, 3 * i)
      end
    end
  end
  local buckets = redis.call('MGET', unpack(keys))
  local shared, order, home = {}, {}, {}
  local at = 0
  for g = 1, G do
    for _ = 1, (wide[g] and 2 or 1) * n do
      at = at + 1
      local bucket = buckets[at] or ''
      buckets[at] = bucket
      sentence_entries(bucket, needles[at], len, s_slack, function(ref)
        local who = char(g) .. ref  -- a short ref may name documents of two generations
        local c = shared[who]
        if not c then order[#order + 1] = who; home[who] = g; c = 0 end
        shared[who] = c + 1
      end, false, refs[at])
    end
  end
  local best_n, best_d, best_id, best_fp = 0, 0, nil, nil
  for _, who in ipairs(order) do
    local c = shared[who]
    if c >= s_match then
      local g, ref = home[who], sub(who, 2)
      local found = #ref == 8 and { { ref, kept_id(gens[g], ref) } } or ids_near(gens[g], ref)
      for _, kept in ipairs(found) do
        local d = distance(fp, kept[1])
        if kept[2] and d <= s_distance and (not best_id or c > best_n or (c == best_n and d < best_d)) then
          best_n, best_d, best_id, best_fp = c, d, kept[2], kept[1]
        end
      end
    end
  end
  return best_id, best_d, best_fp, keys, buckets
end

local held = held_key(prefix)  -- before anything is filed
local out = {}
local n_kept, n_dropped, n_by_sentences = 0, 0, 0
local first = 10 + n_old
local n_docs = (#ARGV - first + 1) / 5
-- Generations with an id -> simhash docs hash; with one docids hash; with drops hashes;
-- the eras of their drop records (and, for the newest, how many were written).
local legacy, old_docids, old_drops, drops_hash, eras = {}, {}, {}, {}, {}
local n_records
for g = 1, G do
  legacy[g] = redis.call('EXISTS', gens[g] .. 'docs') == 1
  old_docids[g] = redis.call('EXISTS', hash_key(g, 'docids')) == 1
  old_drops[g] = redis.call('EXISTS', gens[g] .. 'drops:old') == 1
  drops_hash[g] = redis.call('EXISTS', hash_key(g, 'drops')) == 1
  local live, n = drop_eras(gens[g], rotate)
  eras[g] = live
  if g == 1 then n_records = n end
end
for j = 0, n_docs - 1 do
  local at = first + 5 * j
  local fp, id, id_key, sig, len = ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3], tonumber(ARGV[at + 4])
  local filed_refs  -- what the newest generation filed under id_key (file_key adds to it)
  local status, dup, dist, stored, rule = 0, '', -1, '', ''

  local known, dropped, named, refs, old
  for g = 1, G do
    known, refs = filed_simhash(gens[g], docid_key(g, id_key), id_key, id)
    if g == 1 then filed_refs = refs end
    if not known then  -- as earlier versions filed it
      old = wide[g] and redis.call('HGET', docid_key(g, id_key), sub(id_key, 3))
      if not old and old_docids[g] then old = redis.call('HGET', hash_key(g, 'docids'), id_key) end
      if old and kept_id(gens[g], old) == id then known = old end
    end
    if not known and legacy[g] then known = redis.call('HGET', gens[g] .. 'docs', id) end
    if known then break end
    local where
    dropped, where = find_drop(gens[g], eras[g], id_key)
    if dropped then
      named = kept_named(gens, sub(dropped, 16, 23))
      if named then break end
      redis.call('HDEL', where, sub(id_key, 2))  -- stale: its kept document went
      dropped = nil
    end
    if drops_hash[g] then dropped = redis.call('HGET', hash_key(g, 'drops'), id) end
    if not dropped and old_drops[g] then dropped = redis.call('HGET', gens[g] .. 'drops:old', id) end
    if dropped then break end
  end
  if known then
    status, stored = 2, known
  elseif dropped then
    local rec = unpack_drop(dropped)
    status, dup, dist, stored, rule = 3, named or rec.duplicate_of, rec.distance, rec.simhash, rec.rule
  else
    local best, best_entry, best_table, best_gen = max_distance + 1, nil, nil, nil
    local f = { byte(fp, 1, 8) }
    local keys = {}
    for g = 1, G do
      for t = 0, 3 do
        keys[4 * (g - 1) + t + 1] = format('%s%d%02x%02x', gens[g], t, f[2 * t + 1], f[2 * t + 2])
      end
    end
    -- One MGET and, to keep, one MSET: redis.call is the expensive part of this script.
    local buckets = redis.call('MGET', unpack(keys))
    for g = 1, G do
      for t = 0, 3 do
        -- The query without block t, as the six bytes stored in table t's bucket.
        local q1, q2, q3, q4, q5, q6
        if t == 0 then q1, q2, q3, q4, q5, q6 = f[3], f[4], f[5], f[6], f[7], f[8]
        elseif t == 1 then q1, q2, q3, q4, q5, q6 = f[1], f[2], f[5], f[6], f[7], f[8]
        elseif t == 2 then q1, q2, q3, q4, q5, q6 = f[1], f[2], f[3], f[4], f[7], f[8]
        else q1, q2, q3, q4, q5, q6 = f[1], f[2], f[3], f[4], f[5], f[6] end
        local at = 4 * (g - 1) + t + 1
        local bucket = buckets[at] or ''
        buckets[at] = bucket
        for p = 1, #bucket, 6 do
          -- Most entries differ in far more than 3 bits: two bytes usually tell.
          local a1, a2 = byte(bucket, p, p + 1)
          local d = POP[bxor(a1, q1)] + POP[bxor(a2, q2)]
          if d < best then
            local a3, a4, a5, a6 = byte(bucket, p + 2, p + 5)
            d = d + POP[bxor(a3, q3)] + POP[bxor(a4, q4)] + POP[bxor(a5, q5)] + POP[bxor(a6, q6)]
            if d < best then
              best, best_entry, best_table, best_gen = d, sub(bucket, p, p + 5), t, g
              if d == 0 then break end
            end
          end
        end
        if best == 0 then break end
      end
      if best == 0 then break end
    end
    local s_keys, s_buckets, kept_fp
    if best_entry then
      local t = best_table
      kept_fp = sub(best_entry, 1, 2 * t) .. sub(fp, 2 * t + 1, 2 * t + 2) .. sub(best_entry, 2 * t + 1)
      status, dup, dist, rule = 1, kept_id(gens[best_gen], kept_fp) or '', best, 'simhash'
    elseif s_match > 0 and #sig >= 3 * s_match then
      local s_id, s_dist
      s_id, s_dist, kept_fp, s_keys, s_buckets = sentence_match(fp, sig, len)
      if s_id then
        status, dup, dist, rule = 1, s_id, s_dist, 'sentences'
        n_by_sentences = n_by_sentences + 1
      end
    end
    if status == 1 then
      n_records = file_drop(prefix, rotate, n_records, id_key, pack_drop(fp, dist, rule, now, kept_fp))
      eras[1] = drop_eras_of(n_records, rotate)
      redis.call('LPUSH', recent_key, id)
      n_dropped = n_dropped + 1
    else
      -- Whole buckets are written again, not APPENDed to: APPEND over-allocates. Only the
      -- newest generation is written (its buckets come first in keys and buckets).
      local mset = {
        keys[1], buckets[1] .. sub(fp, 3),
        keys[2], buckets[2] .. sub(fp, 1, 2) .. sub(fp, 5),
        keys[3], buckets[3] .. sub(fp, 1, 4) .. sub(fp, 7),
        keys[4], buckets[4] .. sub(fp, 1, 6) }
      if s_keys then sentence_mset(mset, s_keys, s_buckets, sig, short_ref(fp), len) end
      redis.call('MSET', unpack(mset))
      file_id(prefix, fp, id)
      file_key(docid_key(1, id_key), id_key, fp, filed_refs)
      n_kept = n_kept + 1
    end
  end
  out[#out + 1] = status
  out[#out + 1] = dup
  out[#out + 1] = dist
  out[#out + 1] = stored
  out[#out + 1] = rule
end
if n_kept > 0 then
  redis.call('HINCRBY', stats_key, 'kept', n_kept)
  redis.call('INCRBY', held, n_kept)
end
if n_dropped > 0 then
  redis.call('SET', prefix .. 'drops:n', n_records)
  redis.call('LTRIM', recent_key, 0, RECENT_DROPS - 1)
  redis.call('HINCRBY', stats_key, 'dropped', n_dropped)
  redis.call('HINCRBY', stats_key, 'drops:' .. day, n_dropped)
end
if n_by_sentences > 0 then redis.call('HINCRBY', stats_key, 'dropped:sentences', n_by_sentences) end
return out
