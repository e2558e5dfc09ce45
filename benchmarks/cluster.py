"""Decisions per second on a three-master Redis Cluster against one server, one client each.

    python benchmarks/cluster.py [--stored 200000] [--articles 2000] [--rounds 3]

Both are valkey-server processes on loopback TCP (the cluster started as the tests start
it: ``tests/redis_cluster.py``). Each first holds ``--stored`` random documents (simhash,
five sentence keys, a size code), then decides the real articles and their reprints four
times over under fresh random masks, batches of 256, ``--rounds`` rounds; best and median.
Both layouts of the index on the cluster (``DEDUP_CLUSTER_INDEX``): one slot, and spread.
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
from corpus import load_articles, with_reprints  # noqa: E402

from news_crawler import connection  # noqa: E402
from news_crawler.config import plain_settings  # noqa: E402
from news_crawler.fingerprint import Fingerprinter, UnusableText  # noqa: E402
from news_crawler.engine import store_from_settings  # noqa: E402
from news_crawler.index import Document  # noqa: E402
from tests.redis_cluster import TestCluster  # noqa: E402
from tests.redis_server import TestServer  # noqa: E402


def measure(name: str, url: str, docs: list[Document], stored: int, rounds: int, layout: str = "one-slot") -> float:
    connection._clients.clear()
    client = connection.from_settings(plain_settings({"REDIS_URL": url}))
    store = store_from_settings(plain_settings({"DEDUP_NAMESPACE": "bench", "DEDUP_BATCH_SIZE": 500,
                                                "DEDUP_CLUSTER_INDEX": layout}), client)
    rng = random.Random(1)
    for start in range(0, stored, 10_000):
        store.decide_many([Document(f"https://example.com/s/{i}.html", rng.getrandbits(64),
                                    tuple(rng.getrandbits(24) for _ in range(5)), rng.randint(117, 175))
                           for i in range(start, min(stored, start + 10_000))])
    store.batch_size = 256
    rates = []
    for rnd in range(rounds):
        items = []
        for k in range(4):
            m = random.Random(f"{rnd}/{k}")
            mask, key_mask = m.getrandbits(64), m.getrandbits(24)
            items += [Document(f"{d.id}@{rnd}/{k}", d.simhash ^ mask, tuple(x ^ key_mask for x in d.sentences),
                               d.length) for d in docs]
        t = time.perf_counter()
        store.decide_many(items)
        rates.append(len(items) / (time.perf_counter() - t))
    print(f"{name:<28} {type(client).__name__:<13} best {max(rates):8,.0f}/s  median {statistics.median(rates):8,.0f}/s"
          f"  rounds {', '.join(f'{r:,.0f}' for r in rates)};  index memory {store.memory_used() / stored:.0f} bytes"
          f" a stored document (all nodes, startup included)")
    client.close()
    return statistics.median(rates)


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
            alone = measure("one server", server.url, docs, args.stored, args.rounds)
            one_slot = measure("cluster, index in one slot", cluster.url, docs, args.stored, args.rounds)
            print(f"  index keys per master: {cluster.keys_per_node('{bench}*')}")
            cluster.flushall()
            spread = measure("cluster, index spread", cluster.url, docs, args.stored, args.rounds, "spread")
            print(f"  index keys per master: {cluster.keys_per_node('{bench.*')}")
            print(f"cluster / one server: one slot {one_slot / alone:.2f}x, spread {spread / alone:.2f}x (median rounds)")
        finally:
            server.stop()
            cluster.stop()


if __name__ == "__main__":
    main()
