"""``news-crawler report``: the daily HTML report on demand (``news-crawler daily`` writes one
after every run): ``DAILY_DIR/reports/<date>.html`` and ``latest.html``, or ``--out FILE``.

    news-crawler report [--days N] [--out FILE]
"""

from __future__ import annotations

import argparse
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from news_crawler.cli import options
from news_crawler.config import setting_path

KEEP_DAYS = 90  # dated reports older than this are deleted when a new one is written


def write_report(settings: Any, days: int = 30, out: str | None = None) -> list[Path]:
    """Render the report from Redis and write it; returns the files written."""
    from news_crawler import connection
    from news_crawler.cli.runner import all_spider_names
    from news_crawler.dedup.from_settings import store_from_settings
    from news_crawler.ops.report import gather, render

    connection.check_reachable(settings)
    client = connection.from_settings(settings)
    data = gather(
        client,
        settings,
        all_spider_names(settings) + ["news"],
        store_from_settings(settings, client, reader=True),
        days,
    )
    page = render(data)
    if out:
        paths = [Path(out)]
    else:
        folder = setting_path(settings, "DAILY_DIR") / "reports"
        paths = [folder / f"{data.today.isoformat()}.html", folder / "latest.html"]
        prune(folder, data.today)
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page, encoding="utf-8")
    return paths


def prune(folder: Path, today: date) -> None:
    """Dated reports older than ``KEEP_DAYS`` go: the folder stays bounded."""
    oldest = (today - timedelta(days=KEEP_DAYS)).isoformat()
    for path in folder.glob("????-??-??.html") if folder.is_dir() else []:
        if path.stem < oldest:
            path.unlink()


def cmd_report(args: argparse.Namespace) -> int:
    for path in write_report(options.settings(args), args.days, args.out):
        print(path)
    return 0


def days(text: str) -> int:
    """An argparse type: a number of days from 1 to 90."""
    if not text.strip().isdigit() or not 1 <= int(text) <= 90:
        raise argparse.ArgumentTypeError(f"expected a whole number of days from 1 to 90, got {text!r}")
    return int(text)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="the daily HTML report: per site today and the last days, drops, failures")
    p.add_argument(
        "--days",
        type=days,
        default=30,
        metavar="N",
        help="days the charts show (1-90, default 30; Redis keeps OUTCOMES_KEEP_DAYS of them)",
    )
    p.add_argument("--out", help="write it here (default: DAILY_DIR/reports/<date>.html and latest.html)")
    options.add_settings_option(p)
    p.set_defaults(func=cmd_report)
