"""Scrapy's FEEDS, as a sink: kept articles to any feed Scrapy can write (a local file, S3,
GCS, FTP, stdout; JSON Lines, CSV, XML...), beside the feed files of ``FEED_DIR``.

Scrapy's own ``FeedExporter`` extension writes every scraped item from a signal, where a
failure is only logged. Here the same exporter (its storages, formats, batches, filters and
URI parameters, all as Scrapy documents them) is driven from the item pipeline instead, so a
feed that cannot take an article fails the article like any other sink: its outcome is
``error`` and the next run writes it (``delivery.Deliveries``). This project's settings turn
the extension off; a project using the pipeline without them must do the same
(``EXTENSIONS = {"scrapy.extensions.feedexport.FeedExporter": None}``), or every item is
written twice.

As in Scrapy, a feed's storage is written when the crawl closes (or each
``FEED_EXPORT_BATCH_ITEM_COUNT`` items): an upload that fails then is logged by Scrapy and
counted in ``feedexport/failed_count/<storage>``, and the articles stay in the feed files.
"""

from __future__ import annotations

from typing import Any, cast

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.extensions.feedexport import FeedExporter

from news_crawler.errors import UserError
from news_crawler.pipelines.delivery import Deliveries, SinkError
from news_crawler.printable import printable


class ScrapyFeedsPipeline:
    name = "scrapy_feeds"

    def __init__(self, crawler: Crawler, exporter: FeedExporter) -> None:
        self.crawler = crawler
        self.exporter = exporter
        self.deliveries = Deliveries.of(crawler, self.name)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ScrapyFeedsPipeline:
        feeds = crawler.settings.getdict("FEEDS")
        if not feeds:
            raise NotConfigured
        try:
            exporter = FeedExporter.from_crawler(crawler)
        except NotConfigured:
            # Scrapy has logged why (a storage whose library is missing, an unknown format)
            raise UserError(
                f"FEEDS: Scrapy cannot write {printable(', '.join(map(str, feeds)), 200)} (the log line "
                "above says why): install the storage's library or fix the feed's format"
            ) from None
        # The exporter writes from the pipeline, where a failure fails the article.
        crawler.signals.disconnect(exporter.item_scraped, signals.item_scraped)
        return cls(crawler, exporter)

    async def process_item(self, item: Any) -> Any:
        if await self.deliveries.has(item, self.name):
            return item
        try:
            self.exporter.item_scraped(item, cast(Spider, self.crawler.spider))
        except Exception as e:  # noqa: BLE001 - whatever it is, the article is not kept and comes again
            raise SinkError(
                f"FEEDS could not take the article ({printable(f'{type(e).__name__}: {e}', 200)}): not kept, "
                f"written on the next run: {item.get('url')}"
            ) from None
        self.deliveries.add(item, self.name)
        return item
