-- Spread index, compact layout, in the slot of the id hashes: a kept document forgotten,
-- its id taken out of where lua/ids.lua filed it (its record by id key is in the small hash
-- <prefix>i<first two bytes of the key as hex>: see finish.lua) and counted out. Its sentence entries stay:
-- they name no kept document and count for nothing (claim_short.lua).
--
-- KEYS[1] stats hash
-- ARGV[1] the prefix of the generation it was kept in; ARGV[2] its id's 8-byte key; ARGV[3] its 8-byte simhash
-- (common.lua and ids.lua are prepended.)

local prefix, key, fp = ARGV[1], ARGV[2], ARGV[3]
unfile_key(id_hash(prefix, key), key, fp)
unfile_id(prefix, fp)
redis.call('DECR', prefix .. 'held')
redis.call('HINCRBY', KEYS[1], 'kept', -1)
return 1
