"""Deduplicate a sample of real news with ``news-dedup check``'s own code: the sina corpus
articles that have natural near-duplicates, plus as many unrelated ones, on the embedded
default Redis, in a namespace of its own; then what was dropped as a reprint of what."""

from __future__ import annotations

import gzip
import json

from news_crawler import connection
from news_crawler.cli.check import check
from news_crawler.config import build_settings
from news_crawler.dedup.from_settings import fingerprinter_from_settings, store_from_settings
from news_mirror.data import SHIPPED_DATA

NAMESPACE = "dedup-demo"


def sample(limit_pairs: int) -> list[dict]:
    pairs = json.loads(SHIPPED_DATA.sina_pairs.read_text())["near_pairs"][:limit_pairs]
    wanted = {i for a, b, *_ in pairs for i in (a, b)}
    picked, others = [], []
    with gzip.open(SHIPPED_DATA.sina_corpus, "rt", encoding="utf-8") as f:
        for line in f:
            a = json.loads(line)
            if a["id"] in wanted:
                picked.append(a)
            elif len(others) < len(wanted):
                others.append(a)
    return picked + others


def main(pairs: int = 60) -> int:
    articles = sample(pairs)
    settings = build_settings({"DEDUP_NAMESPACE": NAMESPACE})
    client = connection.from_settings(settings)
    for key in client.scan_iter(f"{NAMESPACE}:*", count=1000):
        client.delete(key)  # the demo starts from an empty namespace every time
    store = store_from_settings(settings, client)

    titles = {a["id"]: a["title"] for a in articles}
    lines = (json.dumps({"id": a["id"], "title": a["title"], "body": a["body"]}, ensure_ascii=False) for a in articles)
    results = list(check(lines, fingerprinter_from_settings(settings), store))

    dropped = [r for r in results if r.get("duplicate_of")]
    errors = [r for r in results if "error" in r]
    print(f"Redis: {connection.url_from_settings(settings)}  namespace: {NAMESPACE}")
    print(
        f"{len(results)} real sina articles: {len(results) - len(dropped) - len(errors)} kept, "
        f"{len(dropped)} dropped as near-duplicates, {len(errors)} unusable\n"
    )
    for r in dropped:
        print(
            f"  dropped  {titles[r['id']][:34]:<34}  {r['rule']:<9} distance {r['distance']:>2}  reprint of  "
            f"{titles[r['duplicate_of']][:34]}"
        )
    for r in errors:
        print(f"  unusable {r['id']}: {r['error']}")
    print(
        f"\nInspect: news-dedup stats --namespace {NAMESPACE}; "
        f"news-dedup explain --namespace {NAMESPACE} --id {dropped[0]['id'] if dropped else '<id>'}"
    )
    return 0
