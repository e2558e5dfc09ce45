-- Spread index, layouts 4 and 5: block table 0 and the sentence table, which share a hash slot,
-- read and claimed in one atomic call. Table 0's claim (claim_table.lua) reads first, and
-- writes last: the sentence claim (claim_short.lua) between finds the documents its entries
-- name in table 0 as the call found it. A document with an entry near it in table 0 is never
-- kept (whatever its sentences meet, the simhash rule decides it), so the sentence claim
-- skips it: it neither reads nor appends its sentence entries. A document's sentence entries
-- and its table-0 entry go in at the same moment: a later claim finds both, or neither. A
-- document kept has its entry in table 0 (it met no entry there), so a sentence entry of a
-- document kept always names it.
--
-- KEYS[1]  a key of the slot
-- ARGV[1]  n, the number of table 0's arguments; ARGV[2..n+1] those (claim_table.lua);
--          ARGV[n+2..] the sentence claim's (claim_short.lua)
-- Returns the two replies: table 0's, then the sentence table's.

local n = tonumber(ARGV[1])
local table_args, sentence_args = {}, {}
for i = 2, n + 1 do table_args[#table_args + 1] = ARGV[i] end
for i = n + 2, #ARGV do sentence_args[#sentence_args + 1] = ARGV[i] end
table_args.defer = {}
local table_reply, write_table = SCRIPTS['claim_table'](KEYS, table_args)
sentence_args.skip = table_args.defer
local sentences = SCRIPTS['claim_short'](KEYS, sentence_args)
write_table()
return { table_reply, sentences }
