"""``news-crawler crawl`` and ``news-crawler worker``: run spiders until done, then a summary."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from news_crawler.cli import options
from news_crawler.summary import format_table


def run_and_report(names: list[str], overrides: dict[str, Any], summary_path: str | None) -> int:
    from news_crawler.runner import all_spider_names, merge_sites, run_spiders

    known = all_spider_names() + ["news"]
    unknown = sorted(set(names) - set(known))
    if unknown:
        print(f"news-crawler: unknown spider(s) {', '.join(unknown)}; known: {', '.join(known)}", file=sys.stderr)
        return 2
    started = time.monotonic()
    results = run_spiders(names, overrides)
    sites = merge_sites(results)
    print(format_table(sites))
    failed = [name for name, r in results.items()
              if r["reason"] != "finished" or any(row.get("errors") for row in r["sites"].values())]
    if summary_path:
        record = {"spiders": results, "sites": sites, "seconds": round(time.monotonic() - started, 1),
                  "failed": failed}
        Path(summary_path).parent.mkdir(parents=True, exist_ok=True)
        Path(summary_path).write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
    if failed:
        print(f"news-crawler: spiders that did not finish or met errors: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def cmd_crawl(args: argparse.Namespace) -> int:
    from news_crawler.runner import all_spider_names

    return run_and_report(args.spiders or all_spider_names(), options.overrides(args), args.summary)


def cmd_worker(args: argparse.Namespace) -> int:
    from news_crawler.runner import all_spider_names

    extra: dict[str, Any] = {"SEED_FROM_REDIS": True}
    if args.idle is not None:
        extra["WORKER_IDLE_SECONDS"] = args.idle
    return run_and_report(args.spiders or all_spider_names(), options.overrides(args, **extra), args.summary)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("crawl", help="run spiders (all portals by default) until done, print a per-site summary")
    p.add_argument("spiders", nargs="*", help="spider names (default: every portal)")
    p.add_argument("--summary", help="write the summary as JSON to this file")
    options.add_settings_option(p)
    p.set_defaults(func=cmd_crawl)

    p = sub.add_parser("worker", help="a cluster worker: crawl seeded start pages from the shared queue")
    p.add_argument("spiders", nargs="*", help="spider names (default: every portal)")
    p.add_argument("--summary", help="write the summary as JSON to this file")
    p.add_argument("--idle", type=float, help="stop after this many idle seconds (0: never)")
    options.add_settings_option(p)
    p.set_defaults(func=cmd_worker)
