"""Start pages from Redis, for cluster workers that wait for the seeder.

The seeder pushes each spider's start URLs to ``SEED_KEY`` (a list). Whenever a worker's
spider runs out of work it pops seeds and schedules them past the dupefilter (list pages
change daily); a seed is popped by one worker only, so each list page is fetched once per
seeding. With no seed and an empty shared queue for ``WORKER_IDLE_SECONDS``, the spider
closes; ``WORKER_IDLE_SECONDS = 0`` keeps it waiting for the next seeding forever.
"""

from __future__ import annotations

import time
from typing import Any

import scrapy
from scrapy.exceptions import DontCloseSpider

from news_crawler import connection

SEEDS_PER_IDLE = 1  # one list page at a time, so idle workers share the seeds


class RedisSeeds:
    def __init__(self, spider: Any, crawler: Any) -> None:
        settings = crawler.settings
        self.spider = spider
        self.crawler = crawler
        self.client = connection.from_settings(settings)
        self.key = settings.get("SEED_KEY") % {"spider": spider.name}
        self.idle_seconds = settings.getfloat("WORKER_IDLE_SECONDS")
        self.idle_since = time.monotonic()
        self.responses_seen = 0

    def pop(self) -> list[str]:
        urls = self.client.lpop(self.key, SEEDS_PER_IDLE) or []
        return [u.decode() if isinstance(u, bytes) else u for u in urls]

    def on_idle(self, spider: Any) -> None:
        now = time.monotonic()
        responses = self.crawler.stats.get_value("response_received_count", 0)
        if responses != self.responses_seen:  # worked since the last idle signal
            self.responses_seen = responses
            self.idle_since = now
        urls = self.pop()
        if urls:
            self.idle_since = now
            for url in urls:
                request = scrapy.Request(url, callback=spider.parse, dont_filter=True, errback=spider.failed)
                self.crawler.engine.crawl(request)
            raise DontCloseSpider
        if self.idle_seconds <= 0 or now - self.idle_since < self.idle_seconds:
            raise DontCloseSpider
        spider.logger.info("no seeds and no queued requests for %.0fs: closing", self.idle_seconds)


def seed(client: Any, spiders: list[Any], key_template: str) -> dict[str, int]:
    """Push every spider's start URLs to its seed list; returns how many per spider."""
    pushed = {}
    for spider in spiders:
        key = key_template % {"spider": spider.name}
        client.rpush(key, *spider.start_urls)
        pushed[spider.name] = len(spider.start_urls)
    return pushed
