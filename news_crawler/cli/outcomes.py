"""``news-crawler outcomes``: which URLs ended how, and why, newest first.

    news-crawler outcomes [--site S] [--outcome invalid|failed|...] [--day YYYY-MM-DD] [--limit N] [--json]

Every URL a crawl took from its queue has one recorded outcome (``outcomes/store.py``): kept,
duplicate, invalid (with the reason), gone, robots, failed, given_up or error. The counts
are in ``status``; this lists the URLs themselves, from the live days' hashes.
"""

from __future__ import annotations

import argparse
from datetime import date

from news_crawler.cli import options
from news_crawler.cli.argtypes import positive
from news_crawler.printable import json_line, printable

OUTCOMES = ("kept", "duplicate", "invalid", "gone", "robots", "failed", "given_up", "error")


def day(text: str) -> date:
    """An argparse type: a ``YYYY-MM-DD`` day."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a day as YYYY-MM-DD, got {text!r}") from None


def cmd_outcomes(args: argparse.Namespace) -> int:
    from news_crawler import connection
    from news_crawler.cli.runner import all_spider_names, unknown_spiders
    from news_crawler.outcomes.store import latest_outcomes

    settings = options.settings(args)
    if args.site:
        unknown_spiders([args.site], settings)
    connection.check_reachable(settings)
    spiders = [args.site] if args.site else all_spider_names(settings) + ["news"]
    found = latest_outcomes(connection.from_settings(settings), settings, spiders, args.outcome, args.day)
    for row in found[: args.limit]:
        if args.json:
            print(json_line(row))
        else:
            reason = f"  {printable(row['reason'])}" if row["reason"] else ""
            print(f"{row['time']}  {row['site']:<10} {row['outcome']:<9} {printable(row['url'], 2000)}{reason}")
    if not args.json:
        shown = min(len(found), args.limit)
        print(f"{shown} of {len(found)} URLs" + (" (--limit N for more)" if len(found) > shown else ""))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("outcomes", help="list URLs with their outcome and its reason, newest first")
    p.add_argument("--site", help="one site (spider) only; default: every configured site and news")
    p.add_argument("--outcome", choices=OUTCOMES, help="only URLs with this outcome")
    p.add_argument(
        "--day", type=day, help="only that day's outcomes (YYYY-MM-DD, a day of TIMEZONE); default: every live day"
    )
    p.add_argument("--limit", type=positive, default=50, help="print at most this many (default 50)")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    options.add_settings_option(p)
    p.set_defaults(func=cmd_outcomes)
