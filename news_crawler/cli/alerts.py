"""``news-crawler alerts``: the site alerts and recoveries sent, newest first (docs/alerts.md).

news-crawler alerts [--site S] [--since ISO8601] [--json]
"""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import Any

from news_crawler.cli import options
from news_crawler.cli.recheck import since
from news_crawler.printable import json_line, printable


def sent_alerts(settings: Any, spiders: list[str], after: datetime | None) -> list[dict[str, Any]]:
    """What every spider's sites were sent since ``after``, newest first."""
    from news_crawler import connection
    from news_crawler.ops.health import HealthLog

    client = connection.from_settings(settings)
    entries = [e for name in spiders for e in HealthLog.for_spider(client, settings, name).sent(after)]
    return sorted(entries, key=lambda e: e["run_at"], reverse=True)


def cmd_alerts(args: argparse.Namespace) -> int:
    from news_crawler.cli.runner import all_spider_names

    settings = options.settings(args)
    entries = sent_alerts(settings, all_spider_names(settings) + ["news"], args.since)
    if args.site:
        entries = [e for e in entries if e["site"] == args.site]
    for e in entries:
        if args.json:
            print(json_line(e))
            continue
        channels = ", ".join(f"{name} {result}" for name, result in e.get("channels", {}).items()) or "no channel set"
        print(
            f"{e['run_at']}  {printable(e['site'], 30)}  {e['status']} {e['kind']}: {printable(e['detail'], 300)}"
            f"  [{printable(channels, 300)}]"
        )
    if not entries and not args.json:
        print("no alerts sent" + (f" since {args.since.isoformat()}" if args.since else ""))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("alerts", help="the site alerts and recoveries sent (by webhook and email), newest first")
    p.add_argument("--site", help="one site")
    p.add_argument("--since", type=since, help="only those since this time (ISO 8601)")
    p.add_argument("--json", action="store_true", help="one JSON object a line")
    options.add_settings_option(p)
    p.set_defaults(func=cmd_alerts)
