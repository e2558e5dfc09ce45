"""Discovery latency: how long after its publication each kept article was crawled.

``crawled_at - published_at`` of every kept article whose page states a time of day, counted
in a histogram per spider in Redis (``LATENCY_KEY``): one for all time, which the metrics
export as a Prometheus histogram, and one a day (``<key>:<day>``, deleted by the server
``OUTCOMES_KEEP_DAYS`` days later), which the daily report reads its median and 90th
percentile from. A time in the future (a page's clock, or its time zone, off by more than
``FUTURE_SLACK``) is no latency and is not counted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, tzinfo
from typing import Any

from news_crawler import config, connection

# Upper bounds of the buckets, in seconds: from a watched page's seconds to a daily crawl's days.
BOUNDS = (1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400, 7 * 86400)
FUTURE_SLACK = 300.0
DAY = 86400


def latency_seconds(published_at: str, crawled_at: str, zone: tzinfo = UTC) -> float | None:
    """Seconds from ``published_at`` to ``crawled_at`` (ISO 8601; a time without a zone is in
    ``zone``); None for a date without a time of day, a text that is no time, or a time more
    than ``FUTURE_SLACK`` ahead of the crawl (0 for one less)."""
    if not published_at or "T" not in published_at and " " not in published_at.strip():
        return None
    try:
        published, crawled = datetime.fromisoformat(published_at), datetime.fromisoformat(crawled_at)
    except ValueError:
        return None
    published = published if published.tzinfo else published.replace(tzinfo=zone)
    crawled = crawled if crawled.tzinfo else crawled.replace(tzinfo=UTC)
    seconds = (crawled - published).total_seconds()
    if seconds < -FUTURE_SLACK:
        return None
    return max(seconds, 0.0)


@dataclass
class Histogram:
    buckets: list[int]  # articles in each bucket of BOUNDS, then past the last (not cumulative)
    total: float  # seconds, added up
    count: int

    @classmethod
    def of(cls, raw: dict[Any, Any]) -> Histogram:
        fields = {(k.decode() if isinstance(k, bytes) else k): v for k, v in raw.items()}
        buckets = [int(fields.get(f"b{n}", 0)) for n in range(len(BOUNDS) + 1)]
        return cls(buckets, float(fields.get("sum", 0)), int(fields.get("count", 0)))

    def cumulative(self) -> list[tuple[float, int]]:
        """``(upper bound, articles at most that late)``, the last bound ``inf``: Prometheus' form."""
        out, running = [], 0
        for bound, n in zip([*BOUNDS, float("inf")], self.buckets):
            running += n
            out.append((float(bound), running))
        return out

    def quantile(self, q: float) -> float | None:
        """The ``q`` quantile, interpolated within its bucket (None without articles; the last
        bound for one past it)."""
        if self.count <= 0:
            return None
        rank, below, lower = q * self.count, 0, 0.0
        for bound, n in zip(BOUNDS, self.buckets):
            if n and below + n >= rank:
                return lower + (bound - lower) * (rank - below) / n
            below += n
            lower = float(bound)
        return float(BOUNDS[-1])


def bucket_of(seconds: float) -> int:
    return next((n for n, bound in enumerate(BOUNDS) if seconds <= bound), len(BOUNDS))


class LatencyLog:
    """The discovery-latency histograms of one spider."""

    def __init__(
        self, client: Any, key: str, keep_days: int, zone: tzinfo = UTC, clock: Callable[[], datetime] | None = None
    ) -> None:
        self.client = client
        self.key = key
        self.keep_days = keep_days
        self.zone = zone
        self.clock = clock or (lambda: datetime.now(UTC))

    @classmethod
    def for_spider(cls, client: Any, settings: Any, spider: str) -> LatencyLog:
        return cls(
            client,
            connection.spider_key(settings.get("LATENCY_KEY"), spider, client),
            settings.getint("OUTCOMES_KEEP_DAYS"),
            config.zone(settings),
        )

    def day_key(self, day: date) -> str:
        return f"{self.key}:{day.isoformat()}"

    def record(self, published_at: str, crawled_at: str) -> float | None:
        """Count one kept article's latency; returns it (None: its page states no time)."""
        seconds = latency_seconds(published_at, crawled_at, self.zone)
        if seconds is None:
            return None
        today = self.clock().astimezone(self.zone).date()
        field = f"b{bucket_of(seconds)}"
        pipe = self.client.pipeline(transaction=False)
        for key in (self.key, self.day_key(today)):
            pipe.hincrby(key, field, 1)
            pipe.hincrby(key, "count", 1)
            pipe.hincrbyfloat(key, "sum", round(seconds, 3))
        if self.keep_days > 0:
            day_start = datetime.combine(today, time(), self.zone).timestamp()
            pipe.expireat(self.day_key(today), int(day_start) + self.keep_days * DAY)
        pipe.execute()
        return seconds

    def histogram(self, day: date | None = None) -> Histogram:
        """All time's histogram, or ``day``'s."""
        return Histogram.of(self.client.hgetall(self.key if day is None else self.day_key(day)))
