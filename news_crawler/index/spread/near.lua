-- Spread index, phase R, one block table (its own hash slot): the entries a batch's
-- documents are near, and the table's version.
--
-- KEYS[1]  the table's version key (raised by every write to the table; the buckets, of the
--          same slot, are built here)
-- ARGV[1]  bucket key prefix of the table; ARGV[2] the table (0..3); ARGV[3] max distance
-- ARGV[4]  the documents' 8-byte simhashes, one string
-- Returns {version, near}: per bucket the documents fall in, in the order they first fall
-- in it, a 2-byte count and the bucket's 6-byte entries (in the bucket's order) within max
-- distance of one of its documents.
-- (common.lua is prepended.)

local prefix, t, k, fps = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local HEX = {}
for i = 0, 255 do HEX[i] = format('%02x', i) end
-- Per bucket, in the order the documents first fall in it: its key, and the bytes of its
-- documents' entries (six a document, flat).
local order, queries, names = {}, {}, {}
for p = 1, #fps, 8 do
  local block = sub(fps, p + 2 * t, p + 2 * t + 1)
  local q = queries[block]
  if not q then
    q = {}
    queries[block] = q
    order[#order + 1] = block
    local a, b = byte(block, 1, 2)
    names[#names + 1] = prefix .. HEX[a] .. HEX[b]
  end
  local n = #q
  for i = 0, 2 * t - 1 do q[n + 1 + i] = byte(fps, p + i) end
  for i = 2 * t + 2, 7 do q[n + i - 1] = byte(fps, p + i) end
end
local buckets = #names > 0 and redis.call('MGET', unpack(names)) or {}
local out = {}
for i, block in ipairs(order) do
  local bucket, q, near = buckets[i] or '', queries[block], nil
  for p = 1, #bucket, 6 do
    local a1, a2, a3, a4, a5, a6 = byte(bucket, p, p + 5)
    for o = 0, #q - 1, 6 do
      if POP[bxor(a1, q[o + 1])] + POP[bxor(a2, q[o + 2])] + POP[bxor(a3, q[o + 3])] + POP[bxor(a4, q[o + 4])]
          + POP[bxor(a5, q[o + 5])] + POP[bxor(a6, q[o + 6])] <= k then
        near = near or {}
        near[#near + 1] = sub(bucket, p, p + 5)
        break
      end
    end
  end
  out[i] = near and char(math.floor(#near / 256), #near % 256) .. table.concat(near) or '\0\0'
end
return { redis.call('GET', KEYS[1]) or '0', table.concat(out) }
