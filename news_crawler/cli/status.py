"""``news-crawler status`` (queues, dupefilters, seeds, watched start pages, discovery latency,
the index, the last daily run) and ``news-crawler stop-server``."""

from __future__ import annotations

import argparse
from typing import Any, cast

from news_crawler.cli import options
from news_crawler.config import setting_path
from news_crawler.printable import json_line, printable


def spider_status(client: Any, settings: Any, names: list[str]) -> dict[str, dict[str, Any]]:
    """Queued requests, seen URLs (estimated from the bitmaps with the Bloom dupefilter),
    pending seeds and today's outcomes of every spider that has any."""
    from scrapy.utils.misc import load_object

    from news_crawler.connection import spider_key
    from news_crawler.frontier.bloom import BloomDupeFilter
    from news_crawler.frontier.revisits.rechecks import RecheckSchedule
    from news_crawler.ops.health import HealthLog
    from news_crawler.outcomes.changes import ChangeLog
    from news_crawler.outcomes.latency import LatencyLog
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
        store = OutcomeStore.for_spider(client, settings, name)
        today = store.counts()
        watched = watched_pages(client, settings, name)
        latency = LatencyLog.for_spider(client, settings, name)
        log = ChangeLog.for_spider(client, settings, name)
        changes, changes_today = log.counts(), log.counts(log.today())
        rechecks_due = RecheckSchedule.for_spider(client, settings, name).due()
        health = site_health(HealthLog.for_spider(client, settings, name))
        if queued or in_flight or seen or seeds or today or watched or health:
            out[name] = {
                "queued": queued,
                "in_flight": in_flight,
                "seen_urls": seen,
                "seeds": seeds,
                "outcomes_today": today,
                "watched": watched,
                "latency_today": latency_row(latency.histogram(store.today())),
                "latency": latency_row(latency.histogram(), buckets=True),
                "changes": changes,  # edits and deletions rechecks found, all told
                "changes_today": changes_today,
                "rechecks_due": rechecks_due,
                "health": health,
            }
            if estimated:
                out[name]["seen_urls_estimated"] = True
    return out


def site_health(log: Any) -> dict[str, dict[str, Any]]:
    """Each site's health: its last run's time, the kinds judged then, and its open alerts
    (``{kind: {"since", "detail"}}``); ``judged`` empty: too few runs to judge yet."""
    open_alerts = log.open_alerts()
    out = {}
    for site, last in sorted(log.last_runs().items()):
        out[site] = {
            "at": last["at"],
            "judged": last["judged"],
            "alerts": {kind: a for (s, kind), a in sorted(open_alerts.items()) if s == site},
        }
    return out


def watched_pages(client: Any, settings: Any, name: str) -> list[dict[str, Any]]:
    """The start pages ``news-crawler watch`` revisits for spider ``name``: each one's interval,
    seconds to its next visit, new links a day and visits by result (none when not watched)."""
    from news_crawler.frontier.revisits import RevisitSchedule

    schedule = RevisitSchedule.for_spider(client, settings, name)
    pages = schedule.pages()
    if not pages:
        return []
    now = schedule.now()
    return [
        {
            "url": page.url,
            "interval": round(page.state.interval, 1) if page.state else None,
            "next_in": round(page.due - now, 1),
            "new_links_per_day": round(page.state.per_day(now), 1) if page.state else None,
            "visits": page.state.results if page.state else {},
        }
        for page in pages
    ]


def latency_row(histogram: Any, buckets: bool = False) -> dict[str, Any]:
    """Articles, median and 90th percentile seconds of a latency histogram; with ``buckets``,
    its seconds added up and its cumulative buckets too (``[upper bound, articles]``, the last
    bound ``"+Inf"``), as Prometheus shows a histogram."""
    row: dict[str, Any] = {
        "articles": histogram.count,
        "median": None if histogram.count == 0 else round(histogram.quantile(0.5), 1),
        "p90": None if histogram.count == 0 else round(histogram.quantile(0.9), 1),
    }
    if buckets:
        row["seconds"] = round(histogram.total, 3)
        row["buckets"] = [[bound if bound != float("inf") else "+Inf", n] for bound, n in histogram.cumulative()]
    return row


def duration(seconds: float | None) -> str:
    """``42s``, ``7.5m``, ``3.2h``, ``2.0d``; ``-`` for none."""
    if seconds is None:
        return "-"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if abs(seconds) >= size:
            return f"{seconds / size:.1f}{unit}"
    return f"{seconds:.0f}s" if abs(seconds) >= 10 else f"{seconds:.1f}s"


def build_report(settings: Any) -> dict[str, Any]:
    from news_crawler import connection
    from news_crawler.cli.daily import last_run
    from news_crawler.cli.runner import all_spider_names
    from news_crawler.dedup.from_settings import store_from_settings

    client = connection.from_settings(settings)
    index = store_from_settings(settings, client, reader=True).report()
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
    latencies = {
        name: row["latency_today"] for name, row in report["spiders"].items() if row["latency_today"]["articles"]
    }
    if latencies:
        print(
            "discovery latency today (crawled_at - published_at): "
            + "; ".join(
                f"{name} median {duration(r['median'])}, p90 {duration(r['p90'])} ({r['articles']} articles)"
                for name, r in latencies.items()
            )
        )
    changed = {name: row for name, row in report["spiders"].items() if row["changes"] or row["rechecks_due"]}
    if changed:
        print(
            "rechecks (news-crawler changes lists them): "
            + "; ".join(
                f"{name} {row['changes'].get('edited', 0)} edited, {row['changes'].get('deleted', 0)} deleted "
                f"({row['changes_today'].get('edited', 0)} and {row['changes_today'].get('deleted', 0)} today), "
                f"{row['rechecks_due']} due"
                for name, row in changed.items()
            )
        )
    watched = [(name, page) for name, row in report["spiders"].items() for page in row["watched"]]
    if watched:
        print(f"{'watched page':<48}{'interval':>9}{'next in':>9}{'new/day':>9}  visits")
        for name, page in watched:
            visits = ", ".join(f"{n} {result}" for result, n in page["visits"].items()) or "not yet"
            per_day = "-" if page["new_links_per_day"] is None else f"{page['new_links_per_day']:g}"
            print(
                f"{printable(name + ' ' + page['url'], 47):<48}{duration(page['interval']):>9}"
                f"{duration(max(page['next_in'], 0)):>9}{per_day:>9}  {visits}"
            )
    health = [(site, h) for row in report["spiders"].values() for site, h in row.get("health", {}).items()]
    if health:
        print("site health (news-crawler alerts lists what was sent):")
        for site, h in health:
            if h["alerts"]:
                state = "; ".join(
                    f"{kind} since {a['since']}: {printable(a['detail'], 200)}" for kind, a in h["alerts"].items()
                )
            else:
                state = "ok" if h["judged"] else "not judged yet (fewer than ALERTS_MIN_RUNS runs)"
            print(f"  {printable(site, 20):<20} {state}")
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
            "settings, or @FILE of them (./run demo prints its own command)."
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
