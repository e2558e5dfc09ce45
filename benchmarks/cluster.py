"""Decisions per second on a three-master Redis Cluster against one server, one client each.

    python benchmarks/cluster.py [--stored 200000] [--articles 2000] [--rounds 3]

Both are valkey-server processes on loopback TCP (the cluster started as the tests start
it: ``tests/redis_cluster.py``). Four stores: without retention (the index one generation,
one slot) and with retention of 14 days in generations of 7 (three live generations, on
three masters of the cluster), each on the cluster and on the one server. Each first holds
``--stored`` random documents (simhash, five sentence keys, a size code; with retention a
third in each generation, the clock moved during the load); then, round by
round, each decides the real articles and their reprints four times over under fresh random
masks, batches of 256, ``--rounds`` rounds, the stores taking turns; best and median, and
each round's ratio to the one server.
Also: where the keys went (per master), and the index memory per kept document.
"""

from __future__ import annotations

import argparse
import logging
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from corpus import load_articles, stored_documents, with_reprints  # noqa: E402

from news_crawler import connection  # noqa: E402
from news_crawler.config import plain_settings  # noqa: E402
from news_crawler.dedup.fingerprint import Fingerprinter, UnusableText  # noqa: E402
from news_crawler.dedup.index import Document, RedisStore, SentenceRule  # noqa: E402
from tests.redis_cluster import TestCluster  # noqa: E402
from tests.redis_server import TestServer  # noqa: E402

WEEK = 7 * 86_400


def load(url: str, stored: int, retention_days: float, namespace: str) -> tuple[object, RedisStore, int]:
    """A client and a store on ``url`` holding ``stored`` random documents, and the bytes
    they took (every node's)."""
    client = connection.from_settings(plain_settings({"REDIS_URL": url}))
    clock = [time.time()]
    store = RedisStore(
        client,
        namespace,
        batch_size=500,
        sentences=SentenceRule(),
        retention_days=retention_days,
        clock=lambda: clock[0],
    )
    before = store.memory_used()
    rng = random.Random(1)
    for start in range(0, stored, 10_000):
        if retention_days and start and start % (-(-stored // 3 // 10_000) * 10_000) == 0:
            clock[0] += WEEK  # the next generation
        store.decide_many(stored_documents(start, min(stored, start + 10_000), rng))
    store.batch_size = 256
    return client, store, store.memory_used() - before


def round_items(docs: list[Document], rnd: int) -> list[Document]:
    """The real articles four times over under fresh random masks: new to every store."""
    items = []
    for k in range(4):
        m = random.Random(f"{rnd}/{k}")
        mask, key_mask = m.getrandbits(64), m.getrandbits(24)
        items += [
            Document(f"{d.id}@{rnd}/{k}", d.simhash ^ mask, tuple(x ^ key_mask for x in d.sentences), d.length)
            for d in docs
        ]
    return items


def timed(store, items: list[Document]) -> float:
    t = time.perf_counter()
    store.decide_many(items)
    return len(items) / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--stored", type=int, default=200_000)
    ap.add_argument("--articles", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    logging.getLogger("jieba").setLevel(logging.WARNING)
    fingerprinter = Fingerprinter()
    docs = []
    for d in with_reprints(load_articles(args.articles), args.articles // 2):
        try:
            f = fingerprinter.fingerprint(d["body"])
        except UnusableText:
            continue
        docs.append(Document(d["id"], f.value, f.sentences, f.length))
    print(f"{len(docs):,} real articles and reprints, x4 a round; {args.stored:,} stored first")
    with tempfile.TemporaryDirectory() as tmp:
        server = TestServer(Path(tmp) / "one")
        cluster = TestCluster(Path(tmp) / "cluster")
        try:
            stores = {}
            for name, url, retention in (
                ("one server", server.url, 0),
                ("cluster", cluster.url, 0),
                ("one server, retention", server.url, 14),
                ("cluster, retention", cluster.url, 14),
            ):
                stores[name] = load(url, args.stored, retention, f"bench{retention}")
            # Round by round, each store in turn (the order turning): a slow minute of the
            # machine falls on all of them alike, and each round gives paired ratios.
            names = list(stores)
            rates: dict[str, list[float]] = {n: [] for n in names}
            for rnd in range(args.rounds):
                items = round_items(docs, rnd)
                for name in names[rnd % len(names) :] + names[: rnd % len(names)]:
                    rates[name].append(timed(stores[name][1], items))
            for name in names:
                r = rates[name]
                client, _, added = stores[name]
                print(
                    f"{name:<28} {type(client).__name__:<13} best {max(r):8,.0f}/s  median "
                    f"{statistics.median(r):8,.0f}/s  rounds {', '.join(f'{x:,.0f}' for x in r)};  index memory "
                    f"{added / args.stored:.0f} bytes a stored document (all nodes)"
                )
            store = stores["cluster, retention"][1]
            masters = [store.client.get_node_from_key(p + "held").name for p in store.live_prefixes()]
            print(
                f"  generations {store.generations.numbers()} on masters {masters}, holding "
                f"{[store.held(p) for p in store.live_prefixes()]}"
            )
            for name, alone in (("cluster", "one server"), ("cluster, retention", "one server, retention")):
                paired = [x / a for x, a in zip(rates[name], rates[alone])]
                print(
                    f"{name} / {alone}: {statistics.median(rates[name]) / statistics.median(rates[alone]):.2f}x "
                    f"(median rounds); round by round {', '.join(f'{x:.2f}x' for x in paired)} "
                    f"(median {statistics.median(paired):.2f}x)"
                )
            for client, _, _ in stores.values():
                client.close()
        finally:
            server.stop()
            cluster.stop()


if __name__ == "__main__":
    main()
