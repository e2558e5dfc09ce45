"""The main job on a fresh machine: deduplicate a sample of real news with ``news-dedup check``.

Feeds the sina corpus articles that have natural near-duplicates, plus as many unrelated
ones, through the same ``check`` the CLI runs, on the embedded default Redis, in a
namespace of its own, then prints what was kept and what was dropped as a reprint of what.
"""

from __future__ import annotations

import argparse
import gzip
import json
import logging
import sys

from scrapy.settings import Settings

from news_crawler import connection
from news_crawler.cli.crawler import DATA
from news_crawler.cli.dedup import check
from news_crawler.engine import fingerprinter_from_settings, store_from_settings



def sample(limit_pairs: int) -> list[dict]:
    pairs = json.loads((DATA / "sina2018" / "neardup_pairs.json").read_text())["near_pairs"][:limit_pairs]
    wanted = {i for a, b, *_ in pairs for i in (a, b)}
    picked, others = [], []
    with gzip.open(DATA / "sina2018" / "articles.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            a = json.loads(line)
            if a["id"] in wanted:
                picked.append(a)
            elif len(others) < len(wanted):
                others.append(a)
    return picked + others


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=60, help="natural near-duplicate pairs to include")
    ap.add_argument("--namespace", default="demo")
    args = ap.parse_args(argv)
    logging.getLogger("jieba").setLevel(logging.WARNING)
    if not (DATA / "sina2018").is_dir():
        print(f"demo data not found at {DATA}; set NEWS_DATA to the shared data folder", file=sys.stderr)
        return 2

    settings = Settings()
    settings.setmodule("news_crawler.settings")
    settings.set("DEDUP_NAMESPACE", args.namespace)
    client = connection.from_settings(settings)
    store = store_from_settings(settings, client)
    for key in client.scan_iter(f"{args.namespace}:*", count=1000):
        client.delete(key)  # the demo starts from an empty namespace every time

    articles = sample(args.pairs)
    titles = {a["id"]: a["title"] for a in articles}
    lines = (json.dumps({"id": a["id"], "title": a["title"], "body": a["body"]}, ensure_ascii=False) for a in articles)
    results = list(check(lines, fingerprinter_from_settings(settings), store))

    dropped = [r for r in results if r.get("duplicate_of")]
    errors = [r for r in results if "error" in r]
    print(f"Redis: {connection.url_from_settings(settings)}  namespace: {args.namespace}")
    print(f"{len(results)} real sina articles: {len(results) - len(dropped) - len(errors)} kept, "
          f"{len(dropped)} dropped as near-duplicates, {len(errors)} unusable\n")
    for r in dropped:
        print(f"  dropped  {titles[r['id']][:34]:<34}  distance {r['distance']}  reprint of  "
              f"{titles[r['duplicate_of']][:34]}")
    for r in errors:
        print(f"  unusable {r['id']}: {r['error']}")
    print(f"\nInspect: news-dedup stats --namespace {args.namespace}; "
          f"news-dedup explain --namespace {args.namespace} --id {dropped[0]['id'] if dropped else '<id>'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
