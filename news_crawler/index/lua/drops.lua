
-- Drop records (the drops hashes' values), shared by decide.lua and forget.lua; needs
-- lua/ids.lua before it. A record is byte 2, the dropped document's 8-byte simhash, the
-- distance (one byte), the rule (one byte: 0 simhash, 1 sentences), the time (4 bytes,
-- seconds since 1970, big-endian), then the id it duplicates: as kept ids are filed
-- (short_id), or byte 0 and the id whole. Earlier versions wrote JSON ({"simhash" (16 hex
-- digits), "duplicate_of", "distance", "time" (ISO 8601), "rule"}): both are read.

local DROP_RULES = { [0] = 'simhash', [1] = 'sentences' }

local function pack_drop(fp, dist, rule, seconds, dup)
  local named = short_id(dup) or ('\0' .. dup)
  local t = tonumber(seconds)
  return '\2' .. fp .. char(dist, rule == 'sentences' and 1 or 0, math.floor(t / 16777216) % 256,
                            math.floor(t / 65536) % 256, math.floor(t / 256) % 256, t % 256) .. named
end

-- YYYY-MM-DD (UTC) of a time in seconds since 1970 (the civil date of its day number).
local function day_of(seconds)
  local z = math.floor(seconds / 86400) + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local d = doy - math.floor((153 * mp + 2) / 5) + 1
  local m = mp < 10 and mp + 3 or mp - 9
  local y = yoe + era * 400 + (m <= 2 and 1 or 0)
  return format('%04d-%02d-%02d', y, m, d)
end

-- A record as a table: simhash (16 hex digits), duplicate_of, distance, rule, day (YYYY-MM-DD).
local function unpack_drop(raw)
  if byte(raw, 1) ~= 2 then
    local rec = cjson.decode(raw)
    rec.rule = rec.rule or 'simhash'
    rec.day = sub(rec.time or '', 1, 10)
    return rec
  end
  local t1, t2, t3, t4 = byte(raw, 12, 15)
  local named = sub(raw, 16)
  return { simhash = format('%02x%02x%02x%02x%02x%02x%02x%02x', byte(raw, 2, 9)), distance = byte(raw, 10),
           rule = DROP_RULES[byte(raw, 11)] or 'simhash', day = day_of(((t1 * 256 + t2) * 256 + t3) * 256 + t4),
           duplicate_of = byte(named, 1) == 0 and sub(named, 2) or full_id(named) }
end
