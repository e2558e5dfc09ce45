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

-- A sentence bucket is a string of entries: the key's third byte, a reference to the kept
-- document, its length code. The reference is its 8-byte simhash (10-byte entries: the spread
-- layout, and the standalone layout before compact entries) or a 4-byte short_ref (6-byte
-- entries: the standalone layout; lua/ids.lua finds the simhash). visit(ref, length code,
-- the entry's offset in the bucket) is called once for each reference whose entry holds the
-- key's third byte (needle) and whose length code is within slack of len, in the bucket's
-- order; with every_entry, for each entry (no table of those seen). ref_size is the reference's size (8 or 4).
-- (A loop, not an iterator of entries: this is decide.lua's hottest path.)
local function sentence_entries(bucket, needle, len, slack, visit, every_entry, ref_size)
  local size = ref_size + 2
  local seen, pos = not every_entry and {} or nil, 1
  while true do
    local p = find(bucket, needle, pos, true)
    if not p then return end
    if (p - 1) % size == 0 then
      local other, len2 = sub(bucket, p + 1, p + ref_size), byte(bucket, p + ref_size + 1)
      if len2 - len <= slack and len - len2 <= slack and not (seen and seen[other]) then
        if seen then seen[other] = true end
        visit(other, len2, p)
      end
      pos = p + size
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
-- ref is what the entries name the document by (its simhash, or its short_ref).
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

-- The documents of a spread sentence claim's argument (per document: 8-byte simhash, a byte
-- n, n 3-byte keys, a length code) as {fp, sig, len, at}, with at[G * (i - 1) + g] the
-- index in names of the bucket of key i in generation g (prefixes[g], G of them), which
-- bucket(prefix, the key's three bytes) names; and the names. A document whose simhash is in
-- skip (a table, or nil) has skip set and no buckets.
local function sentence_docs(blob, prefixes, bucket, skip)
  local G, docs, names, slot = #prefixes, {}, {}, {}
  local j = 1
  while j <= #blob do
    local n = byte(blob, j + 8)
    local d = { fp = sub(blob, j, j + 7), sig = sub(blob, j + 9, j + 8 + 3 * n), len = byte(blob, j + 9 + 3 * n), at = {} }
    d.skip = skip and skip[d.fp]
    for i = 1, d.skip and 0 or n do
      local a, b, c = byte(d.sig, 3 * i - 2, 3 * i)
      for g, prefix in ipairs(prefixes) do
        local key = bucket(prefix, a, b, c)
        if not slot[key] then
          names[#names + 1] = key
          slot[key] = #names
        end
        d.at[G * (i - 1) + g] = slot[key]
      end
    end
    docs[#docs + 1] = d
    j = j + 10 + 3 * n
  end
  return docs, names
end

-- Append document d (of sentence_docs) to the newest generation's buckets of its keys,
-- naming it by ref: now[i] holds bucket i's bytes, changed[i] marks it to be written.
local function append_sentences(d, ref, G, now, changed)
  for k = 1, #d.sig / 3 do
    local at = d.at[G * (k - 1) + 1]
    now[at] = now[at] .. sub(d.sig, 3 * k, 3 * k) .. ref .. char(d.len)
    changed[at] = true
  end
end

-- The buckets named (a claim of the spread layout): what each held when the call began
-- ('' for none), and a copy to grow.
local function read_buckets(names)
  local was, now = #names > 0 and redis.call('MGET', unpack(names)) or {}, {}
  for i = 1, #names do
    was[i] = was[i] or ''
    now[i] = was[i]
  end
  return was, now
end

-- Write the buckets marked changed, whole (not APPENDed: a string grown by APPEND keeps
-- spare room), in one MSET.
local function write_buckets(names, now, changed)
  local mset = {}
  for i, key in ipairs(names) do
    if changed[i] then
      mset[#mset + 1] = key
      mset[#mset + 1] = now[i]
    end
  end
  if #mset > 0 then redis.call('MSET', unpack(mset)) end
end
