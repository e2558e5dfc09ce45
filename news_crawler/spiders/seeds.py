"""Start pages from Redis, for cluster workers that wait for the seeder.

The seeder pushes each spider's start URLs to ``SEED_KEY`` (a list). Whenever a worker's
spider runs out of work it pops seeds and schedules them past the dupefilter (list pages
change daily); a seed is popped by one worker only, so each list page is fetched once per
seeding. With no seed and an empty shared queue for ``WORKER_IDLE_SECONDS`` (counted from
``spider_opened``, not from start-up), the spider closes; ``0`` keeps it waiting forever.
A seed that is no http(s) URL a request can be made of (pushed by hand) is refused with a
warning and ``seeds/refused``, and the worker goes on.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

import scrapy
from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider

from news_crawler import connection
from news_crawler.connection.outage import REDIS_ERRORS
from news_crawler.crawl.meta import START_PAGE
from news_crawler.crawl.runtime import Runtime
from news_crawler.printable import printable
from news_crawler.spiders.listing import web_url

logger = logging.getLogger(__name__)

SEEDS_PER_IDLE = 1  # one list page at a time, so idle workers share the seeds


class RedisSeeds:
    def __init__(
        self,
        client: Any,
        key: str,
        idle_seconds: float,
        responses: Callable[[], int],
        schedule: Callable[[scrapy.Request], None],
        clock: Callable[[], float] = time.monotonic,
        refused: Callable[[], None] = lambda: None,
    ) -> None:
        self.client = client
        self.key = key
        self.idle_seconds = idle_seconds
        self.responses = responses  # how many responses the crawl has received so far
        self.schedule = schedule
        self.clock = clock
        self.refused = refused  # counts a seed refused
        self.idle_since = clock()
        self.responses_seen = 0

    @classmethod
    def from_crawler(cls, crawler: Crawler, spider: Spider) -> RedisSeeds:
        settings = crawler.settings
        client = Runtime.of(crawler).client
        seeds = cls(
            client,
            connection.spider_key(settings.get("SEED_KEY"), spider.name, client),
            settings.getfloat("WORKER_IDLE_SECONDS"),
            lambda: crawler.stats.get_value("response_received_count", 0),
            lambda request: crawler.engine.crawl(request),
            refused=lambda: crawler.stats.inc_value("seeds/refused"),
        )
        crawler.signals.connect(seeds.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(seeds.spider_idle, signal=signals.spider_idle)
        return seeds

    def pop(self) -> list[str]:
        try:
            urls = self.client.lpop(self.key, SEEDS_PER_IDLE) or []
        except REDIS_ERRORS:
            raise DontCloseSpider from None  # Redis is away: wait for it (the scheduler watches)
        return [u.decode() if isinstance(u, bytes) else u for u in urls]

    def spider_opened(self, spider: Spider) -> None:
        self.idle_since = self.clock()

    def spider_idle(self, spider: Any) -> None:
        now = self.clock()
        responses = self.responses()
        if responses != self.responses_seen:  # worked since the last idle signal
            self.responses_seen = responses
            self.idle_since = now
        urls = self.pop()
        if urls:
            self.idle_since = now
            for url in urls:
                if not web_url(url):
                    logger.warning("seed %s refused: not an http(s) URL with a host", printable(url, 300))
                    self.refused()
                    continue
                self.schedule(
                    scrapy.Request(
                        url, callback=spider.parse, dont_filter=True, errback=spider.failed, meta={START_PAGE: True}
                    )
                )
            raise DontCloseSpider
        if self.idle_seconds <= 0 or now - self.idle_since < self.idle_seconds:
            raise DontCloseSpider
        spider.logger.info("no seeds and no queued requests for %.0fs: closing", self.idle_seconds)


# Push only into an empty list, in one step: start URLs nobody took yet are not pushed again.
_PUSH_IF_EMPTY = (
    "if redis.call('LLEN', KEYS[1]) == 0 then return redis.call('RPUSH', KEYS[1], unpack(ARGV)) end return 0"
)


def seed(client: Any, spiders: list[Any], key_template: str) -> dict[str, int]:
    """Push every spider's start URLs to its seed list, unless the last ones are still
    there (no worker took them: pushing again would only grow the list); returns how many
    were pushed per spider, 0 for a spider skipped."""
    pushed = {}
    for spider in spiders:
        key = connection.spider_key(key_template, spider.name, client)
        pushed[spider.name] = int(client.eval(_PUSH_IF_EMPTY, 1, key, *spider.start_urls))
    return pushed
