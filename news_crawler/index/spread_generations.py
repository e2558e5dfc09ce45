"""Retention of the spread index (``spread_store.py``) by time generations, as
``generations.py`` keeps the index on one server: each generation's keys carry ``g<n>:``
after their role's hash tag (``{news.t04}:g2900:0ab12``, ``{news.id}:g2900:i0ab1``), so every
role keeps its slot; the generations are numbered, registered and expired in the id hashes'
slot. A generation is named by its prefix there (``{news.id}:g2900:``); the other roles'
prefixes follow from it. Without retention there is one generation, ``{news.id}:``, the
keys as the spread index always had them. An expired generation goes with UNLINK of its
key names (the buckets of four tables and of the sentence table, a few hashes), each
chunk of them in one slot."""

from __future__ import annotations

from news_crawler.index.drop_records import drop_hashes, live_eras
from news_crawler.index.generations import BUCKETS, Generations
from news_crawler.index.spread_read import table_role

ID_HASHES = ("ids", "docids", "docs", "drops", "drops:old", "drops:recent", "form")  # per generation


class SpreadGenerations(Generations):
    def __init__(self, tags: dict[str, str], generations: Generations, layout: int) -> None:
        super().__init__(generations.client, "{%s}" % tags["ids"], generations.retention_days,
                         generations.seconds / 86_400, generations.clock, generations.drops_rotate)
        self.tags, self.layout = tags, layout

    def role_prefix(self, role: str, prefix: str) -> str:
        """The prefix of ``role`` ("t0".."t3", "t3b", "s", "ids") in the generation whose id
        hashes' prefix is ``prefix``."""
        return "{%s}%s" % (self.tags[role], prefix[len(self.base):])

    def sentence_bucket_key(self, key: int, prefix: str) -> str:
        """The bucket of 3-byte sentence ``key`` in the generation ``prefix`` names: layouts 3
        and 4 have 65,536 (``S<first two bytes as hex>``, as one server), layout 2 131,072
        (``s<first two bytes as hex><the third's top bit>``), layout 1 65,536 (``s<hex>``)."""
        if self.layout >= 3:
            return "%sS%04x" % (self.role_prefix("s", prefix), key >> 8)
        if self.layout == 1:
            return "%ss%04x" % (self.role_prefix("s", prefix), key >> 8)
        return "%ss%04x%d" % (self.role_prefix("s", prefix), key >> 8, key >> 7 & 1)

    def key_names(self, generation: int | None = None, prefix: str | None = None) -> list[str]:
        prefix = prefix or self.prefix(generation)
        names = []
        for t in range(4):  # a table in two slots (spread_read.SPLIT) by halves: each chunk unlinked is in one slot
            names += [f"{self.role_prefix(table_role(self.layout, t, b), prefix)}{t}{b:04x}" for b in range(BUCKETS)]
        names += [self.sentence_bucket_key(k, prefix) for k in range(0, 1 << 24, 128 if self.layout == 2 else 256)]
        if self.layout >= 3:  # kept ids and drop records filed as on one server (lua/ids.lua, lua/drops.lua)
            names += [f"{prefix}i{b:04x}" for b in range(BUCKETS)]  # the ids and their records by key
            names += [name for era in live_eras(self.client, prefix, self.drops_rotate) for name in drop_hashes(prefix, era)]
            names += [prefix + "held", prefix + "drops:n"]
        return names + [prefix + h for h in ID_HASHES]

