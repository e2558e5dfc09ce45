"""Redis memory of the near-duplicate index by structure, and what a retention costs.

    python benchmarks/capacity.py [--kept 1000000] [--drop-share 0.2] [--urls real|sina] [--keys real|5]

Keeps ``--kept`` documents with URL ids, both rules on, then drops ``kept x drop-share`` copies (a bit flipped, a new
URL), on a throwaway valkey-server. Each document has as many sentence keys as a real
article drawn at random (``--keys real``: the counts of the first 2,000 articles of the sina
corpus, fingerprinted; one with fewer than the rule's three files none), or five each
(``--keys 5``); measures each structure with ``MEMORY USAGE`` (bucket
strings, the small hashes and the ids hash filing kept ids, the drops hash) and prints bytes
per kept article, then a table
of memory for articles a day x retention, from those measured bytes: with retention a
generation's worth more is held (the one being filled), so a window of R days holds
R + generation days of articles at most. Then the crawl's own per-URL record: ``--outcomes``
URL outcomes in one day's hash, as the tracker writes them (three in five kept, one in five a
near-duplicate naming the URL it copies, one in five invalid with its reason), and what
``OUTCOMES_KEEP_DAYS`` days of them hold (one server only).
"""

from __future__ import annotations

import argparse
import random
import string
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import redis

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: news_mirror lives there
from bench_redis import bench_server  # noqa: E402
from corpus import load_articles  # noqa: E402

from news_crawler.dedup.fingerprint import Fingerprinter, UnusableText  # noqa: E402
from news_crawler.dedup.index import Document, RedisStore, SentenceRule  # noqa: E402
from news_crawler.dedup.index.drop_records import drop_hashes, live_eras  # noqa: E402
from news_crawler.dedup.index.kept_ids import id_hash  # noqa: E402
from news_crawler.outcomes.store import OutcomeStore  # noqa: E402
from news_mirror.data import SHIPPED_DATA  # noqa: E402

GENERATION_DAYS = 7


def sina_url(rng: random.Random) -> str:
    """66 characters, one site: ``https://news.example.com.cn/c/2019-10-23/doc-<15>.shtml``."""
    tail = "".join(rng.choices(string.ascii_lowercase + string.digits, k=15))
    return f"https://news.example.com.cn/c/2019-10-23/doc-{tail}.shtml"


def real_shapes() -> list[str]:
    """The article URLs of the real saved pages (``pages/gne/manifest.json``): 30 URLs of 20
    hosts, 36 to 219 characters (mean 67)."""
    return [page["url"] for page in SHIPPED_DATA.gne_manifest() if page.get("url")]


def real_url(rng: random.Random, shapes: list[str]) -> str:
    """One of the real URLs with every letter and digit after its origin drawn afresh: the
    same sites, the same lengths and query strings, a new article."""
    shape = rng.choice(shapes)
    cut = shape.index("/", shape.index("://") + 3) if "/" in shape[shape.index("://") + 3 :] else len(shape)
    tail = "".join(
        rng.choice(string.digits)
        if c.isdigit()
        else rng.choice(string.ascii_lowercase)
        if c.islower()
        else rng.choice(string.ascii_uppercase)
        if c.isupper()
        else c
        for c in shape[cut:]
    )
    return shape[:cut] + tail


def real_key_counts(n: int = 2000) -> list[int]:
    """How many sentence keys each of the first ``n`` real articles has (0 to 5)."""
    fingerprinter, counts = Fingerprinter(), []
    for article in load_articles(n):
        try:
            counts.append(len(fingerprinter.fingerprint(article["body"]).sentences))
        except UnusableText:
            continue
    return counts


def usage(client: redis.Redis, keys: list[str]) -> int:
    total = 0
    for start in range(0, len(keys), 20_000):
        pipe = client.pipeline(transaction=False)
        for key in keys[start : start + 20_000]:
            pipe.memory_usage(key, samples=0)
        total += sum(int(n or 0) for n in pipe.execute())
    return total


