"""``news-crawler seed``: push every configured site's start URLs for the cluster workers, once, every
N seconds, or every day at HH:MM (the compose file's seeder)."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from datetime import datetime, timedelta

from news_crawler.cli import options
from news_crawler.cli.argtypes import seconds


def seconds_until(hhmm: str, now: datetime | None = None) -> float:
    """Seconds from ``now`` (local time) to the next ``HH:MM``."""
    now = now or datetime.now()
    hour, minute = (int(x) for x in hhmm.split(":"))
    target = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if target <= now:
        target += timedelta(days=1)
    return (target - now).total_seconds()


def cmd_seed(args: argparse.Namespace) -> int:
    from news_crawler import connection
    from news_crawler.cli.runner import unknown_spiders
    from news_crawler.spiders.seeds import seed
    from news_crawler.spiders.sites import load_sites, sites_files

    # A container's first process ignores SIGTERM unless it handles it: docker stop ends it at once.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    settings = options.settings(args)
    sites = load_sites(sites_files(settings.get("SITES_FILE")))
    unknown_spiders([n for n in args.spiders if n not in sites], settings)  # a generic spider has no start pages here
    spiders = [s for s in sites.values() if not args.spiders or s.name in args.spiders]
    client = connection.from_settings(settings)
    while True:
        if args.at:
            wait = seconds_until(args.at)
            print(f"next seeding at {args.at} (in {wait / 3600:.1f} h)", flush=True)
            time.sleep(wait)
        pushed = seed(client, spiders, settings.get("SEED_KEY"))
        waiting = sorted(name for name, n in pushed.items() if not n)
        print(
            f"{time.strftime('%Y-%m-%dT%H:%M:%S')} seeded {sum(pushed.values())} start URLs of "
            f"{len(pushed) - len(waiting)} spiders"
            + (
                f"; not again for {', '.join(waiting)}: their last start URLs are still waiting for a worker"
                if waiting
                else ""
            ),
            flush=True,
        )
        if not args.every and not args.at:
            return 0
        if args.every:
            time.sleep(args.every)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("seed", help="push every configured site's start URLs for the cluster workers")
    p.add_argument("spiders", nargs="*", help="site names (default: every configured site)")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--every", type=seconds, default=0, help="seed now, then every this many seconds")
    when.add_argument("--at", type=options.hhmm, help="seed every day at this local time (HH:MM)")
    options.add_settings_option(p)
    p.set_defaults(func=cmd_seed)
