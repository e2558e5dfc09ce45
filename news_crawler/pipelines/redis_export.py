"""Optional last step: kept items also go, as JSON, to a Redis list for downstream consumers."""

from __future__ import annotations

import asyncio
import json

import redis
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from news_crawler import connection
from news_crawler.config import with_defaults
from news_crawler.items import ArticleItem


class RedisListPipeline:
    def __init__(self, client: redis.Redis, key: str) -> None:
        self.client = client
        self.key = key

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedisListPipeline:
        settings = with_defaults(crawler.settings)
        template = settings.get("ITEMS_REDIS_KEY")
        if not template:
            raise NotConfigured  # silently off: no message, no warning in every crawl log
        key = template % {"spider": crawler.spider.name if crawler.spider else crawler.spidercls.name}
        return cls(connection.from_settings(settings), key)

    async def process_item(self, item: ArticleItem) -> ArticleItem:
        data = json.dumps(dict(item), ensure_ascii=False)
        await asyncio.to_thread(self.client.rpush, self.key, data)
        return item
