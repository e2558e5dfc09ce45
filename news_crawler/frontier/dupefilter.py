"""scrapy-redis' dupefilter, built from the crawler: seen-request fingerprints in a Redis
set per spider, fingerprinted with the crawler's request fingerprinter, counted in stats.

Under the scheduler (``from_spider``, as in scrapy-redis) the set is
``SCHEDULER_DUPEFILTER_KEY``. Standalone, under Scrapy's own scheduler, scrapy-redis uses a
new ``dupefilter:<timestamp>`` set every run; here ``DUPEFILTER_KEY`` names it (``%(spider)s``
and ``%(timestamp)s`` are filled in), and when unset the spider's own persistent set is used.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from scrapy import Request, Spider
from scrapy.crawler import Crawler
from scrapy.statscollectors import StatsCollector
from scrapy_redis.dupefilter import RFPDupeFilter

from news_crawler import connection
from news_crawler.crawl.counts import Counts
from news_crawler.crawl.runtime import Runtime
from news_crawler.protocols import LeasedQueue, SeenSet

# How a request becomes the fingerprint stored in the set: the crawler's fingerprinter, or
# scrapy-redis 0.9's own (SHA-1 of method, canonical URL and body), so that a set scrapy-redis
# filled keeps working after the switch and nothing seen is fetched again.
FINGERPRINTS = ("scrapy", "scrapy-redis")


def spider_name(crawler: Crawler) -> str:
    return crawler.spider.name if crawler.spider is not None else crawler.spidercls.name


class RedisDupeFilter(RFPDupeFilter):
    """Seen-request fingerprints in a Redis set per spider (``SCHEDULER_DUPEFILTER_KEY``)."""

    def __init__(
        self,
        server: Any,
        key: str,
        debug: bool = False,
        *,
        fingerprinter: Any = None,
        stats: StatsCollector | None = None,
    ) -> None:
        super().__init__(server, key, debug)
        self.fingerprinter = fingerprinter
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedisDupeFilter:
        """Standalone, under any scheduler: the set ``DUPEFILTER_KEY`` names, else the spider's."""
        settings = crawler.settings
        template = settings.get("DUPEFILTER_KEY") or settings.get("SCHEDULER_DUPEFILTER_KEY")
        client = Runtime.of(crawler).client
        return cls._build(
            crawler, connection.spider_key(template, spider_name(crawler), client, timestamp=int(time.time()))
        )

    @classmethod
    def from_spider(cls, spider: Spider) -> RedisDupeFilter:
        """Under the scheduler: the spider's ``SCHEDULER_DUPEFILTER_KEY`` set."""
        settings = spider.crawler.settings
        client = Runtime.of(spider.crawler).client
        return cls._build(
            spider.crawler, connection.spider_key(settings.get("SCHEDULER_DUPEFILTER_KEY"), spider.name, client)
        )

    @classmethod
    def _build(cls, crawler: Crawler, key: str) -> RedisDupeFilter:
        settings = crawler.settings
        mode = settings.get("DUPEFILTER_FINGERPRINT")
        if mode not in FINGERPRINTS:
            raise ValueError(
                f"DUPEFILTER_FINGERPRINT={mode!r}: use 'scrapy' (the crawler's request fingerprinter) "
                "or 'scrapy-redis' (to keep using a dupefilter set that scrapy-redis filled)"
            )
        fingerprinter = crawler.request_fingerprinter if mode == "scrapy" else None
        return cls(
            Runtime.of(crawler).client,
            key,
            settings.getbool("DUPEFILTER_DEBUG"),
            fingerprinter=fingerprinter,
            stats=crawler.stats,
            **cls.options(settings),
        )

    @classmethod
    def options(cls, settings: Any) -> dict[str, Any]:
        """Constructor arguments of a subclass, from settings."""
        return {}

    def request_fingerprint(self, request: Request) -> str:
        """The crawler's fingerprint, or scrapy-redis' (``DUPEFILTER_FINGERPRINT``)."""
        if self.fingerprinter is not None:
            return self.fingerprinter.fingerprint(request).hex()
        return super().request_fingerprint(request)

    def queue_unseen(self, queue: LeasedQueue, request: Request) -> bool:
        """Mark ``request`` seen and queue it in one atomic step (``contracts.SeenSet``)."""
        return queue.push_unseen(request, self.key, self.request_fingerprint(request))

    def forget(self, request: Request) -> None:
        """Let a request be scheduled again (one that failed should be retried next run)."""
        self.server.srem(self.key, self.request_fingerprint(request))

    def seen_many(self, requests: Sequence[Request]) -> list[bool]:
        """Whether each of ``requests`` counts as seen, without marking any (one round trip)."""
        if not requests:
            return []
        return [bool(x) for x in self.server.smismember(self.key, [self.request_fingerprint(r) for r in requests])]

    def log(self, request: Request, spider: Spider) -> None:
        if self.stats is not None:
            Counts.of(self.stats).add("dupefilter", "filtered")
        super().log(request, spider)


if TYPE_CHECKING:  # mypy checks that the class keeps its contract (protocols.py)

    def _keeps_contract(implementation: RedisDupeFilter) -> SeenSet:
        return implementation
