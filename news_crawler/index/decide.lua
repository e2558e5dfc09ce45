-- Decide documents in order: keep each one, or name the kept document within max distance.
-- One call is one atomic decision for every document it carries, so concurrent workers
-- never both keep two near-identical documents.
--
-- A fingerprint is 8 bytes, big-endian. Table t (0..3) is keyed by bytes 2t+1..2t+2 (its
-- 16-bit block); a bucket is a string of 6-byte entries: the fingerprint without that
-- block. Two fingerprints within distance 3 share a block, so they meet in one bucket.
-- Lua numbers are doubles and `bit` is 32-bit, so bytes are compared one at a time.
--
-- KEYS[1]  ids hash:   8-byte simhash -> doc id (kept documents)
-- KEYS[2]  docs hash:  doc id -> 8-byte simhash (kept documents)
-- KEYS[3]  drops hash: doc id -> JSON {simhash (16 hex digits), duplicate_of, distance, time}
-- KEYS[4]  stats hash: kept, dropped, drops:<YYYY-MM-DD>
-- ARGV[1]  max distance (0..3)
-- ARGV[2]  time, ISO 8601; ARGV[3] its day, YYYY-MM-DD
-- ARGV[4]  bucket key prefix: bucket keys are <prefix><table><block as 4 hex digits>, e.g.
--          news:0ab12. They are built here rather than passed as KEYS to keep a batch's
--          arguments small (a standalone server or a single-slot cluster is assumed).
-- ARGV[5..] per document: 8-byte simhash, doc id
-- Returns per document four values: status (0 kept, 1 duplicate, 2 kept before,
-- 3 dropped before), the id it duplicates or '', the distance or -1, and for a replay
-- (status 2 or 3) the simhash stored at the first decision: 8 bytes (kept) or 16 hex
-- digits (dropped); '' otherwise.

local bxor = bit.bxor
local byte = string.byte
local sub = string.sub

-- Bits set in each byte value, POP[v] for v = 0..255 (a literal: built once per call, cheaply).
local POP = { [0] =
  0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5,
  1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5, 2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6,
  1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5, 2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6,
  2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6, 3, 4, 4, 5, 4, 5, 5, 6, 4, 5, 5, 6, 5, 6, 6, 7,
  1, 2, 2, 3, 2, 3, 3, 4, 2, 3, 3, 4, 3, 4, 4, 5, 2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6,
  2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6, 3, 4, 4, 5, 4, 5, 5, 6, 4, 5, 5, 6, 5, 6, 6, 7,
  2, 3, 3, 4, 3, 4, 4, 5, 3, 4, 4, 5, 4, 5, 5, 6, 3, 4, 4, 5, 4, 5, 5, 6, 4, 5, 5, 6, 5, 6, 6, 7,
  3, 4, 4, 5, 4, 5, 5, 6, 4, 5, 5, 6, 5, 6, 6, 7, 4, 5, 5, 6, 5, 6, 6, 7, 5, 6, 6, 7, 6, 7, 7, 8,
}

local max_distance = tonumber(ARGV[1])
local now, day, prefix = ARGV[2], ARGV[3], ARGV[4]
local format = string.format
local ids_key, docs_key, drops_key, stats_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4]

local out = {}
local n_kept, n_dropped = 0, 0
local n_docs = (#ARGV - 4) / 2
for j = 0, n_docs - 1 do
  local fp, id = ARGV[5 + 2 * j], ARGV[6 + 2 * j]
  local status, dup, dist, stored = 0, '', -1, ''

  local known = redis.call('HGET', docs_key, id)
  local dropped = (not known) and redis.call('HGET', drops_key, id)
  if known then
    status, stored = 2, known
  elseif dropped then
    local rec = cjson.decode(dropped)
    status, dup, dist, stored = 3, rec.duplicate_of, rec.distance, rec.simhash
  else
    local best, best_entry, best_table = max_distance + 1, nil, nil
    local f = { byte(fp, 1, 8) }
    local keys = {}
    for t = 0, 3 do
      keys[t + 1] = format('%s%d%02x%02x', prefix, t, f[2 * t + 1], f[2 * t + 2])
    end
    -- One MGET and, to keep, one MSET: redis.call is the expensive part of this script.
    local buckets = redis.call('MGET', keys[1], keys[2], keys[3], keys[4])
    for t = 0, 3 do
      -- The query without block t, as the six bytes stored in table t's bucket.
      local q1, q2, q3, q4, q5, q6
      if t == 0 then q1, q2, q3, q4, q5, q6 = f[3], f[4], f[5], f[6], f[7], f[8]
      elseif t == 1 then q1, q2, q3, q4, q5, q6 = f[1], f[2], f[5], f[6], f[7], f[8]
      elseif t == 2 then q1, q2, q3, q4, q5, q6 = f[1], f[2], f[3], f[4], f[7], f[8]
      else q1, q2, q3, q4, q5, q6 = f[1], f[2], f[3], f[4], f[5], f[6] end
      local bucket = buckets[t + 1] or ''
      buckets[t + 1] = bucket
      for p = 1, #bucket, 6 do
        -- Most entries differ in far more than 3 bits: two bytes usually tell.
        local a1, a2 = byte(bucket, p, p + 1)
        local d = POP[bxor(a1, q1)] + POP[bxor(a2, q2)]
        if d < best then
          local a3, a4, a5, a6 = byte(bucket, p + 2, p + 5)
          d = d + POP[bxor(a3, q3)] + POP[bxor(a4, q4)] + POP[bxor(a5, q5)] + POP[bxor(a6, q6)]
          if d < best then
            best, best_entry, best_table = d, sub(bucket, p, p + 5), t
            if d == 0 then break end
          end
        end
      end
      if best == 0 then break end
    end
    if best_entry then
      local t = best_table
      local other = sub(best_entry, 1, 2 * t) .. sub(fp, 2 * t + 1, 2 * t + 2) .. sub(best_entry, 2 * t + 1)
      status, dup, dist = 1, redis.call('HGET', ids_key, other) or '', best
      redis.call('HSET', drops_key, id, cjson.encode({
        simhash = string.format('%02x%02x%02x%02x%02x%02x%02x%02x', byte(fp, 1, 8)), duplicate_of = dup, distance = dist, time = now }))
      n_dropped = n_dropped + 1
    else
      -- The whole bucket is written again, not APPENDed to: APPEND over-allocates.
      redis.call('MSET',
        keys[1], buckets[1] .. sub(fp, 3),
        keys[2], buckets[2] .. sub(fp, 1, 2) .. sub(fp, 5),
        keys[3], buckets[3] .. sub(fp, 1, 4) .. sub(fp, 7),
        keys[4], buckets[4] .. sub(fp, 1, 6))
      redis.call('HSET', ids_key, fp, id)
      redis.call('HSET', docs_key, id, fp)
      n_kept = n_kept + 1
    end
  end
  out[#out + 1] = status
  out[#out + 1] = dup
  out[#out + 1] = dist
  out[#out + 1] = stored
end
if n_kept > 0 then redis.call('HINCRBY', stats_key, 'kept', n_kept) end
if n_dropped > 0 then
  redis.call('HINCRBY', stats_key, 'dropped', n_dropped)
  redis.call('HINCRBY', stats_key, 'drops:' .. day, n_dropped)
end
return out
