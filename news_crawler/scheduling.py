"""scrapy-redis' scheduler and dupefilter, built our way for the pinned Scrapy.

scrapy-redis 0.9.1 builds components with ``from_settings`` and its own Redis client, and
passes ``spider=`` to ``StatsCollector.inc_value``: both deprecated by Scrapy 2.13+, which
warns on every request. These subclasses build from the crawler with our one Redis
factory (so the embedded server works), count stats without ``spider=``, fingerprint
requests with the crawler's request fingerprinter, and queue requests as JSON.
"""

from __future__ import annotations

import logging
from typing import Any

from scrapy import Request, Spider
from scrapy.crawler import Crawler
from scrapy.utils.misc import load_object
from scrapy_redis.dupefilter import RFPDupeFilter
from scrapy_redis.scheduler import Scheduler

from news_crawler import connection, request_json

logger = logging.getLogger(__name__)


class RedisDupeFilter(RFPDupeFilter):
    """Seen-request fingerprints in a Redis set per spider (``SCHEDULER_DUPEFILTER_KEY``)."""

    def __init__(self, server: Any, key: str, debug: bool = False, crawler: Crawler | None = None) -> None:
        super().__init__(server, key, debug)
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedisDupeFilter:
        settings = crawler.settings
        key = settings.get("SCHEDULER_DUPEFILTER_KEY") % {"spider": crawler.spider.name}
        return cls(connection.from_settings(settings), key, settings.getbool("DUPEFILTER_DEBUG"), crawler)

    def request_fingerprint(self, request: Request) -> str:
        if self.crawler is not None:
            return self.crawler.request_fingerprinter.fingerprint(request).hex()
        return super().request_fingerprint(request)

    def forget(self, request: Request) -> None:
        """Let a request be scheduled again (one that failed should be retried next run)."""
        self.server.srem(self.key, self.request_fingerprint(request))

    def log(self, request: Request, spider: Spider) -> None:
        if self.crawler is not None:
            self.crawler.stats.inc_value("dupefilter/filtered")
        super().log(request, spider)


class RedisScheduler(Scheduler):
    """A queue per spider in Redis, shared by every worker crawling that spider."""

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedisScheduler:
        settings = crawler.settings
        server = connection.from_settings(settings)
        server.ping()
        instance = cls(
            server=server,
            persist=settings.getbool("SCHEDULER_PERSIST"),
            flush_on_start=settings.getbool("SCHEDULER_FLUSH_ON_START"),
            queue_key=settings.get("SCHEDULER_QUEUE_KEY"),
            queue_cls=settings.get("SCHEDULER_QUEUE_CLASS"),
            dupefilter=None,
            dupefilter_key=settings.get("SCHEDULER_DUPEFILTER_KEY"),
            dupefilter_cls=settings.get("DUPEFILTER_CLASS"),
            idle_before_close=settings.getint("SCHEDULER_IDLE_BEFORE_CLOSE"),
            serializer=request_json,
        )
        instance.crawler = crawler
        instance.stats = crawler.stats
        return instance

    def open(self, spider: Spider) -> None:
        self.df = load_object(self.dupefilter_cls).from_crawler(self.crawler)
        super().open(spider)

    def enqueue_request(self, request: Request) -> bool:
        if not request.dont_filter and self.df.request_seen(request):
            self.df.log(request, self.spider)
            return False
        self.stats.inc_value("scheduler/enqueued/redis")
        self.queue.push(request)
        return True

    def next_request(self) -> Request | None:
        request = self.queue.pop(self.idle_before_close)
        if request is not None:
            self.stats.inc_value("scheduler/dequeued/redis")
        return request