@contextmanager
def index_store() -> Iterator[tuple[Any, RedisStore]]:
    """A client and an empty store on a throwaway valkey-server."""
    with bench_server() as address:
        client = redis.Redis.from_url(address)
        yield client, RedisStore(client, "cap", batch_size=500, sentences=SentenceRule())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kept", type=int, default=1_000_000)
    ap.add_argument("--drop-share", type=float, default=0.2, help="drops per kept article")
    ap.add_argument("--outcomes", type=int, default=200_000, help="URL outcomes to record (0: skip)")
    ap.add_argument(
        "--urls",
        choices=("real", "sina"),
        default="real",
        help="ids shaped like the real pages' URLs (23 sites), or sina-shaped URLs of one site",
    )
    ap.add_argument(
        "--keys",
        choices=("real", "5"),
        default="real",
        help="sentence keys a document: as many as a real article drawn at random, or five",
    )
    args = ap.parse_args()
    key_counts = real_key_counts() if args.keys == "real" else [5]
    print(
        f"sentence keys a document: {sum(key_counts) / len(key_counts):.2f} on average "
        f"({sum(n == 0 for n in key_counts) / len(key_counts):.1%} with none, filing none)"
    )
    rng = random.Random(7)
    shapes = real_shapes() if args.urls == "real" else []
    seen: set[str] = set()

    def url(rng: random.Random) -> str:  # a new id every time
        while True:
            made = real_url(rng, shapes) if shapes else sina_url(rng)
            if made not in seen:
                seen.add(made)
                return made

    with index_store() as (client, store):
        kept: list[Document] = []
        t = time.perf_counter()
        for start in range(0, args.kept, 10_000):
            batch = [
                Document(
                    url(rng),
                    rng.getrandbits(64),
                    tuple(rng.getrandbits(24) for _ in range(rng.choice(key_counts))),
                    rng.randint(117, 175),
                )
                for _ in range(start, min(args.kept, start + 10_000))
            ]
            store.decide_many(batch)
            kept.extend(batch[:: max(1, int(1 / max(args.drop_share, 1e-9)))] if args.drop_share else [])
        copies = [
            Document(url(rng), d.simhash ^ 1, d.sentences, d.length) for d in kept[: int(args.kept * args.drop_share)]
        ]
        decisions = store.decide_many(copies)
        n_kept = store.counts()["kept"]
        n_dropped = sum(not d.kept for d in decisions)
        print(f"{n_kept:,} kept, {n_dropped:,} dropped, loaded in {time.perf_counter() - t:.0f}s")
        times = []
        for _ in range(3):  # explain's neighbours: every kept fingerprint read
            t = time.perf_counter()
            store.nearest(rng.getrandbits(64), 5)
            times.append(time.perf_counter() - t)
        print(f"the 5 kept articles nearest a simhash (news-dedup explain): {min(times):.2f}s (best of 3)")

        prefix = store.live_prefixes()[0]
        layout = store.layout  # the tables' buckets, named as generations.py names them
        tables = usage(
            client,
            [
                f"{prefix}{t}:{b:0{-(-layout.bucket_bits(t) // 4)}x}"
                for t in range(len(layout.tables))
                for b in range(1 << layout.bucket_bits(t))
            ],
        )
        published = usage(client, [f"{prefix}p{b:04x}" for b in range(1 << 16)])
        sentences = usage(client, [f"{prefix}S{b:04x}" for b in range(1 << 16)])
        ids = usage(
            client,
            [id_hash(prefix, b.to_bytes(2, "big")) for b in range(1 << 16)]
            + [prefix + k for k in ("ids", "origins", "held", "stats")],
        )
        drops = usage(
            client,
            [name for era in live_eras(client, prefix, store.drops_rotate) for name in drop_hashes(prefix, era)]
            + [prefix + "drops:recent", prefix + "drops:n"],
        )
        docs = usage(client, [f"{prefix}k{b:04x}" for b in range(1 << 16)])
        per_kept = (tables + sentences + ids + docs + published) / n_kept
        per_drop = drops / max(1, n_dropped)
        rows = [
            ("block tables", tables / n_kept),
            ("sentence table", sentences / n_kept),
            ("kept ids (simhash -> URL)", ids / n_kept),
            ("filed ids (id key -> simhash)", docs / n_kept),
            ("publication times and credits", published / n_kept),
        ]
        for name, value in rows:
            print(f"  {name:<30} {value:7.1f} bytes a kept article")
        print(f"  {'all of a kept article':<30} {per_kept:7.1f}")
        print(f"  {'drop record':<30} {per_drop:7.1f} bytes a dropped article")
        print(
            f"  {'whole index, a kept article':<30} {per_kept + args.drop_share * per_drop:7.1f} "
            f"(with {args.drop_share:g} drops a kept article)"
        )

        print(
            f"\nmemory for N kept articles a day ({args.drop_share:.0%} as many drops), retention R days "
            f"(R + {GENERATION_DAYS} days held at most):"
        )
        retentions = (30, 90, 365)
        print(f"{'kept a day':>12}" + "".join(f"{f'R = {r}':>14}" for r in retentions))
        for per_day in (10_000, 100_000, 1_000_000):
            cells = []
            for r in retentions:
                days = r + GENERATION_DAYS
                total = per_day * days * (per_kept + args.drop_share * per_drop)
                cells.append(f"{total / 2**30:11.2f} GiB" if total >= 2**30 else f"{total / 2**20:11.0f} MiB")
            print(f"{per_day:>12,}" + "".join(f"{c:>14}" for c in cells))
        if args.outcomes:
            outcomes_table(client, rng, args.outcomes, url)


def outcomes_table(
    client: redis.Redis, rng: random.Random, n: int, url: Callable[[random.Random], str], keep_days: int = 30
) -> None:
    outcomes = OutcomeStore(client, "cap:outcomes", "cap:attempts", keep_days=keep_days)
    for _ in range(n):
        outcome = rng.choice(("kept", "kept", "kept", "duplicate", "invalid"))
        reason = {
            "kept": "",
            "duplicate": f"near-duplicate of {url(rng)} (distance 2, rule simhash)",
            "invalid": "invalid article (article text too short (57 < ARTICLE_MIN_CHARS=80))",
        }[outcome]
        outcomes.record(url(rng), outcome, reason)
    per_url = usage(client, outcomes.keys()) / n
    print(f"\nURL outcomes: {per_url:.1f} bytes a URL; {keep_days} days kept:")
    for per_day in (10_000, 100_000, 1_000_000):
        total = per_day * keep_days * per_url
        print(
            f"{per_day:>12,} URLs a day {total / 2**30:9.2f} GiB"
            if total >= 2**30
            else f"{per_day:>12,} URLs a day {total / 2**20:9.0f} MiB"
        )


if __name__ == "__main__":
    main()
