"""``news-crawler status`` (queues, dupefilters, seeds, the index, the last daily run) and
``news-crawler stop-server``."""

from __future__ import annotations

import argparse
from typing import Any, cast

from news_crawler.cli import options
from news_crawler.config import setting_path
from news_crawler.printable import json_line


def spider_status(client: Any, settings: Any, names: list[str]) -> dict[str, dict[str, Any]]:
    """Queued requests, seen URLs (estimated from the bitmaps with the Bloom dupefilter),
    pending seeds and today's outcomes of every spider that has any."""
    from scrapy.utils.misc import load_object

    from news_crawler.connection import spider_key
    from news_crawler.frontier.bloom import BloomDupeFilter
    from news_crawler.outcomes.store import OutcomeStore

    dupefilter = load_object(settings.get("DUPEFILTER_CLASS")) if settings.get("DUPEFILTER_CLASS") else None
    bloom = dupefilter if isinstance(dupefilter, type) and issubclass(dupefilter, BloomDupeFilter) else None
    out = {}
    for name in names:
        queue_key = spider_key(settings.get("SCHEDULER_QUEUE_KEY"), name, client)
        kind = client.type(queue_key)
        kind = kind.decode() if isinstance(kind, bytes) else kind
        queued = {"zset": client.zcard, "list": client.llen}.get(kind, lambda k: 0)(queue_key)
        in_flight = client.zcard(f"{queue_key}:inflight") if kind == "zset" else 0  # the leased queue's
        seen_key = spider_key(settings.get("SCHEDULER_DUPEFILTER_KEY"), name, client)
        seen, estimated = client.scard(seen_key), False
        if not seen and bloom is not None:  # the Bloom dupefilter's bitmaps: a count estimated from them
            seen, estimated = bloom(client, seen_key, **bloom.options(settings)).estimated_count(), True
        seeds = client.llen(spider_key(settings.get("SEED_KEY"), name, client))
        today = OutcomeStore.for_spider(client, settings, name).counts()
        if queued or in_flight or seen or seeds or today:
            out[name] = {
                "queued": queued,
                "in_flight": in_flight,
                "seen_urls": seen,
                "seeds": seeds,
                "outcomes_today": today,
            }
            if estimated:
                out[name]["seen_urls_estimated"] = True
    return out


def build_report(settings: Any) -> dict[str, Any]:
    from news_crawler import connection
    from news_crawler.cli.daily import last_run
    from news_crawler.crawl.runner import all_spider_names
    from news_crawler.dedup.from_settings import store_from_settings

    client = connection.from_settings(settings)
    index = store_from_settings(settings, client).report()
    report: dict[str, Any] = {
        "redis": connection.url_from_settings(settings).split("@")[-1],
        "redis_masters": len(cast(Any, client).get_primaries()) if connection.is_cluster(client) else 1,
        "spiders_asked": (asked := all_spider_names(settings) + ["news"]),
        "spiders": spider_status(client, settings, asked),
        "dedup": {k: v for k, v in index.items() if k != "redis_memory_bytes"},
        "redis_memory_bytes": index["redis_memory_bytes"],
    }
    daily = last_run(settings)
    if daily:
        report["last_daily_run"] = daily
    return report


