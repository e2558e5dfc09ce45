"""Scrapy's FEEDS, as a sink: kept articles to any feed Scrapy can write (a local file, S3,
GCS, FTP, stdout; JSON Lines, CSV, XML...), beside the feed files of ``FEED_DIR``.

Scrapy's own ``FeedExporter`` extension writes every scraped item from a signal, where a
failure is only logged. Here the same exporter (its storages, formats, batches, filters and
URI parameters, all as Scrapy documents them) is driven from the item pipeline instead, so a
feed that cannot take an article fails the article like any other sink: its outcome is
``error`` and the next run writes it (``delivery.Deliveries``). This project's settings turn
the extension off; a project using the pipeline without them must do the same
(``EXTENSIONS = {"scrapy.extensions.feedexport.FeedExporter": None}``), or every item is
written twice. The exporter is built here, not from Scrapy's ``from_crawler``, so that it
never listens to the item signal.

CSV feeds are written by ``CsvExporter``: a list or an object (``images``, ``tags``) is one JSON
cell, and a cell a spreadsheet would run as a formula (its first character ``=``, ``+``, ``-``,
``@``, a tab or a carriage return: OWASP's CSV injection) gets a leading ``'``, unless
``FEED_CSV_ESCAPE_FORMULAS`` is off. Text a page gave cannot become a live formula.

As in Scrapy, a feed's storage is written when the crawl closes (or each
``FEED_EXPORT_BATCH_ITEM_COUNT`` items): an upload that fails then is logged by Scrapy and
counted in ``feedexport/failed_count/<storage>``, and the articles stay in the feed files.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import IO, Any, cast

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.exporters import CsvItemExporter
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
        if not crawler.settings.getdict("FEEDS"):
            raise NotConfigured
        exporter = feed_exporter(crawler)
        crawler.signals.connect(exporter.open_spider, signals.spider_opened)
        crawler.signals.connect(exporter.close_spider, signals.spider_closed)
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


FORMULA_FIRST = ("=", "+", "-", "@", "\t", "\r")


class CsvExporter(CsvItemExporter):
    """Scrapy's CSV exporter with lists and objects as JSON cells and, with
    ``escape_formulas``, a cell that starts as a formula would prefixed with ``'``."""

    def __init__(self, file: IO[bytes], *, escape_formulas: bool = True, **kwargs: Any) -> None:
        super().__init__(file, **kwargs)  # type: ignore[arg-type]
        self.escape_formulas = escape_formulas

    @classmethod
    def from_crawler(cls, crawler: Crawler, file: IO[bytes], *args: Any, **kwargs: Any) -> CsvExporter:
        kwargs.setdefault("escape_formulas", crawler.settings.getbool("FEED_CSV_ESCAPE_FORMULAS"))
        return cls(file, *args, **kwargs)

    def serialize_field(self, field: Mapping[str, Any] | Any, name: str, value: Any) -> Any:
        if "serializer" not in field and isinstance(value, (list, tuple, dict)):
            value = json.dumps(value, ensure_ascii=False)
        value = super().serialize_field(field, name, value)
        if self.escape_formulas and isinstance(value, str) and value.startswith(FORMULA_FIRST):
            value = "'" + value
        return value


def feed_exporter(crawler: Crawler) -> FeedExporter:
    """Scrapy's exporter of the crawler's FEEDS; ``UserError`` (one line) for a feed Scrapy
    cannot write (a storage whose library is missing, an unknown format)."""
    try:
        exporter = FeedExporter(crawler)
    except NotConfigured:
        feeds = ", ".join(map(str, crawler.settings.getdict("FEEDS")))
        raise UserError(
            f"FEEDS: Scrapy cannot write {printable(feeds, 200)} (Scrapy's log line says why): install the "
            "storage's library (botocore for s3://, google-cloud-storage for gs://) or fix the feed's format"
        ) from None
    if exporter.exporters.get("csv") is CsvItemExporter:  # Scrapy's own: ours, unless a project chose another
        exporter.exporters["csv"] = CsvExporter
    return exporter


def check_feeds(settings: Any) -> None:
    """``UserError`` before a crawl starts when Scrapy could not write the settings' FEEDS."""
    if settings.getdict("FEEDS"):
        feed_exporter(Crawler(Spider, settings))
