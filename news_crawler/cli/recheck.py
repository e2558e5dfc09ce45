"""``news-crawler recheck`` (kept articles fetched again when due), ``news-crawler changes``
(the edits and deletions they found) and ``news-crawler history`` (one article's versions).

    news-crawler recheck [SITE ...] [--summary FILE]
    news-crawler changes [--site S] [--since ISO8601] [--json]
    news-crawler history URL
"""

from __future__ import annotations

import argparse
import difflib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from news_crawler.cli import options
from news_crawler.cli.crawl import run_and_report
from news_crawler.errors import UserError
from news_crawler.printable import json_line, printable


def cmd_recheck(args: argparse.Namespace) -> int:
    return run_and_report(
        args.spiders, options.overrides(args, RECHECK=True), args.summary, verbose=args.verbose, command="recheck"
    )


def since(text: str) -> datetime:
    """An argparse type: an ISO 8601 time (a day alone is its start; no zone: UTC)."""
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an ISO 8601 time such as 2026-11-27T08:00, got {text!r}") from None
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def changes(settings: Any, sites: list[str], after: datetime | None) -> list[dict[str, Any]]:
    """The events of ``sites``, newest first, since ``after``."""
    from news_crawler import connection
    from news_crawler.outcomes.changes import ChangeLog

    client = connection.from_settings(settings)
    events = [e for name in sites for e in ChangeLog.for_spider(client, settings, name).read()]
    if after is not None:
        events = [e for e in events if datetime.fromisoformat(e["at"]) >= after]
    return sorted(events, key=lambda e: e["at"], reverse=True)


def cmd_changes(args: argparse.Namespace) -> int:
    from news_crawler.cli.runner import all_spider_names, unknown_spiders

    settings = options.settings(args)
    names = all_spider_names(settings)
    if args.site:
        unknown_spiders([args.site], settings)
        names = [args.site]
    events = changes(settings, names, args.since)
    for event in events:
        if args.json:
            print(json_line(event))
        else:
            what = (
                event["reason"]
                if event["event"] != "edited"
                else f"version {event['version']}: {', '.join(event['changed'])}"
            )
            print(
                f"{event['at']}  {event['event']:<10} {event['site']:<12} "
                f"{printable(event['url'], 200)}  {printable(what, 200)}"
            )
    if not events and not args.json:
        print(
            "no edits, deletions or superseded articles recorded"
            + (f" since {args.since.isoformat()}" if args.since else "")
        )
    return 0


def versions(feed_dir: Path, url: str) -> list[dict[str, Any]]:
    """Every feed line of ``url`` under ``feed_dir`` (its versions), oldest first."""
    found = []
    for path in sorted(feed_dir.glob("*/*.jsonl")):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if url in line:  # cheap before the parse
                    item = json.loads(line)
                    if item.get("url") == url:
                        found.append(item)
    return sorted(found, key=lambda i: (int(i.get("version") or 1), str(i.get("crawled_at"))))


def cmd_history(args: argparse.Namespace) -> int:
    from news_crawler.cli.runner import all_spider_names
    from news_crawler.config import setting_path

    settings = options.settings(args)
    feed_dir = setting_path(settings, "FEED_DIR")
    found = versions(feed_dir, args.url)
    if not found:
        raise UserError(f"no version of {printable(args.url, 200)} in the feed files under {feed_dir} (FEED_DIR)")
    before: dict[str, Any] | None = None
    for item in found:
        print(
            f"version {item.get('version') or 1}, crawled {item.get('crawled_at')}: {printable(item.get('title'), 200)}"
        )
        if before is not None:
            old = [f"title: {before.get('title')}", *str(before.get("body") or "").splitlines()]
            new = [f"title: {item.get('title')}", *str(item.get("body") or "").splitlines()]
            for line in difflib.unified_diff(old, new, "before", "after", lineterm="", n=1):
                print("  " + printable(line, 1000))
        before = item
    deleted = [
        e
        for e in changes(settings, all_spider_names(settings), None)
        if e["url"] == args.url and e["event"] == "deleted"
    ]
    for event in deleted:
        print(f"deleted {event['at']}: {printable(event['reason'], 300)}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("recheck", help="fetch the kept articles whose recheck is due (RECHECK_AFTER): edits, deletions")
    p.add_argument("spiders", nargs="*", help="site names (default: every configured site)")
    p.add_argument("--summary", help="write the summary as JSON to this file")
    options.add_settings_option(p)
    options.add_verbose_option(p)
    p.set_defaults(func=cmd_recheck)
    p = sub.add_parser("changes", help="the edits and deletions rechecks found, and superseded articles, newest first")
    p.add_argument("--site", help="one site")
    p.add_argument("--since", type=since, help="only those since this time (ISO 8601)")
    p.add_argument("--json", action="store_true", help="one JSON object a line")
    options.add_settings_option(p)
    p.set_defaults(func=cmd_changes)
    p = sub.add_parser("history", help="one article's versions in the feed, each with a diff of its text")
    p.add_argument("url", help="the article's URL")
    options.add_settings_option(p)
    p.set_defaults(func=cmd_history)
