"""The Bloom dupefilter against the set of fingerprints: bytes per URL, false positives.

    python benchmarks/bloom.py [--urls 1000000] [--error 0.001] [--probe 200000]

Fills a Bloom dupefilter sized for ``--urls`` URLs with that many distinct URLs (one
script call each, as a crawl does), then asks ``--probe`` URLs it never saw; and stores
``--probe`` of the fingerprints in a plain Redis set (what ``RedisDupeFilter`` keeps) for
its bytes per URL. valkey-server on a unix socket; MEMORY USAGE for sizes.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import redis
from scrapy import Request
from scrapy.utils.request import RequestFingerprinter

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench_redis import bench_server  # noqa: E402

from news_crawler.frontier.bloom import BloomDupeFilter  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--urls", type=int, default=1_000_000)
    ap.add_argument("--error", type=float, default=0.001)
    ap.add_argument("--probe", type=int, default=200_000)
    args = ap.parse_args()
    fingerprinter = RequestFingerprinter()
    with bench_server() as url:
        client = redis.Redis.from_url(url)
        bloom = BloomDupeFilter(
            client,
            "bench:dupefilter",
            capacity=args.urls,
            error=args.error,
            period_days=30,
            periods=12,
            fingerprinter=fingerprinter,
        )
        started = time.perf_counter()
        taken_as_seen = sum(
            bloom.request_seen(Request(f"https://news.example.cn/a/{n}.html")) for n in range(args.urls)
        )
        took = time.perf_counter() - started
        size = client.memory_usage(bloom.filter_keys()[0], samples=0)
        false = sum(bloom.was_seen(Request(f"https://news.example.cn/b/{n}.html")) for n in range(args.probe))
        client.sadd(
            "bench:set",
            *[
                fingerprinter.fingerprint(Request(f"https://news.example.cn/a/{n}.html")).hex()
                for n in range(args.probe)
            ],
        )
        per_set = client.memory_usage("bench:set", samples=0) / args.probe
    print(
        f"Bloom, {args.urls:,} URLs at {args.error:.3%}: {bloom.bits:,} bits, {bloom.hashes} hashes; "
        f"{size / args.urls:.2f} bytes a URL ({size:,} bytes); {taken_as_seen} taken as seen while filling; "
        f"false positives at capacity {false:,} of {args.probe:,} = {false / args.probe:.3%}; "
        f"{args.urls / took:,.0f} checks/s, one round trip each"
    )
    print(f"set of fingerprints: {per_set:.1f} bytes a URL ({args.probe:,} stored)")


if __name__ == "__main__":
    main()
