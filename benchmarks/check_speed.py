"""Whole-process ``news-dedup check`` against bare ``jieba.lcut`` of the same bodies.

    python benchmarks/check_speed.py [--articles 1500] [--rounds 3] [--workers 1 2] [--compare-sentences]

Each contender is a fresh process over the same JSON Lines file of real sina articles,
start-up included: ``python -c`` that reads the file and runs ``jieba.lcut`` (HMM on, its
default) on every body, and ``news-dedup check --workers N`` into a fresh namespace of a
valkey-server on a unix socket. Rounds are interleaved; the best round of each is kept and
the ratios are taken from those. ``--compare-sentences`` adds ``check --no-sentences`` (the
simhash rule alone) for each worker count: what the second signal costs.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_redis import bench_server  # noqa: E402
from corpus import load_articles  # noqa: E402

BIN = Path(sys.executable).parent
BARE_JIEBA = """
import json, sys, jieba
jieba.setLogLevel(60)
for line in open(sys.argv[1], encoding="utf-8"):
    jieba.lcut(json.loads(line)["body"])
"""


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--articles", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--check", default=str(BIN / "news-dedup"), help="the news-dedup to time")
    parser.add_argument("--compare-sentences", action="store_true", help="also time check --no-sentences")
    args = parser.parse_args()
    articles = load_articles(args.articles)
    with tempfile.TemporaryDirectory() as tmp, bench_server() as url:
        corpus = Path(tmp) / "articles.jsonl"
        corpus.write_text(
            "".join(
                json.dumps({"id": a["id"], "title": a["title"], "body": a["body"]}, ensure_ascii=False) + "\n"
                for a in articles
            ),
            encoding="utf-8",
        )
        times: dict[str, list[float]] = {}
        for _ in range(args.rounds):
            times.setdefault("jieba.lcut", []).append(timed([sys.executable, "-c", BARE_JIEBA, str(corpus)]))
            for n in args.workers:
                cmd = [args.check, "check", "--redis-url", url, "--namespace", uuid.uuid4().hex, str(corpus)]
                times.setdefault(f"check --workers {n}", []).append(timed(cmd + ["--workers", str(n)]))
                if args.compare_sentences:
                    cmd[-1:-1] = ["--no-sentences"]
                    cmd[cmd.index("--namespace") + 1] = uuid.uuid4().hex
                    times.setdefault(f"  {n}, --no-sentences", []).append(timed(cmd + ["--workers", str(n)]))
    base = min(times["jieba.lcut"])
    print(f"{len(articles)} real sina articles, whole processes, best of {args.rounds} interleaved rounds")
    for name, ts in times.items():
        print(
            f"  {name:22} {min(ts):6.2f} s  ({len(articles) / min(ts):6.0f} articles/s)  "
            f"{min(ts) / base:5.2f}x jieba.lcut   rounds: {', '.join(f'{t:.2f}' for t in ts)}"
        )


if __name__ == "__main__":
    main()
