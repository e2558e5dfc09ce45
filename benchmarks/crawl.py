"""A crawl of the local mirror with the near-duplicate pipeline on and off.

The mirror serves N real sina articles (the 2018 corpus, as simple article pages) and M
edited reprints of them under sina URLs, linked from the sina start pages. Each mode
crawls them with the sina spider into a fresh Redis, in its own process:

    python benchmarks/crawl.py [--articles 2000] [--reprints 200]
"""

from __future__ import annotations

import argparse
import html
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_redis import bench_server  # noqa: E402
from corpus import load_articles, with_reprints  # noqa: E402

from news_mirror import settings as mirror_settings  # noqa: E402
from news_mirror.catalog import URL_MAKERS, Catalog, Page  # noqa: E402
from news_mirror.server import Mirror, serve  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def page_html(title: str, body: str) -> bytes:
    paragraphs = "".join(f"<p>{html.escape(line)}</p>" for line in body.splitlines() if line.strip())
    return (f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{html.escape(title)}_新浪网</title></head>'
            f'<body><div class="nav"><a href="/">首页</a></div><h1>{html.escape(title)}</h1>'
            f'<div class="date">2018-10-30 10:00</div><div class="article">{paragraphs}</div></body></html>').encode()


def build(articles: int, reprints: int) -> Catalog:
    catalog = Catalog()
    for doc in with_reprints(load_articles(articles), reprints, seed=11):
        url = URL_MAKERS["sina"](doc["id"])
        catalog.add(Page(url, "sina", 1, doc["title"], story=doc["id"].removesuffix("~r"),
                         body=page_html(doc["title"], doc["body"])))
    return catalog


def crawl(mirror_url: str, settings: dict[str, str]) -> tuple[float, dict]:
    with bench_server() as redis_url, tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-m", "news_crawler.cli.crawler", "crawl", "sina",
               "--summary", f"{out}/summary.json", "-s", f"REDIS_URL={redis_url}", "-s", f"FEED_DIR={out}",
               "-s", "LOG_LEVEL=WARNING", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=16"]
        for k, v in settings.items():
            cmd += ["-s", f"{k}={v}"]
        started = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                       env={**os.environ, **mirror_settings.environment(mirror_url)})
        took = time.perf_counter() - started
        return took, json.loads(Path(f"{out}/summary.json").read_text())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--articles", type=int, default=2000)
    ap.add_argument("--reprints", type=int, default=200)
    args = ap.parse_args()
    catalog = build(args.articles, args.reprints)
    mirror = Mirror(catalog)
    server = serve(mirror)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    print(f"mirror: {len(catalog.pages)} article pages ({args.articles} real sina articles, {args.reprints} reprints)")
    random.seed(0)
    modes = {
        "pipeline off (DEDUP_ENABLED=False)": {"DEDUP_ENABLED": "False"},
        "pipeline on, 1 fingerprint process": {"DEDUP_PROCESSES": "1"},
        "pipeline on, fingerprint thread": {"DEDUP_PROCESSES": "0"},
    }
    for name, settings in modes.items():
        took, summary = crawl(url, settings)
        row = summary["sites"]["sina"]
        print(f"{name:<38} {took:6.1f}s wall (process start included)  {row['fetched'] / took:6.1f} pages/s  "
              f"fetched {row['fetched']}, kept {row['kept']}, dropped {row['dropped']}, invalid {row['invalid']}")
    server.shutdown()


if __name__ == "__main__":
    main()
