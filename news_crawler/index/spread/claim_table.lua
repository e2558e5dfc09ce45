-- Spread index, one block table (its own hash slot): read and claim at once. For each
-- document of a batch, in order: the entries of its bucket within max distance of it, as
-- the bucket was when this call began; when there are none, its entry is appended. A
-- document with one is within max distance of a document kept, or being kept by another
-- worker, and is never kept itself. Two near-duplicates share a block in some table: there
-- the call that comes second finds the first one's entry, so never are both kept. Entries
-- this call appends are not reported: the worker decides its batch among itself, and takes
-- back the entries of those it drops.
--
-- KEYS[1]  a key of the table's slot, naming it (the buckets, of the same slot, are built here)
-- ARGV[1]  bucket key prefix of the table in the newest generation (where entries are
--          appended); ARGV[5..] in the older live generations (read: retention)
-- ARGV[2]  the table (0..3); ARGV[3] max distance; ARGV[4] the documents' 8-byte simhashes, one string
-- Returns one string: per document a 2-byte count and its near entries, each the number of
-- its generation among the prefixes (from 0, a byte), its place in its bucket (3 bytes) and
-- its 6 bytes; a count of 0: the document's entry was appended.
-- Called by claim_table_and_sentences.lua with ARGV.defer, a table: the simhashes of the
-- documents with near entries go in it, and the buckets are written by the function
-- returned with the string, not here.
-- (common.lua is prepended.)

local t, k, fps = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local prefixes = { ARGV[1] }
for i = 5, #ARGV do prefixes[#prefixes + 1] = ARGV[i] end
local HEX = {}
for i = 0, 255 do HEX[i] = format('%02x', i) end
local docs, names, slot = {}, {}, {}  -- docs[j][g]: the index in names of document j's bucket in generation g
for p = 1, #fps, 8 do
  local a, b = byte(fps, p + 2 * t, p + 2 * t + 1)
  local at = {}
  for g, prefix in ipairs(prefixes) do
    local key = prefix .. HEX[a] .. HEX[b]
    if not slot[key] then
      names[#names + 1] = key
      slot[key] = #names
    end
    at[g] = slot[key]
  end
  docs[#docs + 1] = at
end
local was, now = read_buckets(names)
local out, changed = {}, {}
for j, at in ipairs(docs) do
  local p0 = 8 * j - 7
  local entry = sub(fps, p0, p0 + 2 * t - 1) .. sub(fps, p0 + 2 * t + 2, p0 + 7)
  local q1, q2, q3, q4, q5, q6 = byte(entry, 1, 6)
  local near = nil
  for g, i in ipairs(at) do
    local bucket = was[i]
    for p = 1, #bucket, 6 do
      -- Most entries differ in far more than k bits: two bytes usually tell (as decide.lua).
      local a1, a2 = byte(bucket, p, p + 1)
      local d = POP[bxor(a1, q1)] + POP[bxor(a2, q2)]
      if d <= k then
        local a3, a4, a5, a6 = byte(bucket, p + 2, p + 5)
        if d + POP[bxor(a3, q3)] + POP[bxor(a4, q4)] + POP[bxor(a5, q5)] + POP[bxor(a6, q6)] <= k then
          local place = (p - 1) / 6
          near = near or {}
          near[#near + 1] = char(g - 1, math.floor(place / 65536), math.floor(place / 256) % 256, place % 256)
                            .. sub(bucket, p, p + 5)
        end
      end
    end
  end
  if near then
    out[j] = char(math.floor(#near / 256), #near % 256) .. table.concat(near)
    if ARGV.defer then ARGV.defer[sub(fps, p0, p0 + 7)] = true end
  else
    out[j] = '\0\0'
    local i = at[1]
    now[i] = now[i] .. entry
    changed[i] = true
  end
end
if ARGV.defer then  -- called by claim_table_and_sentences.lua, which writes after the sentence claim
  return table.concat(out), function() write_buckets(names, now, changed) end
end
write_buckets(names, now, changed)
return table.concat(out)
