"""Last step for a kept article: its line in the feed file, or it is not kept.

Each worker writes ``FEED_DIR/<spider>/<time>.<host>-<pid>.jsonl`` (host and process id, so
workers sharing one volume never write the same file), created with the first kept article.
A line goes to the file in one unbuffered write before the item's URL is recorded as kept
(the tracker records it after the last pipeline step), so a crawl killed at any moment never
has a URL recorded as kept whose line is still in a buffer.

A line that cannot be written (``FEED_DIR`` not writable, a name too long, a full disk)
fails the item with ``FeedWriteError``: its outcome is ``error``, it is fetched again on the
next run (the index then recovers it as kept but never written), ``feed/write_failed``
counts it, and the crawl exits non-zero. A kept article is always in a feed. With other
sinks configured, a line written before another sink failed is not written again
(``delivery.Deliveries``).
"""

from __future__ import annotations

import json
import logging
import os
import socket
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from scrapy.crawler import Crawler
from scrapy.statscollectors import StatsCollector

from news_crawler.config import file_stamp, setting_path
from news_crawler.crawl.counts import Counts
from news_crawler.fields import FEED_FIELDS
from news_crawler.items import ArticleItem
from news_crawler.pipelines.delivery import Deliveries, SinkError
from news_crawler.printable import printable

logger = logging.getLogger(__name__)


def feed_object(item: ArticleItem) -> dict[str, object]:
    """What a feed line holds of ``item``: its feed fields (not the crawl's own, such as its encoding)."""
    return {f: item[f] for f in FEED_FIELDS if f in item}


class FeedWriteError(SinkError):
    """A kept article's line could not be written: the article is not kept."""


def feed_path(feed_dir: Path, spider: str, started: datetime) -> Path:
    """``FEED_DIR/<spider>/<time>.<host>-<pid>.jsonl``, the time in UTC as Scrapy's feeds write it."""
    return feed_dir / spider / f"{file_stamp(started)}.{socket.gethostname()}-{os.getpid()}.jsonl"


class FeedPipeline:
    name = "feed"

    def __init__(self, stats: StatsCollector, path: Path, deliveries: Deliveries) -> None:
        self.counts = Counts.of(stats)
        self.path = path
        self.deliveries = deliveries
        self.file: IO[bytes] | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> FeedPipeline:
        settings = crawler.settings
        name = crawler.spider.name if crawler.spider is not None else "items"
        path = feed_path(setting_path(settings, "FEED_DIR"), name, datetime.now(UTC))
        return cls(crawler.stats, path, Deliveries.of(crawler, cls.name))

    def open_spider(self) -> None:
        logger.info("kept articles go to %s", self.path)

    async def process_item(self, item: ArticleItem) -> ArticleItem:
        if await self.deliveries.has(item, self.name):
            return item
        try:
            line = json.dumps(feed_object(item), ensure_ascii=False) + "\n"
            if self.file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.file = open(self.path, "ab", buffering=0)  # noqa: SIM115 - open for the whole crawl
            data = memoryview(line.encode("utf-8"))
            while data:  # an unbuffered write may take part of the line
                data = data[self.file.write(data) or 0 :]
        except Exception as e:  # noqa: BLE001 - whatever it is, the article is not kept and comes again
            self.counts.add("feed", "write_failed")
            why = e.strerror if isinstance(e, OSError) and e.strerror else f"{type(e).__name__}: {e}"
            raise FeedWriteError(
                f"feed {self.path} could not be written ({printable(why, 200)}): not kept, fetched "
                f"again on the next run: {item.get('url')}"
            ) from None
        self.counts.add("feed", "written")
        self.deliveries.add(item, self.name)
        return item

    def close_spider(self) -> None:
        if self.file is not None:
            self.file.close()
