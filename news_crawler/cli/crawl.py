"""``news-crawler crawl`` and ``news-crawler worker``: run spiders until done, then a summary."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from news_crawler.cli import options
from news_crawler.crawl.summary import format_table
from news_crawler.printable import printable


def run_and_report(
    names: list[str],
    overrides: dict[str, Any],
    summary_path: str | None,
    spider_args: dict[str, str] | None = None,
    stop_at: float | None = None,
    verbose: bool = False,
    command: str = "crawl",
) -> int:
    """Run the spiders, then print the per-site table and what each sink took. Unless
    ``verbose`` (or ``LOG_LEVEL``/``LOG_FILE`` given), Scrapy's log goes to a file of its own
    under ``LOG_DIR`` and the terminal gets a progress line instead."""
    from news_crawler.cli.runner import all_spider_names, merge_sites, run_spiders
    from news_crawler.config import build_settings

    settings = build_settings(overrides)
    names = names or all_spider_names(settings)
    if summary_path:  # before the crawl: a summary that cannot be written must not waste one
        Path(summary_path).parent.mkdir(parents=True, exist_ok=True)
    log_file = None if verbose or full_log_asked(overrides) else quiet_log(settings, command)
    announce = ""
    if log_file is not None:
        overrides = {**overrides, "LOG_FILE": str(log_file), "LOG_FILE_APPEND": False, "LOG_LEVEL": "INFO"}
        announce = f"{command}: {', '.join(names)}; Scrapy's log: {log_file} (-v shows it here)"
    started = time.monotonic()
    results = run_spiders(names, overrides, spider_args, stop_at, progress=log_file is not None, announce=announce)
    sites = merge_sites(results)
    print(format_table(sites))
    for line in sink_lines(settings, results):
        print(line)
    if log_file is not None:
        print(f"log: {log_file}")
    failed = [name for name, r in results.items() if r["problem"]]
    if summary_path:
        record = {"spiders": results, "sites": sites, "seconds": round(time.monotonic() - started, 1), "failed": failed}
        Path(summary_path).parent.mkdir(parents=True, exist_ok=True)
        Path(summary_path).write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
    for name in failed:
        problem = results[name]["problem"]
        if log_file is not None:
            problem = problem.replace("see the log", f"see {log_file}")
        print(f"news-crawler: {name}: {problem}", file=sys.stderr)
    return 1 if failed else 0


def full_log_asked(overrides: dict[str, Any]) -> bool:
    """Whether the command line or the environment asks for Scrapy's log (``LOG_LEVEL``,
    ``LOG_FILE``): then it goes where Scrapy sends it, as it always did."""
    return any(name in overrides or os.environ.get(name) for name in ("LOG_LEVEL", "LOG_FILE"))


def quiet_log(settings: Any, command: str) -> Path:
    """A new log file for this run under ``LOG_DIR``; files older than ``LOG_KEEP_DAYS`` go."""
    from news_crawler.config import file_stamp, setting_path

    folder = setting_path(settings, "LOG_DIR")
    folder.mkdir(parents=True, exist_ok=True)
    keep = settings.getint("LOG_KEEP_DAYS")
    if keep > 0:
        oldest = time.time() - keep * 86_400
        for old in folder.glob("*.log"):
            with contextlib.suppress(OSError):  # another run's, removed meanwhile
                if old.stat().st_mtime < oldest:
                    old.unlink()
    return folder / f"{command}-{file_stamp(datetime.now(UTC))}-{os.getpid()}.log"


def sink_lines(settings: Any, results: dict[str, dict[str, Any]]) -> list[str]:
    """Where the articles went, one line a configured sink, with what it took this run."""
    from news_crawler.config import setting_path

    took: dict[str, int] = {}
    for result in results.values():
        for sink, n in result.get("sinks", {}).items():
            took[sink] = took.get(sink, 0) + n
    lines = [f"{took.get('feed', 0):>7} articles to {setting_path(settings, 'FEED_DIR')}/<site>/ (FEED_DIR)"]
    if settings.get("DATABASE_URL"):
        where = database_place(str(settings.get("DATABASE_URL")))
        lines.append(f"{took.get('postgres', 0):>7} rows to PostgreSQL table articles at {where} (DATABASE_URL)")
    stream = str(settings.get("ITEMS_REDIS_STREAM") or "")
    if stream:
        lines.append(
            f"{took.get('redis_stream', 0):>7} entries to Redis stream {printable(stream % {'spider': '<site>'}, 100)}"
        )
    listed = str(settings.get("ITEMS_REDIS_KEY") or settings.get("REDIS_ITEMS_KEY") or "")
    if listed:
        lines.append(
            f"{took.get('redis_list', 0):>7} items to Redis list {printable(listed % {'spider': '<site>'}, 100)}"
        )
    feeds = settings.getdict("FEEDS")
    if feeds:
        named = printable(", ".join(map(str, feeds)), 200)
        lines.append(f"{took.get('scrapy_feeds', 0):>7} items to FEEDS {named}")
    return lines


def database_place(url: str) -> str:
    """``host:port/database`` of a PostgreSQL URL, never its user or password."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        return "DATABASE_URL's server"
    try:
        host = f"{parts.hostname or 'localhost'}:{parts.port or 5432}"
    except ValueError:
        host = parts.hostname or "localhost"
    return printable(f"{host}{parts.path or '/'}", 120)


def cmd_crawl(args: argparse.Namespace) -> int:
    return run_and_report(
        args.spiders, options.overrides(args), args.summary, options.spider_args(args), verbose=args.verbose
    )


def cmd_worker(args: argparse.Namespace) -> int:
    extra: dict[str, Any] = {"SEED_FROM_REDIS": True}
    if args.idle is not None:
        extra["WORKER_IDLE_SECONDS"] = args.idle
    return run_and_report(
        args.spiders, options.overrides(args, **extra), args.summary, verbose=args.verbose, command="worker"
    )


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
    options.add_verbose_option(p)
    p.set_defaults(func=cmd_crawl)

    p = sub.add_parser("worker", help="a cluster worker: crawl seeded start pages from the shared queue")
    p.add_argument("spiders", nargs="*", help="site names (default: every configured site)")
    p.add_argument("--summary", help="write the summary as JSON to this file")
    p.add_argument("--idle", type=float, help="stop after this many idle seconds (0: never)")
    options.add_settings_option(p)
    options.add_verbose_option(p)
    p.set_defaults(func=cmd_worker)
