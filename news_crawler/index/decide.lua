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
-- KEYS[5..] per document, the bucket keys of tables 0, 1, 2, 3
-- ARGV[1]  max distance (0..3)
-- ARGV[2]  time, ISO 8601; ARGV[3] its day, YYYY-MM-DD
-- ARGV[4..] per document: 8-byte simhash, doc id
-- Returns per document three values: status (0 kept, 1 duplicate, 2 kept before,
-- 3 dropped before), the id it duplicates or '', the distance or -1.

local bxor = bit.bxor
local byte = string.byte
local sub = string.sub

local POP = {}
for v = 0, 255 do
  local n, x = 0, v
  while x > 0 do
    n = n + x % 2
    x = math.floor(x / 2)
  end
  POP[v] = n
end

local max_distance = tonumber(ARGV[1])
local now, day = ARGV[2], ARGV[3]
local ids_key, docs_key, drops_key, stats_key = KEYS[1], KEYS[2], KEYS[3], KEYS[4]

local out = {}
local n_docs = (#ARGV - 3) / 2
for j = 0, n_docs - 1 do
  local fp, id = ARGV[4 + 2 * j], ARGV[5 + 2 * j]
  local status, dup, dist = 0, '', -1

  local known = redis.call('HGET', docs_key, id)
  local dropped = (not known) and redis.call('HGET', drops_key, id)
  if known then
    status = 2
  elseif dropped then
    local rec = cjson.decode(dropped)
    status, dup, dist = 3, rec.duplicate_of, rec.distance
  else
    local best, best_entry, best_table = max_distance + 1, nil, nil
    local rems, buckets = {}, {}
    for t = 0, 3 do
      local rem = sub(fp, 1, 2 * t) .. sub(fp, 2 * t + 3)
      local q1, q2, q3, q4, q5, q6 = byte(rem, 1, 6)
      local key = KEYS[5 + 4 * j + t]
      local bucket = redis.call('GET', key) or ''
      rems[t], buckets[t] = rem, bucket
      for p = 1, #bucket, 6 do
        local a1, a2, a3, a4, a5, a6 = byte(bucket, p, p + 5)
        local d = POP[bxor(a1, q1)] + POP[bxor(a2, q2)] + POP[bxor(a3, q3)]
                + POP[bxor(a4, q4)] + POP[bxor(a5, q5)] + POP[bxor(a6, q6)]
        if d < best then
          best, best_entry, best_table = d, sub(bucket, p, p + 5), t
          if d == 0 then break end
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
      redis.call('HINCRBY', stats_key, 'dropped', 1)
      redis.call('HINCRBY', stats_key, 'drops:' .. day, 1)
    else
      for t = 0, 3 do
        -- SET of the whole bucket, not APPEND: APPEND over-allocates its string.
        redis.call('SET', KEYS[5 + 4 * j + t], buckets[t] .. rems[t])
      end
      redis.call('HSET', ids_key, fp, id)
      redis.call('HSET', docs_key, id, fp)
      redis.call('HINCRBY', stats_key, 'kept', 1)
    end
  end
  out[#out + 1] = status
  out[#out + 1] = dup
  out[#out + 1] = dist
end
return out
