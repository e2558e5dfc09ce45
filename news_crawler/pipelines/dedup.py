"""Near-duplicate step: decide in Redis on the article's fingerprint, drop copies.

The fingerprint comes with the item, made in the worker pool with its fields
(``crawl/page_work.py``); an item another spider made is fingerprinted in the pool here
(``crawl/pool.py``). Decisions of
items that arrive together go to Redis in one atomic call (``DEDUP_BATCH_SIZE`` at most).
One namespace is shared by every spider, so a reprint on another portal is caught.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, tzinfo
from typing import Any
from urllib.parse import urlsplit

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.statscollectors import StatsCollector

from news_crawler.config import zone
from news_crawler.connection.outage import Outage, RedisUnavailable
from news_crawler.crawl.counts import Counts
from news_crawler.crawl.pool import PageTimeout, WorkerPool, fingerprint_with
from news_crawler.crawl.runtime import Runtime
from news_crawler.dedup.fingerprint import to_hex
from news_crawler.dedup.fingerprint.fingerprinter import Fingerprint
from news_crawler.dedup.from_settings import store_from_settings
from news_crawler.dedup.index import FingerprintStore
from news_crawler.dedup.index.base import outlet_keys, published_span
from news_crawler.dedup.index.batching import DecisionBatcher
from news_crawler.items import ArticleItem
from news_crawler.outcomes.changes import ChangeLog
from news_crawler.outcomes.drops import InvalidArticle, NearDuplicate, SeenBefore, Unsettled
from news_crawler.outcomes.store import OutcomeStore


class NearDuplicatePipeline:
    def __init__(
        self,
        stats: StatsCollector,
        store: FingerprintStore,
        pool: WorkerPool,
        batch_size: int,
        outcomes: OutcomeStore | None = None,
        outage: Outage | None = None,
        zone: tzinfo = UTC,
        superseded: Callable[[str, str, ArticleItem], None] | None = None,
    ) -> None:
        self.counts = Counts.of(stats)
        self.store = store
        self.pool = pool
        self.outcomes = outcomes
        self.outage = outage or Outage(0)
        self.batcher = DecisionBatcher(store.decide_many, batch_size, self.outage.call)
        self.zone = zone  # a published_at without an offset is in it
        self.superseded = superseded  # records that (old URL) was superseded by (new URL, its item)

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
            settings.getint("DEDUP_BATCH_SIZE"),
            outcomes,
            runtime.outage,
            zone(settings),
            Superseded(runtime.client, settings, crawler.spider.name if crawler.spider else ""),
        )

    async def process_item(self, item: ArticleItem) -> ArticleItem:
        site, url = item.get("site") or "", item["url"]
        # The spider's pool call made it with the fields; another spider's item is fingerprinted here.
        made = item.pop("fingerprint", None)
        fingerprint, error = made if made is not None else await self._fingerprint(item)
        if fingerprint is None:
            self.counts.add("articles", "invalid_reason/unfingerprintable")
            raise InvalidArticle(f"invalid article ({error})", url)
        item["simhash"] = to_hex(fingerprint.value)
        if int(item.get("version") or 1) > 1:  # an edit of an article kept before: never its own duplicate,
            self.counts.add("dedup", "new_version", site)  # and the index keeps the story's first fingerprint
            return item
        try:
            published = published_span(item.get("published_at") or "", self.zone)
        except ValueError:
            published = None  # a time the page gave that is no ISO 8601: decided as a copy without one
        try:
            outlets = outlet_keys(str(item.get("outlet") or ""), str(item.get("source") or ""))
            decision = await self.batcher.decide(
                url, fingerprint.value, fingerprint.sentences, fingerprint.length, published, outlets
            )
            written_before = decision.replayed and decision.kept and await self._written_before(url)
            if decision.supersedes and self.superseded is not None:
                for old in decision.supersedes:
                    await self.outage.call(self.superseded, old, url, item)
        except RedisUnavailable as e:
            raise Unsettled(f"not decided, the next run fetches it again ({e})", url, log_level="WARNING") from None
        self.counts.set("dedup", "round_trips", self.batcher.calls)
        if decision.replayed and decision.kept:
            if written_before:
                self.counts.add("dedup", "seen_before", site)
                raise SeenBefore("already kept in an earlier run", url)
            # Kept by a crawl that died before the item reached its feed: keep it now.
            self.counts.add("dedup", "recovered", site)
        elif decision.supersedes:
            self.counts.add("dedup", "superseded", site)
            item["supersedes"] = list(decision.supersedes)
        elif not decision.kept:
            self.counts.add("dedup", f"dropped_by/{decision.rule}")
            raise NearDuplicate(
                f"near-duplicate of {decision.duplicate_of} (distance {decision.distance}, rule {decision.rule})", url
            )
        return item

    async def _fingerprint(self, item: ArticleItem) -> tuple[Fingerprint | None, str | None]:
        """Fingerprint in the pool, within its time limit."""
        try:
            return await self.pool.with_fingerprinter(fingerprint_with, item["body"], item.get("title") or "")
        except PageTimeout as e:
            return None, f"fingerprinting took too long ({e}: EXTRACT_TIMEOUT)"

    async def _written_before(self, url: str) -> bool:
        """Whether an earlier run recorded ``url`` as kept (its item went to a feed)."""
        if self.outcomes is None:
            return True
        record = await self.outage.call(self.outcomes.get, url)
        return record is not None and record.get("outcome") == "kept"


class Superseded:
    """Records that an article kept before became a copy of an earlier one (``DEDUP_ORIGINAL``
    ``"earliest"``): a ``superseded`` event in the change log of the spider that kept it (found
    by its outcome record; this spider's when none holds it), under that spider's site (a
    generic ``news`` spider's: the URL's host)."""

    def __init__(self, client: Any, settings: Any, spider: str) -> None:
        self.client = client
        self.settings = settings
        self.spider = spider
        self._spiders: list[str] | None = None

    def spiders(self) -> list[str]:
        if self._spiders is None:
            from scrapy.spiderloader import get_spider_loader

            names = get_spider_loader(self.settings).list()
            self._spiders = [self.spider, *(n for n in names if n != self.spider)]
        return self._spiders

    def keeper(self, url: str) -> str:
        """The spider whose outcome records hold ``url`` kept (this one when none does)."""
        for name in self.spiders():
            record = OutcomeStore.for_spider(self.client, self.settings, name).get(url)
            if record is not None and record.get("outcome") == "kept":
                return name
        return self.spider

    def __call__(self, old: str, new: str, item: ArticleItem) -> None:
        spider = self.keeper(old)
        site = (urlsplit(old).hostname or spider) if spider == "news" else spider
        published = item.get("published_at") or "?"
        ChangeLog.for_spider(self.client, self.settings, spider).record(
            old, site, "superseded", 1, [], f"an earlier copy is the story's original: {new} (published {published})"
        )
