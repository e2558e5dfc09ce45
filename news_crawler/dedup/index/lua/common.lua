-- Shared by the index's scripts (prepended to each when it is loaded: a script cannot
-- include another). Lua numbers are doubles and `bit` is 32-bit, so bytes are compared
-- one at a time.

local bxor = bit.bxor
local byte, char, sub, find, format = string.byte, string.char, string.sub, string.find, string.format

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

-- Whether 8-byte big-endian a is below b as numbers (Lua's < on strings follows the C locale's
-- collation, which may take a byte above 127 as negative).
local function below(a, b)
  for i = 1, 8 do
    local x, y = byte(a, i), byte(b, i)
    if x ~= y then return x < y end
  end
  return false
end

-- Hamming distance of two 8-byte simhashes.
local function distance(a, b)
  local x, y = { byte(a, 1, 8) }, { byte(b, 1, 8) }
  local d = 0
  for i = 1, 8 do d = d + POP[bxor(x[i], y[i])] end
  return d
end

-- A sentence bucket is a string of 6-byte entries: the key's third byte, the kept document's
-- short_ref (4 bytes, below; lua/ids.lua finds its simhash), its length code. visit(ref) is
-- called once for each ref whose entry holds the key's third byte (needle) and whose length
-- code is within slack of len, in the bucket's order. (A loop, not an iterator of entries:
-- this is decide.lua's hottest path.)
local function sentence_entries(bucket, needle, len, slack, visit)
  local seen, pos = {}, 1
  while true do
    local p = find(bucket, needle, pos, true)
    if not p then return end
    if (p - 1) % 6 == 0 then
      local ref, len2 = sub(bucket, p + 1, p + 4), byte(bucket, p + 5)
      if len2 - len <= slack and len - len2 <= slack and not seen[ref] then
        seen[ref] = true
        visit(ref)
      end
      pos = p + 6
    else
      pos = p + 1
    end
  end
end

-- A simhash's first three bytes, where its id is filed, and a check byte of all eight (a
-- weighted sum: one flipped bit always changes it), to tell it from the few filed beside it.
local CHECK_WEIGHTS = { 1, 3, 5, 7, 11, 13, 17, 19 }
local function check_byte(fp)
  local sum = 0
  for i = 1, 8 do sum = sum + byte(fp, i) * CHECK_WEIGHTS[i] end
  return sum % 256
end
local function short_ref(fp)
  return sub(fp, 1, 3) .. char(check_byte(fp))
end

-- Append a document's sentence entries to MSET arguments: keys[i] is key i's bucket name and
-- buckets[i] what it held; two keys may share a bucket, the second appending to the first.
local function sentence_mset(mset, keys, buckets, sig, ref, len)
  local value, order = {}, {}
  for i = 1, #sig / 3 do
    local k = keys[i]
    if not value[k] then order[#order + 1] = k end
    value[k] = (value[k] or buckets[i]) .. sub(sig, 3 * i, 3 * i) .. ref .. char(len)
  end
  for _, k in ipairs(order) do
    mset[#mset + 1] = k
    mset[#mset + 1] = value[k]
  end
  return mset
end

-- The layout (layout.py): one table a line, "<bucket bits>;<o>,<p>,<w>;..." with each
-- block's offset in the fingerprint, its offset in the table's permuted fingerprint and its
-- width, in bits from the most significant. A table files each kept fingerprint permuted (its
-- key blocks first) in the bucket named by the first <bucket bits> bits; the entry is the
-- permuted fingerprint after its first 8 - <entry bytes> bytes.
local function read_layout(text)
  local tables = {}
  for line in string.gmatch(text, '[^\n]+') do
    local t, first = { moves = {} }, true
    for part in string.gmatch(line, '[^;]+') do
      if first then
        t.bits, first = tonumber(part), false
      else
        local o, p, w = string.match(part, '^(%d+),(%d+),(%d+)$')
        t.moves[#t.moves + 1] = { tonumber(o), tonumber(p), tonumber(w) }
      end
    end
    t.entry = 8 - math.floor(t.bits / 8)
    t.format = '%s%d:%0' .. math.ceil(t.bits / 4) .. 'x'
    t.scale = 2 ^ (16 - t.bits)
    tables[#tables + 1] = t
  end
  return tables
end

-- Bits from one 8-byte string to another (byte-aligned blocks copy whole bytes): each block
-- read at its offset m[from] (1: in the fingerprint, 2: permuted) and written at the other.
local function move_bits(fp, moves, from)
  local src, out = { byte(fp, 1, 8) }, { 0, 0, 0, 0, 0, 0, 0, 0 }
  for _, m in ipairs(moves) do
    local s, d, w = m[from], m[3 - from], m[3]
    if s % 8 == 0 and d % 8 == 0 and w % 8 == 0 then
      for i = 0, w / 8 - 1 do out[d / 8 + i + 1] = src[s / 8 + i + 1] end
    else
      for i = 0, w - 1 do
        local sp, dp = s + i, d + i
        if math.floor(src[math.floor(sp / 8) + 1] / 2 ^ (7 - sp % 8)) % 2 == 1 then
          local at = math.floor(dp / 8) + 1
          out[at] = out[at] + 2 ^ (7 - dp % 8)
        end
      end
    end
  end
  return char(unpack(out))
end

local function unpermute(pfp, tbl) return move_bits(pfp, tbl.moves, 2) end
local function permute(fp, tbl) return move_bits(fp, tbl.moves, 1) end

-- The bucket of table t (from 1) a permuted fingerprint is filed in.
local function table_key(prefix, t, tbl, pfp)
  local b1, b2 = byte(pfp, 1, 2)
  return format(tbl.format, prefix, t - 1, math.floor((b1 * 256 + b2) / tbl.scale))
end

local function table_entry(tbl, pfp)
  return sub(pfp, 9 - tbl.entry)
end

-- Take fp's entries out of every table. Where keys[t] names its bucket in table t, the bucket
-- is buckets[t], as read by the caller and still to be written by it: the entry leaves that
-- string; other buckets are read and written here.
local function unfile_tables(prefix, tables, fp, keys, buckets)
  for t, tbl in ipairs(tables) do
    local pfp = permute(fp, tbl)
    local key, entry, width = table_key(prefix, t, tbl, pfp), table_entry(tbl, pfp), tbl.entry
    local held = keys and keys[t] == key
    local bucket = held and buckets[t] or (redis.call('GET', key) or '')
    for pos = 1, #bucket, width do
      if sub(bucket, pos, pos + width - 1) == entry then
        bucket = sub(bucket, 1, pos - 1) .. sub(bucket, pos + width)
        break
      end
    end
    if held then buckets[t] = bucket
    elseif #bucket == 0 then redis.call('DEL', key)
    else redis.call('SET', key, bucket) end
  end
end
