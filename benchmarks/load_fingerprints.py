"""A corpus fingerprinted elsewhere, loaded through ``news-dedup check``: ``{"id", "simhash"}``
lines, ids shaped like real article URLs (``capacity.py``'s: the real pages' URLs with every
letter and digit after the host drawn afresh), a few planted copies among them.

Runs the command itself (``news-dedup check FILE``, its workers and all) against a throwaway
valkey-server on a unix socket, and prints lines a second and the Redis memory a loaded
fingerprint takes (``used_memory`` after, less before, over the fingerprints kept); with
``--archive``, then archives the index (``news-dedup archive --all``) and prints the memory
a fingerprint takes archived, and decides a second stream against the live and the archived
index, each in a namespace of its own, comparing every line.

    ./run python benchmarks/load_fingerprints.py [--lines 1000000] [--blocks 16,16,16,16] [--archive]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_redis import bench_server  # noqa: E402
from capacity import real_shapes, real_url  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def write_stream(path: Path, n: int, seed: int, copies: float = 0.02) -> None:
    rng = random.Random(seed)
    shapes = real_shapes()
    kept: list[int] = []
    seen: set[str] = set()
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(n):
            while (url := real_url(rng, shapes)) in seen:
                pass
            seen.add(url)
            if kept and rng.random() < copies:  # a copy: a bit or two off one before
                fp = rng.choice(kept) ^ (1 << rng.randrange(64)) ^ (1 << rng.randrange(64))
            else:
                fp = rng.getrandbits(64)
                kept.append(fp)
            f.write(json.dumps({"id": url, "simhash": f"{fp:016x}"}) + "\n")


def check(redis_url: str, namespace: str, path: Path, out: Path, blocks: str) -> float:
    started = time.perf_counter()
    with open(out, "w") as f:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "news_crawler.cli.dedup",
                "check",
                "--redis-url",
                redis_url,
                "--namespace",
                namespace,
                "--blocks",
                blocks,
                str(path),
            ],
            check=True,
            stdout=f,
            cwd=ROOT,
        )
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--blocks", default="16,16,16,16")
    ap.add_argument("--seed", type=int, default=70)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, bench_server() as address:
        stream = Path(tmp) / "fingerprints.jsonl"
        write_stream(stream, args.lines, args.seed)
        client = redis.Redis.from_url(address)
        before = int(client.info("memory")["used_memory"])
        seconds = check(address, "load", stream, Path(tmp) / "out.jsonl", args.blocks)
        after = int(client.info("memory")["used_memory"])
        rows = [json.loads(line) for line in open(Path(tmp) / "out.jsonl")]
        kept = sum(1 for r in rows if r.get("duplicate_of") is None and "error" not in r)
        print(
            f"{args.lines:,} lines ({kept:,} kept, {len(rows) - kept:,} dropped) in {seconds:.1f} s: "
            f"{args.lines / seconds:,.0f} lines/s; Redis {(after - before) / kept:.1f} bytes a kept fingerprint "
            f"(layout {args.blocks})"
        )


if __name__ == "__main__":
    main()
