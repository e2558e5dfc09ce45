-- Spread index, compact layouts: the sentence table read and claimed at once as
-- claim_sentences.lua does in the layouts before, but with the one server's 6-byte entries
-- (<prefix>S<first two bytes of the key as hex>: the key's third byte, the short_ref of the
-- document's simhash, its length code; lua/common.lua). A ref shared by the rule's number
-- of the document's keys names the documents it may stand for, each checked for distance:
-- - layouts 4 and 5 (ARGV[5] 't' or 'T'; the sentence table in the slot of block table 0, this
--   called by claim_table_and_sentences.lua between table 0's reads and writes, with
--   ARGV.skip the simhashes of the documents to skip): the simhashes in the entry's
--   generation's table-0 bucket of the ref's first two bytes, whose entries
--   (the other six bytes) give the ref's third byte and check byte. Those are the documents
--   kept there and those being decided by other workers: a document is kept only if its
--   entry went into every block table, in the same call as its sentence entries;
-- - layout 3 (ARGV[5] '0' or '1'; the sentence table in the slot of the id hashes): the
--   documents kept in the entry's generation (lua/ids.lua, each_near) and, with '0', those
--   other workers are deciding (registered in the begun hash: spread/decided.lua).
-- An entry naming no such document (forgotten, or taken back since) counts for nothing.
-- Entries this call appends are not reported.
--
-- KEYS[1]  layout 3: the begun hash (simhash -> id), of this slot; layouts 4, 5: a key of the slot
-- ARGV[1]  the newest generation's prefix (entries appended there); ARGV[2] sentences to
--          share; ARGV[3] max distance; ARGV[4] length slack; ARGV[5] the layout's mode
--          (above): '1' or 'T' append every document's entries (the worker decides again:
--          in layout 3 only kept documents are looked up)
-- ARGV[6]  per document: 8-byte simhash, a byte of the number of sentence keys and the keys
--          (3 bytes each), length code
-- ARGV[7..] the older live generations' prefixes (read)
-- Returns what claim_sentences.lua returns: per document a byte 1 when its entries were
-- appended (else 0), a byte of the number of its keys with entries reported, and for each
-- the key's number among the document's (from 1), a 2-byte count and the entries (the
-- generation's number among the prefixes from 0, a byte; the entry's place in its bucket,
-- 3 bytes; the simhash it names, 8; its length code, 1).
-- (common.lua and ids.lua are prepended.)

local s_match, s_distance, s_slack = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local mode, blob = ARGV[5], ARGV[6]
local always, by_table = mode == '1' or mode == 'T', mode == 't' or mode == 'T'
local prefixes = { ARGV[1] }
for i = 7, #ARGV do prefixes[#prefixes + 1] = ARGV[i] end
local G = #prefixes
local HEX = {}
for i = 0, 255 do HEX[i] = format('%02x', i) end
local docs, names = sentence_docs(blob, prefixes, function(prefix, a, b)
  return prefix .. 'S' .. HEX[a] .. HEX[b]
end, ARGV.skip)
local was, now = read_buckets(names)

local begun  -- short_ref -> the simhashes registered in the begun hash, read when first needed
local function being_decided(ref)
  if not begun then
    begun = {}
    for _, fp in ipairs(redis.call('HKEYS', KEYS[1])) do
      local r = short_ref(fp)
      begun[r] = begun[r] or {}
      begun[r][#begun[r] + 1] = fp
    end
  end
  return begun[ref]
end
-- found(fp) for each simhash in generation g's table-0 bucket of ref's first two bytes
-- whose short_ref is ref (layouts 4 and 5).
local function each_in_table(g, ref, found)
  local head, third, check = sub(ref, 1, 2), byte(ref, 3, 4)
  local bucket = redis.call('GET', prefixes[g] .. '0' .. HEX[byte(ref, 1)] .. HEX[byte(ref, 2)]) or ''
  for p = 1, #bucket, 6 do
    if byte(bucket, p) == third then
      local fp = head .. sub(bucket, p, p + 5)
      if check_byte(fp) == check then found(fp) end
    end
  end
end
local named = {}  -- generation .. ref -> the simhashes it names
local function holders(g, ref)
  local who = char(g) .. ref
  local fps = named[who]
  if not fps then
    fps = {}
    local function add(fp) fps[#fps + 1] = fp end
    if by_table then
      each_in_table(g, ref, add)
    else
      each_near(prefixes[g], ref, add)
      for _, fp in ipairs(not always and being_decided(ref) or {}) do add(fp) end
    end
    named[who] = fps
  end
  return fps
end

-- One closure for every key (upvalues set per document and key): each entry within the
-- slack, its ref counted once a key.
local hits, shared, seen, gen, key_no
local function visit(ref, len2, p)
  local who = char(gen) .. ref
  hits[#hits + 1] = { key_no, gen, ref, len2, p }
  if seen[who] ~= key_no then
    seen[who] = key_no
    shared[who] = (shared[who] or 0) + 1
  end
end
-- A document's reported entries, grouped by key: found[i] one key's group; near, near_key the one being filled.
local found, near, near_key
local function close_key()
  if near then found[#found + 1] = char(near_key, math.floor(#near / 256), #near % 256) .. table.concat(near) end
  near = nil
end
local out, changed = {}, {}
for _, d in ipairs(docs) do
  if d.skip then  -- near an entry of table 0 (claim_table_and_sentences.lua): never kept
    out[#out + 1] = '\0\0'
  else
    local sig, len, fp = d.sig, d.len, d.fp
    local n = #sig / 3
    hits, shared, seen = {}, {}, {}
    for k = 1, n do
      key_no = k
      for g = 1, G do
        gen = g
        sentence_entries(was[d.at[G * (k - 1) + g]], sub(sig, 3 * k, 3 * k), len, s_slack, visit, false, 4)
      end
    end
    -- The entries of the refs shared by enough keys whose documents are within the distance,
    -- grouped by key (hits are in the keys' order).
    local lost = false
    found, near, near_key = {}, nil, nil
    for _, h in ipairs(hits) do
      local k, g, ref, len2, p = h[1], h[2], h[3], h[4], h[5]
      if k ~= near_key then
        close_key()
        near_key = k
      end
      if shared[char(g) .. ref] >= s_match then
        for _, other in ipairs(holders(g, ref)) do
          if distance(fp, other) <= s_distance then
            local place = (p - 1) / 6
            near = near or {}
            near[#near + 1] = char(g - 1, math.floor(place / 65536), math.floor(place / 256) % 256, place % 256)
                              .. other .. char(len2)
            lost = true
          end
        end
      end
    end
    close_key()
    local appended = always or not lost
    if appended then append_sentences(d, short_ref(fp), G, now, changed) end
    out[#out + 1] = char(appended and 1 or 0, #found) .. table.concat(found)
  end
end
write_buckets(names, now, changed)
return table.concat(out)
