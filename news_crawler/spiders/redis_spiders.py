"""scrapy-redis' ``RedisSpider`` and ``RedisCrawlSpider``, on this project's one Redis.

scrapy-redis' spiders build their own client (``localhost:6379`` when ``REDIS_URL`` is
empty) while the scheduler uses ours (the embedded server): two servers in one crawl.
These subclasses read ``REDIS_START_URLS_KEY`` and friends exactly as scrapy-redis does
(and ``REDIS_START_URLS_BATCH_SIZE``, which 0.9 replaced by ``CONCURRENT_REQUESTS``, when
set), then take their start URLs from the crawler's client (``runtime.Runtime``).

    from news_crawler.spiders.redis_spiders import RedisSpider

    class MySpider(RedisSpider):
        name = "myspider"          # start URLs: LPUSH myspider:start_urls https://...
"""

from __future__ import annotations

import warnings
from typing import Any

from scrapy_redis import defaults as redis_defaults
from scrapy_redis import spiders

from news_crawler.crawl.runtime import Runtime


class _OnOurRedis:
    """Mixed into a scrapy-redis spider, which gives these attributes."""

    server: Any = None
    crawler: Any
    redis_batch_size: Any
    fetch_data: Any
    count_size: Any

    def setup_redis(self, crawler: Any = None) -> None:
        if self.server is not None:
            return
        batch_unset = getattr(self, "redis_batch_size", None) is None
        with warnings.catch_warnings():  # scrapy-redis' client (never used) warns about its own params
            warnings.simplefilter("ignore", DeprecationWarning)
            super().setup_redis(crawler)  # type: ignore[misc]  # reads the settings; its client never connects
        settings = (crawler or self.crawler).settings
        if batch_unset and settings.getint("REDIS_START_URLS_BATCH_SIZE", 0) > 0:
            # scrapy-redis 0.9 dropped it for CONCURRENT_REQUESTS; a project that sets it still means it
            self.redis_batch_size = settings.getint("REDIS_START_URLS_BATCH_SIZE")
        self.server = server = Runtime.of(crawler or self.crawler).client
        if settings.getbool("REDIS_START_URLS_AS_SET", redis_defaults.START_URLS_AS_SET):
            self.fetch_data, self.count_size = server.spop, server.scard
        elif settings.getbool("REDIS_START_URLS_AS_ZSET", redis_defaults.START_URLS_AS_ZSET):
            self.count_size = server.zcard  # fetch_data is a method that uses self.server
        else:
            self.count_size = server.llen


class RedisSpider(_OnOurRedis, spiders.RedisSpider):
    """A spider whose start URLs are popped from ``REDIS_START_URLS_KEY``."""


class RedisCrawlSpider(_OnOurRedis, spiders.RedisCrawlSpider):
    """A crawl spider (rules) whose start URLs are popped from ``REDIS_START_URLS_KEY``."""
