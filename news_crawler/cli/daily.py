"""``news-crawler daily``: the cron job. Every portal (or ``DAILY_SPIDERS``), under a lock,
logged to ``DAILY_DIR/logs/<date>.log``, summarised to ``DAILY_DIR/summaries/<time>.json``.

Exit codes: 0 done; 1 a site failed (its spider did not finish, not one of its start pages
could be fetched, or a callback or pipeline raised); 75 (EX_TEMPFAIL) another daily run
holds the lock.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from news_crawler.cli import options
from news_crawler.config import file_stamp, setting_path, zone
from news_crawler.crawl.summary import format_table

EX_TEMPFAIL = 75


def site_failures(results: dict[str, dict[str, Any]]) -> list[str]:
    """Spiders that did not finish, fetched none of their start pages, saw every request
    fail, or met errors (``summary.crawl_problem``)."""
    return [name for name, result in results.items() if result["problem"]]


def take_lock(path: Path, now: datetime) -> tuple[IO[str] | None, str]:
    """``(held lock file, "")``, or ``(None, the holder's note)`` when another run holds it."""
    lock = open(path, "a+")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        holder = lock.read().strip()
        lock.close()
        return None, holder
    lock.seek(0)
    lock.truncate()
    lock.write(f"pid {os.getpid()} since {now.isoformat(timespec='seconds')}")
    lock.flush()
    return lock, ""


def cmd_daily(args: argparse.Namespace) -> int:
    from news_crawler.cli.runner import all_spider_names, merge_sites, run_spiders

    overrides = options.overrides(args)
    settings = options.settings(args)
    directory = setting_path(settings, "DAILY_DIR")
    for sub in ("logs", "summaries"):
        (directory / sub).mkdir(parents=True, exist_ok=True)
    now = datetime.now(zone(settings))
    log_file = directory / "logs" / f"{now.date().isoformat()}.log"
    lock, holder = take_lock(directory / "daily.lock", now)
    if lock is None:
        message = (
            f"{now.isoformat(timespec='seconds')} skipped: another daily run holds "
            f"{directory / 'daily.lock'} ({holder})"
        )
        with open(log_file, "a", encoding="utf-8") as f:
            f.write(message + "\n")
        print(f"news-crawler: {message}", file=sys.stderr)
        return EX_TEMPFAIL

    names = settings.getlist("DAILY_SPIDERS") or all_spider_names(settings)
    overrides.update(LOG_FILE=str(log_file), LOG_FILE_APPEND=True, LOG_LEVEL=overrides.get("LOG_LEVEL", "INFO"))
    started = time.monotonic()
    results = run_spiders(names, overrides)
    failed = site_failures(results)
    sites = merge_sites(results)
    summary = {
        "started": now.isoformat(timespec="seconds"),
        "seconds": round(time.monotonic() - started, 1),
        "sites": sites,
        "spiders": {name: r["reason"] for name, r in results.items()},
        "failed": failed,
        "exit": 1 if failed else 0,
        "log": str(log_file),
    }
    path = directory / "summaries" / f"{file_stamp(now)}.json"  # UTC, as the feed files' names
    path.write_text(json.dumps(summary, ensure_ascii=False, indent=1), encoding="utf-8")
    print(format_table(sites))
    print(f"articles: {setting_path(settings, 'FEED_DIR')}/<site>/ (FEED_DIR)")
    print(f"{summary['seconds']}s; summary {path}; log {log_file}")
    try:
        from news_crawler.cli.report import write_report

        print(f"report {write_report(settings)[-1]}")
    except Exception as e:  # noqa: BLE001 - the crawl is done and recorded: a report that fails does not fail it
        print(f"news-crawler: the daily report could not be written ({type(e).__name__}: {e})", file=sys.stderr)
    if failed:
        print(f"news-crawler: failed: {', '.join(failed)} (see {log_file})", file=sys.stderr)
        return 1
    return 0


def last_run(settings: Any) -> dict[str, Any] | None:
    """``started``, ``seconds``, ``failed`` and ``exit`` (its exit status) of the newest daily
    summary, if any."""
    summaries = sorted((setting_path(settings, "DAILY_DIR") / "summaries").glob("*.json"))
    if not summaries:
        return None
    last = json.loads(summaries[-1].read_text(encoding="utf-8"))
    return {
        "started": last["started"],
        "seconds": last["seconds"],
        "failed": last["failed"],
        "exit": last.get("exit", 1 if last["failed"] else 0),
    }


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("daily", help="the daily run for cron: every portal, locked, logged, summarised")
    options.add_settings_option(p)
    p.set_defaults(func=cmd_daily)
