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

-- Table t (0..3) files a fingerprint under its 16-bit block t (bytes 2t+1..2t+2): the bucket
-- <prefix><t><block as 4 hex digits>, a string of 6-byte entries (the other six bytes).
local function table_key(prefix, t, fp)
  return format('%s%d%02x%02x', prefix, t, byte(fp, 2 * t + 1, 2 * t + 2))
end

local function table_entry(t, fp)
  return sub(fp, 1, 2 * t) .. sub(fp, 2 * t + 3)
end

-- Take fp's entries out of the four tables. Where keys[t + 1] names its bucket in table t,
-- the bucket is buckets[t + 1], as read by the caller and still to be written by it: the
-- entry leaves that string; other buckets are read and written here.
local function unfile_tables(prefix, fp, keys, buckets)
  for t = 0, 3 do
    local key, entry = table_key(prefix, t, fp), table_entry(t, fp)
    local held = keys and keys[t + 1] == key
    local bucket = held and buckets[t + 1] or (redis.call('GET', key) or '')
    for pos = 1, #bucket, 6 do
      if sub(bucket, pos, pos + 5) == entry then
        bucket = sub(bucket, 1, pos - 1) .. sub(bucket, pos + 6)
        break
      end
    end
    if held then buckets[t + 1] = bucket
    elseif #bucket == 0 then redis.call('DEL', key)
    else redis.call('SET', key, bucket) end
  end
end
