"""Retention on the spread index (a real three-master cluster): each generation's buckets
and id hashes keep their roles' slots; a document is decided against every live generation
and written into the newest; an expired generation's keys go on every master."""

from __future__ import annotations

import random

from news_crawler.fingerprint import distance
from news_crawler.index import Document, RedisStore, SentenceRule
from news_crawler.index.spread_store import SpreadStore
from tests.test_retention import Clock, flip


def generation_keys(cluster, generation: int) -> list[int]:
    """Keys of the spread index's generation, per master."""
    return cluster.keys_per_node(f"{{keep.*}}:g{generation}:*")


def test_spread_copies_are_caught_across_generations_until_the_original_expires(cluster, cluster_client):
    clock = Clock()
    store = SpreadStore(cluster_client, "keep", sentences=SentenceRule(), retention_days=14, generation_days=7,
                        clock=clock)
    a = 0x0123_4567_89AB_CDEF
    first = store.generations.current()
    assert store.decide_many([Document("a", a, (1, 2, 3, 4, 5), 100)])[0].kept
    assert all(n > 0 for n in generation_keys(cluster, first))  # every master holds some of it
    clock.advance(7)  # a new generation: "a" is read from the older one
    copy, by_sentences, b = store.decide_many([Document("copy", flip(a, [1, 2])),
                                               Document("s", flip(a, range(0, 40, 4)), (5, 4, 3, 9, 8), 101),
                                               Document("b", 1 << 40)])
    assert (copy.duplicate_of, copy.rule) == ("a", "simhash")
    assert (by_sentences.duplicate_of, by_sentences.rule) == ("a", "sentences")
    assert b.kept and store.lookup("a").kept and {d.id for d in store.drops()} == {"copy", "s"}
    assert [m.id for m in store.nearest(a)][:1] == ["a"] and store.lookup("b").kept
    assert sum(generation_keys(cluster, first + 1)) > 0  # "b" and the drops went to the newest

    clock.advance(14)  # three generations on: the first is older than 14 days and goes
    assert store.decide_many([Document("later", flip(a, [3]))])[0].kept  # nothing of "a" is left
    assert generation_keys(cluster, first) == [0, 0, 0]
    assert store.lookup("a") is None and store.lookup("b").kept
    assert store.decide_many([("a", a)])[0].duplicate_of == "later"  # an expired id is decided afresh
    assert store.forget("b") == "kept" and store.lookup("b") is None
    assert store.report()["fingerprints"] == 1  # "later" ("a" is its copy now)


def test_spread_retention_decides_as_one_server(cluster, cluster_client, redis_client):
    """The same stream, a generation a day of it, decided by the spread index and by one
    server with the same retention: the same decisions."""
    rng = random.Random(11)
    docs: list[Document] = []
    source: dict[str, str] = {}  # a copy's id -> what it copies
    for i in range(600):
        if docs and rng.random() < 0.4:
            src = rng.choice(docs)
            source[f"d{i}"] = src.id
            docs.append(Document(f"d{i}", flip(src.simhash, rng.sample(range(64), rng.randint(0, 6))),
                                 tuple(k if rng.random() < 0.8 else rng.randrange(1 << 12) for k in src.sentences),
                                 src.length))
        else:
            docs.append(Document(f"d{i}", rng.getrandbits(64), tuple(rng.sample(range(1 << 12), 5)), 100))
    rule = SentenceRule()
    clocks = Clock(), Clock()
    stores = [cls(client, "keep", sentences=rule, retention_days=2, generation_days=1, clock=clock, batch_size=16)
              for cls, client, clock in ((SpreadStore, cluster_client, clocks[0]), (RedisStore, redis_client, clocks[1]))]
    decided: list[list] = [[], []]
    for day in range(6):
        for n, store in enumerate(stores):
            decided[n] += store.decide_many(docs[day * 100 : (day + 1) * 100])
            clocks[n].advance(1)
    assert decided[0] == decided[1]
    day = {d.id: int(d.id[1:]) // 100 for d in docs}
    assert any(not d.kept and day[d.duplicate_of] < day[d.id] for d in decided[0])  # across generations
    # A copy within distance 3 of what has expired (three days or more before) is kept.
    by_id = {d.id: d for d in docs}
    assert any(d.kept and d.id in source and day[d.id] - day[source[d.id]] >= 3
               and distance(d.simhash, by_id[source[d.id]].simhash) <= 3 for d in decided[0])


def test_retention_turned_on_over_a_spread_index_kept_without_it(cluster, cluster_client):
    """The index kept without retention is read as a generation of its own, numbered by the
    day retention was first seen on, and goes whole when that generation expires."""
    a = 0x0F0F_0F0F_0F0F_0F0F
    assert SpreadStore(cluster_client, "keep").decide_many([("a", a)])[0].kept
    plain = cluster.keys_per_node("{keep.t0*}:0*")
    assert sum(plain) > 0
    clock = Clock()
    store = SpreadStore(cluster_client, "keep", retention_days=7, generation_days=7, clock=clock)
    assert store.decide_many([("copy", a ^ 1)])[0].duplicate_of == "a"
    clock.advance(7)
    assert store.decide_many([("copy2", a ^ 2)])[0].duplicate_of == "a"  # still live
    clock.advance(14)
    assert store.decide_many([("late", a ^ 3)])[0].kept
    assert sum(cluster.keys_per_node("{keep.t0*}:0*")) == 0 and store.lookup("a") is None
