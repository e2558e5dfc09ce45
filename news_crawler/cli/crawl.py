"""``news-crawler crawl`` and ``news-crawler worker``: run spiders until done, then a summary."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from news_crawler.cli import options
from news_crawler.crawl.summary import format_table


def run_and_report(
    names: list[str],
    overrides: dict[str, Any],
    summary_path: str | None,
    spider_args: dict[str, str] | None = None,
    stop_at: float | None = None,
) -> int:
    from news_crawler.cli.runner import all_spider_names, merge_sites, run_spiders
    from news_crawler.config import build_settings, setting_path

    names = names or all_spider_names(build_settings(overrides))
    if summary_path:  # before the crawl: a summary that cannot be written must not waste one
        Path(summary_path).parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    results = run_spiders(names, overrides, spider_args, stop_at)
    sites = merge_sites(results)
    print(format_table(sites))
    print(f"articles: {setting_path(build_settings(overrides), 'FEED_DIR')}/<site>/ (FEED_DIR)")
    failed = [name for name, r in results.items() if r["problem"]]
    if summary_path:
        record = {"spiders": results, "sites": sites, "seconds": round(time.monotonic() - started, 1), "failed": failed}
        Path(summary_path).parent.mkdir(parents=True, exist_ok=True)
        Path(summary_path).write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
    for name in failed:
        print(f"news-crawler: {name}: {results[name]['problem']}", file=sys.stderr)
    return 1 if failed else 0


def cmd_crawl(args: argparse.Namespace) -> int:
    return run_and_report(args.spiders, options.overrides(args), args.summary, options.spider_args(args))


def cmd_worker(args: argparse.Namespace) -> int:
    extra: dict[str, Any] = {"SEED_FROM_REDIS": True}
    if args.idle is not None:
        extra["WORKER_IDLE_SECONDS"] = args.idle
    return run_and_report(args.spiders, options.overrides(args, **extra), args.summary)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "crawl", help="run spiders (every configured site by default) until done, print a per-site summary"
    )
    p.add_argument("spiders", nargs="*", help="site names, or news with -a (default: every configured site)")
    p.add_argument("--summary", help="write the summary as JSON to this file")
    p.add_argument(
        "-a",
        dest="spider_args",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a spider argument, as for scrapy crawl (-a start_urls=URL -a allow=REGEX for news)",
    )
    options.add_settings_option(p)
    p.set_defaults(func=cmd_crawl)

    p = sub.add_parser("worker", help="a cluster worker: crawl seeded start pages from the shared queue")
    p.add_argument("spiders", nargs="*", help="site names (default: every configured site)")
    p.add_argument("--summary", help="write the summary as JSON to this file")
    p.add_argument("--idle", type=float, help="stop after this many idle seconds (0: never)")
    options.add_settings_option(p)
    p.set_defaults(func=cmd_worker)