def print_report(report: dict[str, Any]) -> None:
    masters = report.get("redis_masters", 1)
    print(
        f"Redis {report['redis']}{f' (a cluster of {masters} masters)' if masters > 1 else ''}, "
        f"{report['redis_memory_bytes'] / 2**20:.1f} MiB used; index namespace '{report['dedup']['namespace']}'; "
        f"spiders asked: {', '.join(report['spiders_asked'])}"
    )
    print(f"{'spider':<12}{'queued':>9}{'seen URLs':>11}{'seeds':>7}  today's outcomes")
    for name, row in report["spiders"].items():
        seen = f"~{row['seen_urls']}" if row.get("seen_urls_estimated") else str(row["seen_urls"])
        today = ", ".join(f"{n} {outcome}" for outcome, n in row["outcomes_today"].items()) or "-"
        print(f"{name:<12}{row['queued']:>9}{seen:>11}{row['seeds']:>7}  {today}")
    d = report["dedup"]
    print(
        f"near-duplicate index '{d['namespace']}': {d['fingerprints']} fingerprints, {d['kept']} kept, "
        f"{d['dropped']} dropped ({d['dropped_today']} today, {d.get('dropped_by_sentences', 0)} by the sentence rule)"
        + (f", kept {d['retention_days']:g} days" if d.get("retention_days") else "")
    )
    if "last_daily_run" in report:
        r = report["last_daily_run"]
        print(f"last daily run: {r['started']}, {r['seconds']}s, failed: {', '.join(r['failed']) or 'none'}")


def embedded_is_empty(settings: Any) -> bool:
    """No Redis named and the embedded server has never kept data: nothing to show, and no
    reason to start a server to say so."""
    from news_crawler import connection

    if connection.url_named(settings):
        return False
    directory = setting_path(settings, "EMBEDDED_REDIS_DIR")
    return not directory.is_dir() or not any(p.name.startswith("appendonly") for p in directory.iterdir())


def other_spider_keys(client: Any, limit: int = 2000) -> list[str]:
    """Dupefilter keys in Redis (``*:dupefilter``), for a hint when the keys asked for hold nothing."""
    found = []
    for n, key in enumerate(client.scan_iter(match="*:dupefilter", count=500)):
        found.append(key.decode() if isinstance(key, bytes) else key)
        if n >= limit:
            break
    return sorted(found)


def cmd_status(args: argparse.Namespace) -> int:
    settings = options.settings(args)
    if embedded_is_empty(settings):
        print(
            f"nothing crawled yet: the embedded Redis under {setting_path(settings, 'EMBEDDED_REDIS_DIR')} holds "
            "no data. "
            "Run a crawl (news-crawler crawl, scrapy crawl SITE) or name a server with REDIS_URL."
        )
        return 0
    report = build_report(settings)
    if args.json:
        print(json_line(report))
    else:
        print_report(report)
        if not report["spiders"]:
            print(empty_hint(settings))
    return 0


def empty_hint(settings: Any) -> str:
    from news_crawler import connection

    others = [k for k in other_spider_keys(connection.from_settings(settings))]
    hint = (
        f"no spider has anything under {settings.get('SCHEDULER_QUEUE_KEY')} / "
        f"{settings.get('SCHEDULER_DUPEFILTER_KEY')} in this Redis."
    )
    if others:
        return (
            f"{hint} Other crawls used other keys: {', '.join(others[:8])}; show them with the same -s "
            "settings (./run demo's: news-crawler status -s DEDUP_NAMESPACE=demo "
            "-s SCHEDULER_QUEUE_KEY=demo:%(spider)s:requests -s SCHEDULER_DUPEFILTER_KEY=demo:%(spider)s:dupefilter "
            "-s OUTCOMES_KEY=demo:%(spider)s:outcomes)."
        )
    return f"{hint} Run a crawl first: news-crawler crawl, or scrapy crawl SITE."


def cmd_stop_server(args: argparse.Namespace) -> int:
    from news_crawler.connection.embedded import stop_server

    directory = setting_path(options.settings(args), "EMBEDDED_REDIS_DIR")
    if stop_server(directory):
        print(f"stopped the embedded server of {directory} (its data stays on disk)")
    else:
        print(f"no embedded server runs for {directory}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("status", help="queues, dupefilters, today's outcomes, fingerprints, drops today, Redis memory")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    options.add_settings_option(p)
    p.set_defaults(func=cmd_status)
    p = sub.add_parser("stop-server", help="stop the embedded Redis (it keeps running between crawls)")
    options.add_settings_option(p)
    p.set_defaults(func=cmd_stop_server)
