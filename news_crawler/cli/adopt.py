"""``news-crawler adopt SPIDER ...``: take over a scrapy-redis deployment's Redis keys.

Exit status 0 when every named spider can be crawled here without fetching again what
scrapy-redis fetched; 1 when something still needs the operator (pickled requests left
because ``--unpickle`` was not given, or the dupefilter setting to add); 3 when Redis fails.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import redis

from news_crawler.cli import options

UNPICKLE_HELP = (
    "convert pickled queued requests to JSON. Unpickling runs code: only for a Redis that nothing but "
    "your own scrapy-redis workers could write to"
)


def register(sub: Any) -> None:
    p = sub.add_parser(
        "adopt",
        help="take over a scrapy-redis deployment's queues and dupefilters",
        description="Take over a scrapy-redis deployment's queues and dupefilters in Redis, "
        "so that nothing scrapy-redis fetched is fetched again.",
    )
    p.add_argument("spiders", nargs="+", metavar="SPIDER", help="spider names, as in %%(spider)s of the keys")
    p.add_argument("--unpickle", action="store_true", help=UNPICKLE_HELP)
    options.add_settings_option(p)
    p.set_defaults(func=run)


def adopt_spider(client: Any, settings: Any, name: str, unpickle: bool) -> tuple[list[str], bool]:
    """What was found for spider ``name`` (lines to print), and whether it is all taken over."""
    from news_crawler.connection import spider_key
    from news_crawler.ops.adopt import convert_queue

    seen_key = spider_key(settings.get("SCHEDULER_DUPEFILTER_KEY"), name, client)
    seen = client.scard(seen_key) if client.type(seen_key) in (b"set", "set") else 0
    queue = convert_queue(client, spider_key(settings.get("SCHEDULER_QUEUE_KEY"), name, client), unpickle)
    lines, ok = [], True
    if seen:
        mode_ok = settings.get("DUPEFILTER_FINGERPRINT") == "scrapy-redis"
        lines.append(
            f"{name}: dupefilter {seen_key}: {seen} fingerprints kept"
            + (
                ""
                if mode_ok
                else '; set DUPEFILTER_FINGERPRINT = "scrapy-redis" in your settings, '
                "or every URL in it is fetched again"
            )
        )
        ok &= mode_ok
    if queue.kind not in ("zset", "list", "none"):
        lines.append(f"{name}: {queue.key} is a {queue.kind}, not a request queue: left alone")
        return lines, False
    if queue.pickled and not unpickle:
        lines.append(
            f"{name}: queue {queue.key}: {queue.pickled} pickled requests left as they are "
            f"(and {queue.json} JSON); run again with --unpickle to convert them"
        )
    elif queue.kind != "none":
        lines.append(
            f"{name}: queue {queue.key}: {queue.json + queue.converted} requests queued as JSON "
            f"({queue.converted} converted from pickles, {queue.unreadable} unreadable moved to "
            f"{queue.key}:unreadable)"
        )
    return lines, ok and queue.done


def run(args: argparse.Namespace) -> int:
    from news_crawler import connection
    from news_crawler.ops.adopt import QueueChanged

    settings = options.settings(args)
    all_ok = True
    try:
        client = connection.from_settings(settings)
        for name in args.spiders:
            lines, ok = adopt_spider(client, settings, name, args.unpickle)
            print("\n".join(lines or [f"{name}: nothing of scrapy-redis' in Redis"]))
            all_ok &= ok
    except QueueChanged as e:
        print(f"news-crawler adopt: {e}", file=sys.stderr)
        return 1
    except redis.RedisError as e:
        print(f"news-crawler adopt: Redis failed: {e}", file=sys.stderr)
        return 3
    return 0 if all_ok else 1
