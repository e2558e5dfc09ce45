-- Spread index, the sentence table (one hash slot): read and claim at once. For each
-- document of a batch, in order: per sentence key, the entries holding it within the length
-- slack and max distance of the document, as the buckets were when this call began; the
-- document's entries are appended unless one kept document (or one another worker is
-- keeping) shares the rule's number of keys with it in those, or always when ARGV[5] is '1'
-- (the worker then checks itself which of them are still kept, and takes back what it
-- drops). All sentence buckets are in this one slot, so a document is counted against
-- another's whole signature at once. Entries this call appends are not reported.
--
-- KEYS[1]  a key of the slot, naming it (the buckets, of the same slot, are built here)
-- ARGV[1]  bucket key prefix (before the "s"); ARGV[2] sentences to share; ARGV[3] max
--          distance; ARGV[4] length slack; ARGV[5] '1': append every document's entries
-- ARGV[6]  per document: 8-byte simhash, a byte of the number of sentence keys and the keys
--          (3 bytes each), length code
-- ARGV[7]  the index's layout (spread_read.py): '2', 131,072 buckets, s<the key's first two
--          bytes as hex><the top bit of its third>; '1', 65,536, s<the first two bytes as hex>
-- ARGV[8..] the bucket key prefixes of the older live generations (retention: read, and
--          entries appended in ARGV[1]'s, the newest)
-- Returns one string: per document a byte 1 when its entries were appended (else 0), a byte
-- of the number of its keys with entries reported, and for each of those the key's number
-- among the document's (from 1, a byte), a 2-byte count and the entries (the number of the
-- entry's generation among the prefixes, from 0, a byte; its place in its bucket, 3 bytes;
-- the kept simhash, 8; its length code, 1).
-- (common.lua is prepended.)

local s_match, s_distance, s_slack = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local always, blob = ARGV[5] == '1', ARGV[6]
local prefixes = { ARGV[1] }
local halves = ARGV[7] ~= '1'
for i = 8, #ARGV do prefixes[#prefixes + 1] = ARGV[i] end
local G = #prefixes
local HEX = {}
for i = 0, 255 do HEX[i] = format('%02x', i) end
local docs, names = sentence_docs(blob, prefixes, function(prefix, a, b, c)
  local key = prefix .. 's' .. HEX[a] .. HEX[b]
  return halves and key .. (c >= 128 and '1' or '0') or key
end)
local was, now = read_buckets(names)
local out, changed = {}, {}
-- One closure for every key (upvalues set per document and key): the entries of the key
-- within the slack and distance of the document, each counted once a key.
local fp, i, gen, shared, counted, lost, near
local function visit(other, len2, p)
  if counted[other] == i or distance(fp, other) > s_distance then return end
  counted[other] = i
  local place = (p - 1) / 10
  near = near or {}
  near[#near + 1] = char(gen, math.floor(place / 65536), math.floor(place / 256) % 256, place % 256) .. other
                    .. char(len2)
  shared[other] = (shared[other] or 0) + 1
  if shared[other] >= s_match then lost = true end
end
for _, d in ipairs(docs) do
  local sig, len, found = d.sig, d.len, {}
  fp, shared, counted, lost = d.fp, {}, {}, false
  local n = #sig / 3
  for k = 1, n do
    i, near = k, nil
    for g = 1, G do
      gen = g - 1
      sentence_entries(was[d.at[G * (k - 1) + g]], sub(sig, 3 * k, 3 * k), len, s_slack, visit, true, 8)
    end
    if near then found[#found + 1] = char(k, math.floor(#near / 256), #near % 256) .. table.concat(near) end
  end
  local appended = always or not lost
  if appended then append_sentences(d, fp, G, now, changed) end
  out[#out + 1] = char(appended and 1 or 0, #found) .. table.concat(found)
end
write_buckets(names, now, changed)
return table.concat(out)
