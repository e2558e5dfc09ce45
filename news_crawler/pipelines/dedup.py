"""Near-duplicate step: fingerprint the body off the reactor, decide in Redis, drop copies.

The fingerprint is computed in the shared pool (``news_crawler.crawl.pool``); decisions of
items that arrive together go to Redis in one atomic call (``DEDUP_BATCH_SIZE`` at most).
One namespace is shared by every spider, so a reprint on another portal is caught.
"""

from __future__ import annotations

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.statscollectors import StatsCollector

from news_crawler.connection.outage import Outage, RedisUnavailable
from news_crawler.crawl.pool import PageTimeout, WorkerPool
from news_crawler.crawl.runtime import Runtime
from news_crawler.dedup.fingerprint import to_hex
from news_crawler.dedup.fingerprint.fingerprinter import Fingerprint
from news_crawler.dedup.from_settings import store_from_settings
from news_crawler.dedup.index import FingerprintStore
from news_crawler.dedup.index.batching import DecisionBatcher
from news_crawler.items import ArticleItem
from news_crawler.outcomes.drops import InvalidArticle, NearDuplicate, SeenBefore, Unsettled
from news_crawler.outcomes.store import OutcomeStore


class NearDuplicatePipeline:
    def __init__(
        self,
        stats: StatsCollector,
        store: FingerprintStore,
        pool: WorkerPool,
        use_title: bool,
        batch_size: int,
        outcomes: OutcomeStore | None = None,
        outage: Outage | None = None,
    ) -> None:
        self.stats = stats
        self.store = store
        self.pool = pool
        self.outcomes = outcomes
        self.outage = outage or Outage(0)
        self.use_title = use_title
        self.batcher = DecisionBatcher(store.decide_many, batch_size, self.outage.call)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> NearDuplicatePipeline:
        settings = crawler.settings
        if not settings.getbool("DEDUP_ENABLED"):
            raise NotConfigured("DEDUP_ENABLED is off")
        runtime = Runtime.of(crawler)
        store = store_from_settings(settings, runtime.client)
        outcomes = OutcomeStore.for_spider(runtime.client, settings, crawler.spider.name) if crawler.spider else None
        return cls(
            crawler.stats,
            store,
            runtime.pool,
            settings.getbool("DEDUP_USE_TITLE"),
            settings.getint("DEDUP_BATCH_SIZE"),
            outcomes,
            runtime.outage,
        )

    async def process_item(self, item: ArticleItem) -> ArticleItem:
        site, url = item.get("site"), item["url"]
        title = (item.get("title") or "") if self.use_title else ""
        fingerprint, error = await self._fingerprint(item["body"], title)
        if fingerprint is None:
            self.stats.inc_value("articles/invalid_reason/unfingerprintable")
            raise InvalidArticle(f"invalid article ({error}): {url}", log_level="INFO")
        item["simhash"] = to_hex(fingerprint.value)
        try:
            decision = await self.batcher.decide(url, fingerprint.value, fingerprint.sentences, fingerprint.length)
            written_before = decision.replayed and decision.kept and await self._written_before(url)
        except RedisUnavailable as e:
            raise Unsettled(f"not decided, the next run fetches it again: {url} ({e})", log_level="WARNING") from None
        self.stats.set_value("dedup/round_trips", self.batcher.calls)
        if decision.replayed and decision.kept:
            if written_before:
                self.stats.inc_value(f"dedup/seen_before/{site}")
                raise SeenBefore(f"already kept in an earlier run: {url}", log_level="INFO")
            # Kept by a crawl that died before the item reached its feed: keep it now.
            self.stats.inc_value(f"dedup/recovered/{site}")
        elif not decision.kept:
            self.stats.inc_value(f"dedup/dropped_by/{decision.rule}")
            raise NearDuplicate(
                f"near-duplicate of {decision.duplicate_of} (distance {decision.distance}, "
                f"rule {decision.rule}): {url}",
                log_level="INFO",
            )
        return item

    async def _fingerprint(self, body: str, title: str) -> tuple[Fingerprint | None, str | None]:
        """Fingerprint in the pool, within its time limit."""
        try:
            return await self.pool.run(None, body, title)
        except PageTimeout as e:
            return None, f"fingerprinting took too long ({e}: EXTRACT_TIMEOUT)"

    async def _written_before(self, url: str) -> bool:
        """Whether an earlier run recorded ``url`` as kept (its item went to a feed)."""
        if self.outcomes is None:
            return True
        record = await self.outage.call(self.outcomes.get, url)
        return record is not None and record.get("outcome") == "kept"
