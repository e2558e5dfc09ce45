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
    ap.add_argument("--archive", action="store_true", help="archive a second copy and compare decisions")
    ap.add_argument("--held-out", type=int, default=100_000, help="lines of the stream decided against both")
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
        if not args.archive:
            return
        # the same load in a second namespace, archived; then one more stream against each
        check(address, "arch", stream, Path(tmp) / "out2.jsonl", args.blocks)
        before = int(client.info("memory")["used_memory"])
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "news_crawler.cli.dedup", "archive", "--all", "--redis-url", address,
             "--namespace", "arch"],
            check=True, capture_output=True, text=True, cwd=ROOT,
        )  # fmt: skip
        after = int(client.info("memory")["used_memory"])
        print(done.stdout.strip(), f"({time.perf_counter() - started:.1f} s)")
        print(f"Redis used_memory: {(after - before) / kept:+.1f} bytes a kept fingerprint on archiving")
        held_out = Path(tmp) / "held_out.jsonl"
        write_stream(held_out, args.held_out, args.seed + 1, copies=0.0)
        with open(held_out, "a", encoding="utf-8") as f:  # copies of loaded ones, and the loaded ones again
            rng = random.Random(args.seed + 2)
            loaded = [json.loads(line) for line in open(stream)][: args.held_out]
            for n, row in enumerate(loaded[: args.held_out // 2]):
                fp = int(row["simhash"], 16) ^ (1 << rng.randrange(64)) ^ (1 << rng.randrange(64))
                f.write(json.dumps({"id": f"https://copy.example.com/{n}", "simhash": f"{fp:016x}"}) + "\n")
            for row in loaded[: args.held_out // 4]:
                f.write(json.dumps(row) + "\n")
        live_s = check(address, "load", held_out, Path(tmp) / "live.jsonl", args.blocks)
        arch_s = check(address, "arch", held_out, Path(tmp) / "arch.jsonl", args.blocks)
        same = open(Path(tmp) / "live.jsonl").read() == open(Path(tmp) / "arch.jsonl").read()
        n = sum(1 for _ in open(held_out))
        print(
            f"a held-out stream of {n:,} lines: live {n / live_s:,.0f} lines/s, archived {n / arch_s:,.0f} lines/s "
            f"(process start and archive load included); every line identical: {same}"
        )


if __name__ == "__main__":
    main()
