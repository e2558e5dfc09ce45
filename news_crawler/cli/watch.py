"""``news-crawler watch``: crawl continuously, each start page revisited as often as it changes.

    news-crawler watch [SITE ...] [--for SECONDS] [--summary FILE] [-s NAME=VALUE ...]

Runs until SIGTERM or SIGINT (or for SECONDS, then exits 0): every site's start pages are
visited on the shared schedule in Redis (``frontier/revisits``), and the new articles they
show are fetched at once, through the same queue, leases, index, outcomes and feed as
``crawl``. Any number of watchers, on any machines, share the schedule. At the end it prints
the per-site summary of what it did, as ``crawl`` does.
"""

from __future__ import annotations

import argparse
import time

from news_crawler.cli import options
from news_crawler.cli.crawl import run_and_report


def seconds(text: str) -> float:
    """An argparse type: a number of seconds above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, got {text!r}")
    return value


def cmd_watch(args: argparse.Namespace) -> int:
    stop_at = time.monotonic() + args.duration if args.duration else None
    return run_and_report(
        args.spiders,
        options.overrides(args, WATCH=True),
        args.summary,
        stop_at=stop_at,
        verbose=args.verbose,
        command="watch",
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "watch",
        help="crawl until stopped: each start page revisited as often as it shows new links (REVISIT_MIN..MAX)",
    )
    p.add_argument("spiders", nargs="*", help="site names (default: every configured site)")
    p.add_argument("--for", dest="duration", type=seconds, metavar="SECONDS", help="stop after this many seconds")
    p.add_argument("--summary", help="write the summary as JSON to this file")
    options.add_settings_option(p)
    options.add_verbose_option(p)
    p.set_defaults(func=cmd_watch)
