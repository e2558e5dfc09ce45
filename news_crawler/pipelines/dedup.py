"""Near-duplicate step: fingerprint the body off the reactor, decide in Redis, drop copies.

The fingerprint is computed in the shared pool (``news_crawler.pool``); decisions of
items that arrive together go to Redis in one atomic call (``DEDUP_BATCH_SIZE`` at most).
One namespace is shared by every spider, so a reprint on another portal is caught.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import Executor

from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.statscollectors import StatsCollector

from news_crawler import connection
from news_crawler.config import with_defaults
from news_crawler.engine import store_from_settings
from news_crawler.fingerprint import to_hex
from news_crawler.index import FingerprintStore
from news_crawler.index.batching import DecisionBatcher
from news_crawler.items import ArticleItem
from news_crawler.pool import FingerprintFn, dedup_config, shared_pool


class NearDuplicatePipeline:
    def __init__(self, stats: StatsCollector, store: FingerprintStore, executor: Executor,
                 fingerprint: FingerprintFn, use_title: bool, batch_size: int) -> None:
        self.stats = stats
        self.store = store
        self.executor = executor
        self.fingerprint = fingerprint
        self.use_title = use_title
        self.batcher = DecisionBatcher(store.decide_many, batch_size)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> NearDuplicatePipeline:
        settings = with_defaults(crawler.settings)
        if not settings.getbool("DEDUP_ENABLED"):
            raise NotConfigured("DEDUP_ENABLED is off")
        store = store_from_settings(settings, connection.from_settings(settings))
        executor, fingerprint = shared_pool(dedup_config(settings), settings.getint("DEDUP_PROCESSES"))
        return cls(crawler.stats, store, executor, fingerprint, settings.getbool("DEDUP_USE_TITLE"),
                   settings.getint("DEDUP_BATCH_SIZE"))

    async def process_item(self, item: ArticleItem) -> ArticleItem:
        site, url = item.get("site"), item["url"]
        title = (item.get("title") or "") if self.use_title else ""
        loop = asyncio.get_running_loop()
        value, error = await loop.run_in_executor(self.executor, self.fingerprint, item["body"], title)
        if value is None:
            self.stats.inc_value(f"articles/invalid/{site}")
            self.stats.inc_value("articles/invalid_reason/unfingerprintable")
            raise DropItem(f"invalid article {url}: {error}", log_level="INFO")
        item["simhash"] = to_hex(value)
        decision = await self.batcher.decide(url, value)
        self.stats.set_value("dedup/round_trips", self.batcher.calls)
        if decision.replayed and decision.kept:
            self.stats.inc_value(f"dedup/seen_before/{site}")
            raise DropItem(f"already kept in an earlier run: {url}", log_level="INFO")
        if not decision.kept:
            self.stats.inc_value(f"dedup/dropped/{site}")
            raise DropItem(f"near-duplicate of {decision.duplicate_of} (distance {decision.distance}): {url}",
                           log_level="INFO")
        self.stats.inc_value(f"dedup/kept/{site}")
        return item
