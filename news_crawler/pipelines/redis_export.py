"""Optional last step: kept items also go, as JSON, to a Redis list for downstream consumers."""

from __future__ import annotations

import json

import redis
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from news_crawler import connection
from news_crawler.config import with_defaults
from news_crawler.drops import Unsettled
from news_crawler.outage import Outage, RedisUnavailable, outage_for
from news_crawler.items import ArticleItem


class RedisListPipeline:
    def __init__(self, client: redis.Redis, key: str, outage: Outage) -> None:
        self.client = client
        self.key = key
        self.outage = outage

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedisListPipeline:
        settings = with_defaults(crawler.settings)
        template = settings.get("ITEMS_REDIS_KEY")
        if not template:
            raise NotConfigured  # silently off: no message, no warning in every crawl log
        key = template % {"spider": crawler.spider.name if crawler.spider else crawler.spidercls.name}
        client = connection.from_settings(settings)
        return cls(client, key, outage_for(client, settings.getfloat("REDIS_OUTAGE_LIMIT")))

    async def process_item(self, item: ArticleItem) -> ArticleItem:
        data = json.dumps(dict(item), ensure_ascii=False)
        try:
            await self.outage.call(self.client.rpush, self.key, data)
        except RedisUnavailable as e:
            raise Unsettled(f"not exported, the next run fetches it again: {item['url']} ({e})",
                            log_level="WARNING") from None
        return item
