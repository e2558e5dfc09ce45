"""Optional sinks: kept items also go, as JSON, to a Redis list or a Redis stream.

``RedisListPipeline`` (this project's settings) is off until ``ITEMS_REDIS_KEY`` or
scrapy-redis' ``REDIS_ITEMS_KEY`` names the list. ``RedisPipeline`` is the drop-in for
``scrapy_redis.pipelines.RedisPipeline``: on by default with scrapy-redis' key
``%(spider)s:items``. ``RedisStreamPipeline`` is off until ``ITEMS_REDIS_STREAM`` names a
stream: each kept article is one entry (fields ``url``, ``version``, ``item``) added with an
approximate ``MAXLEN``, so consumers read it in consumer groups and acknowledge what they
processed. All write through the one Redis client, honour ``REDIS_ITEMS_SERIALIZER`` (the
dotted path of a function from item to str or bytes), and wait out a Redis outage like the
rest of the crawl; past its limit the article is not kept and comes again on the next run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import redis
from itemadapter import ItemAdapter
from scrapy import Spider
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.utils.misc import load_object
from scrapy.utils.serialize import ScrapyJSONEncoder

from news_crawler import connection
from news_crawler.connection.outage import Outage, RedisUnavailable
from news_crawler.crawl.counts import Counts
from news_crawler.crawl.runtime import Runtime
from news_crawler.items import ArticleItem
from news_crawler.outcomes.drops import Unsettled
from news_crawler.pipelines.delivery import Deliveries
from news_crawler.pipelines.feed import feed_object

SCRAPY_REDIS_ITEMS_KEY = "%(spider)s:items"
_encoder = ScrapyJSONEncoder(ensure_ascii=False)


def to_json(item: Any) -> str:
    """The default serializer: JSON, Chinese as it is, dates and decimals as Scrapy writes them;
    an article as its feed line."""
    return _encoder.encode(feed_object(item) if isinstance(item, ArticleItem) else ItemAdapter(item).asdict())


class RedisListPipeline:
    name = "redis_list"
    default_key = ""  # off unless a setting names the list

    def __init__(
        self,
        client: redis.Redis,
        key: str,
        outage: Outage,
        serialize: Callable[[Any], str | bytes] = to_json,
        crawler: Crawler | None = None,
        max_items: int = 0,
    ) -> None:
        self.crawler = crawler
        self.max_items = max_items  # 0: unbounded
        self.client = client
        self.key = key
        self.outage = outage
        self.serialize = serialize
        self.deliveries = Deliveries.of(crawler, self.name) if crawler is not None else None

    max_setting = "ITEMS_REDIS_MAX"  # the setting that bounds the key's length

    @classmethod
    def configured_key(cls, settings: Any) -> str:
        """The key the settings name ("": off)."""
        return str(settings.get("ITEMS_REDIS_KEY") or settings.get("REDIS_ITEMS_KEY") or cls.default_key)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedisListPipeline:
        settings = crawler.settings
        key = cls.configured_key(settings)
        if not key:
            raise NotConfigured  # silently off: no message, no warning in every crawl log
        serializer = settings.get("REDIS_ITEMS_SERIALIZER")
        runtime = Runtime.of(crawler)
        return cls(
            runtime.client,
            key,
            runtime.outage,
            load_object(serializer) if serializer else to_json,
            crawler,
            settings.getint(cls.max_setting),
        )

    def item_key(self, item: Any, spider: Spider) -> str:
        """The list ``item`` goes to (scrapy-redis' hook: override to route items)."""
        return connection.spider_key(self.key, spider.name, self.client)

    async def process_item(self, item: Any) -> Any:
        if self.deliveries is not None and await self.deliveries.has(item, self.name):
            return item
        data = self.serialize(item)
        try:
            spider = self.crawler.spider if self.crawler is not None else None
            trimmed = await self.outage.call(self._push, self.item_key(item, cast(Spider, spider)), data, item)
        except RedisUnavailable as e:
            url = ItemAdapter(item).get("url", "")
            raise Unsettled(f"not exported, the next run fetches it again ({e})", url, log_level="WARNING") from None
        if trimmed and self.crawler is not None:
            Counts.of(self.crawler.stats).add("items", "redis_trimmed", n=trimmed)
        if self.deliveries is not None:
            self.deliveries.add(item, self.name)
        return item

    def _push(self, key: str, data: str | bytes, item: Any) -> int:
        """RPUSH, then keep the newest ``max_items`` (``ITEMS_REDIS_MAX``); returns how many
        of the oldest left the list (they are in the feed files too)."""
        if not self.max_items:
            self.client.rpush(key, data)
            return 0
        pipe = self.client.pipeline(transaction=True)
        pipe.rpush(key, data)
        pipe.ltrim(key, -self.max_items, -1)
        length = pipe.execute()[0]
        return max(0, length - self.max_items)


class RedisPipeline(RedisListPipeline):
    """``scrapy_redis.pipelines.RedisPipeline`` on this project's Redis client."""

    default_key = SCRAPY_REDIS_ITEMS_KEY


class RedisStreamPipeline(RedisListPipeline):
    """Kept articles to a Redis stream (``ITEMS_REDIS_STREAM``), about the newest
    ``ITEMS_REDIS_STREAM_MAXLEN`` kept."""

    name = "redis_stream"
    max_setting = "ITEMS_REDIS_STREAM_MAXLEN"

    @classmethod
    def configured_key(cls, settings: Any) -> str:
        return str(settings.get("ITEMS_REDIS_STREAM") or "")

    def _push(self, key: str, data: str | bytes, item: Any) -> int:
        """XADD with ``MAXLEN ~`` (Redis trims whole nodes of entries, cheaply, as it goes)."""
        adapter = ItemAdapter(item)
        fields: dict[Any, Any] = {"url": str(adapter.get("url", "")), "version": str(adapter.get("version") or 1)}
        fields["item"] = data
        self.client.xadd(key, fields, maxlen=self.max_items or None, approximate=True)
        return 0
