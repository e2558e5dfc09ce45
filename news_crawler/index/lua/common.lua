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

-- A sentence bucket is a string of 10-byte entries: the key's third byte, a kept 8-byte
-- simhash, its length code. visit(simhash, length code) is called once for each simhash
-- whose entry holds the key's third byte (needle) and whose length code is within slack
-- of len, in the bucket's order; with every_entry, for each entry (no table of those seen).
-- (A loop, not an iterator of entries: this is decide.lua's hottest path.)
local SENTENCE_ENTRY = 10
local function sentence_entries(bucket, needle, len, slack, visit, every_entry)
  local seen, pos = not every_entry and {} or nil, 1
  while true do
    local p = find(bucket, needle, pos, true)
    if not p then return end
    if (p - 1) % SENTENCE_ENTRY == 0 then
      local other, len2 = sub(bucket, p + 1, p + 8), byte(bucket, p + 9)
      if len2 - len <= slack and len - len2 <= slack and not (seen and seen[other]) then
        if seen then seen[other] = true end
        visit(other, len2)
      end
      pos = p + SENTENCE_ENTRY
    else
      pos = p + 1
    end
  end
end

-- Append a document's sentence entries to MSET arguments: keys[i] is key i's bucket name and
-- buckets[i] what it held; two keys may share a bucket, the second appending to the first.
local function sentence_mset(mset, keys, buckets, sig, fp, len)
  local value, order = {}, {}
  for i = 1, #sig / 3 do
    local k = keys[i]
    if not value[k] then order[#order + 1] = k end
    value[k] = (value[k] or buckets[i]) .. sub(sig, 3 * i, 3 * i) .. fp .. char(len)
  end
  for _, k in ipairs(order) do
    mset[#mset + 1] = k
    mset[#mset + 1] = value[k]
  end
  return mset
end


-- A claim's answer for one document, appended to out: '\0' when it was inserted (lost is
-- ''), else '\1' and the 8-byte simhash it lost to. Returns 1 when inserted, else 0.
local function claim_answer(out, lost)
  if lost == '' then
    out[#out + 1] = '\0'
    return 1
  end
  out[#out + 1] = '\1' .. lost
  return 0
end

-- The claims' reply: the table's version raised once if anything was inserted.
local function claim_reply(out, inserted, version_key)
  if inserted > 0 then redis.call('INCR', version_key) end
  return table.concat(out)
end
