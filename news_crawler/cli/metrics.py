"""``news-crawler metrics``: a Prometheus exporter that reads Redis on every scrape.

    news-crawler metrics [--listen 127.0.0.1:9410]

It holds no state of its own, so one exporter serves one machine, a cron job and a compose
cluster alike: whatever the crawls wrote to Redis (queues, leases, dupefilters, today's
outcomes, the index) and the last daily run's summary (``DAILY_DIR``) is what a scrape
shows. It listens on loopback unless told otherwise.
"""

from __future__ import annotations

import argparse
import signal
import threading
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from news_crawler.cli import options
from news_crawler.errors import UserError

PREFIX = "news_crawler"


class RedisCollector:
    """Builds every metric from one ``status`` report, read when Prometheus scrapes."""

    def __init__(self, settings: Any) -> None:
        self.settings = settings

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

        from news_crawler.cli.status import build_report
        from news_crawler.connection.outage import REDIS_ERRORS

        up = GaugeMetricFamily(f"{PREFIX}_redis_up", "1 when Redis answered this scrape, else 0")
        try:
            report = build_report(self.settings)
        except REDIS_ERRORS:
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        per_site = {
            "queue_requests": ("queued", "requests waiting in the spider's queue"),
            "leases_in_flight": ("in_flight", "requests taken by a worker and not yet done"),
            "urls_seen": ("seen_urls", "URLs in the spider's dupefilter (estimated for the Bloom dupefilter)"),
            "seeds_waiting": ("seeds", "start URLs seeded for cluster workers, not yet taken"),
        }
        for name, (key, doc) in per_site.items():
            family = GaugeMetricFamily(f"{PREFIX}_{name}", doc, labels=["site"])
            for site, row in report["spiders"].items():
                family.add_metric([site], row.get(key, 0))
            yield family
        outcomes = GaugeMetricFamily(
            f"{PREFIX}_outcomes_today",
            "URLs that ended with each outcome today (a day of TIMEZONE)",
            labels=["site", "outcome"],
        )
        for site, row in report["spiders"].items():
            for outcome, n in row["outcomes_today"].items():
                outcomes.add_metric([site, outcome], n)
        yield outcomes
        from news_crawler.ops.health import KINDS

        health = GaugeMetricFamily(
            f"{PREFIX}_site_health",
            "1 while a site alert of this kind is open (docs/alerts.md), else 0; sites judged at least once",
            labels=["site", "kind"],
        )
        for row in report["spiders"].values():
            for site, h in row.get("health", {}).items():
                for kind in KINDS:
                    health.add_metric([site, kind], 1 if kind in h["alerts"] else 0)
        yield health
        latency = HistogramMetricFamily(
            f"{PREFIX}_discovery_latency_seconds",
            "seconds from an article's published_at to its crawled_at, of every kept article whose page states a time",
            labels=["site"],
        )
        for site, row in report["spiders"].items():
            hist = row["latency"]
            if hist["articles"]:
                buckets = [(str(float(le)) if le != "+Inf" else "+Inf", n) for le, n in hist["buckets"]]
                latency.add_metric([site], buckets, hist["seconds"])
        yield latency
        revisits = CounterMetricFamily(
            f"{PREFIX}_revisits",
            "visits of watched start pages by result: new_links, unchanged, not_modified (a 304), failed",
            labels=["site", "result"],
        )
        intervals = GaugeMetricFamily(
            f"{PREFIX}_revisit_interval_seconds", "a watched start page's current interval", labels=["site", "page"]
        )
        for site, row in report["spiders"].items():
            by_result: dict[str, int] = {}
            for page in row["watched"]:
                for result, n in page["visits"].items():
                    by_result[result] = by_result.get(result, 0) + n
                if page["interval"] is not None:
                    intervals.add_metric([site, page["url"]], page["interval"])
            for result, n in by_result.items():
                revisits.add_metric([site, result], n)
        yield revisits
        yield intervals
        changes = CounterMetricFamily(
            f"{PREFIX}_changes", "edits and deletions of kept articles that rechecks found", labels=["site", "event"]
        )
        today = GaugeMetricFamily(
            f"{PREFIX}_changes_today",
            "edits and deletions rechecks found today (a day of TIMEZONE)",
            labels=["site", "event"],
        )
        due = GaugeMetricFamily(f"{PREFIX}_rechecks_due", "kept articles whose recheck is due", labels=["site"])
        for site, row in report["spiders"].items():
            for event in ("edited", "deleted"):
                changes.add_metric([site, event], row["changes"].get(event, 0))
                today.add_metric([site, event], row["changes_today"].get(event, 0))
            due.add_metric([site], row["rechecks_due"])
        yield changes
        yield today
        yield due
        d = report["dedup"]
        yield GaugeMetricFamily(
            f"{PREFIX}_index_fingerprints", "fingerprints held in the index", value=d["fingerprints"]
        )
        yield CounterMetricFamily(f"{PREFIX}_index_kept", "articles kept by the index", value=d["kept"])
        dropped = CounterMetricFamily(
            f"{PREFIX}_index_dropped", "articles dropped as near-duplicates, by rule", labels=["rule"]
        )
        by_sentences = d.get("dropped_by_sentences", 0)
        dropped.add_metric(["simhash"], d["dropped"] - by_sentences)
        dropped.add_metric(["sentences"], by_sentences)
        yield dropped
        yield GaugeMetricFamily(
            f"{PREFIX}_index_dropped_today", "near-duplicates dropped today", value=d["dropped_today"]
        )
        yield GaugeMetricFamily(f"{PREFIX}_redis_memory_bytes", "memory Redis uses", value=report["redis_memory_bytes"])
        daily = report.get("last_daily_run")
        if daily:
            started = datetime.fromisoformat(daily["started"]).timestamp()
            yield GaugeMetricFamily(
                f"{PREFIX}_daily_last_run_timestamp_seconds", "when the last daily run started", value=started
            )
            yield GaugeMetricFamily(
                f"{PREFIX}_daily_last_run_duration_seconds", "how long the last daily run took", value=daily["seconds"]
            )
            yield GaugeMetricFamily(
                f"{PREFIX}_daily_last_run_exit_status", "the last daily run's exit status (0: ok)", value=daily["exit"]
            )


def listen_address(text: str) -> tuple[str, int]:
    """An argparse type: ``HOST:PORT`` (``:PORT`` for loopback)."""
    host, _, port = text.rpartition(":")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host or "127.0.0.1", int(port)


def cmd_metrics(args: argparse.Namespace) -> int:
    from prometheus_client import CollectorRegistry, start_http_server

    from news_crawler import connection
    from news_crawler.dedup.from_settings import check_index

    settings = options.settings(args)
    connection.check_reachable(settings)
    check_index(settings)  # an index of another format: one line now, not a failing scrape
    registry = CollectorRegistry()
    registry.register(RedisCollector(settings))
    host, port = args.listen
    try:
        start_http_server(port, addr=host, registry=registry)
    except OSError as e:
        raise UserError(f"cannot listen on {host}:{port} ({e.strerror}): choose another --listen") from None
    print(f"metrics on http://{host}:{port}/metrics", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())  # a container's first process: stop on SIGTERM
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "metrics",
        help="a Prometheus exporter: queues, leases, outcomes, revisits, discovery latency, the index, Redis memory",
    )
    p.add_argument(
        "--listen",
        type=listen_address,
        default=("127.0.0.1", 9410),
        metavar="HOST:PORT",
        help="address to serve /metrics on (default 127.0.0.1:9410; 0.0.0.0:9410 in a container)",
    )
    options.add_settings_option(p)
    p.set_defaults(func=cmd_metrics)
