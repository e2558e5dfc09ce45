"""Every sink has a kept article, or it is not kept; and no sink gets it twice.

A kept article goes to each configured sink in turn (the feed file, PostgreSQL, a Redis
stream or list, Scrapy's FEEDS; each a pipeline). When one fails, the article's outcome is
``error`` and the next run fetches it again, and it must then reach the sinks that did not
get it without a second copy in those that did. ``Deliveries`` remembers that: each sink
asks ``has`` before it writes and says ``add`` after; when the item fails, the sinks that
had it are recorded in Redis (``DELIVERIES_KEY``, a hash of ``<url> <version>`` ->
``{"format": 1, "sinks": [...]}``), and the record is deleted once every sink has it.
Records exist only for articles a sink failed, so the hash stays small.

A process killed between a sink's write and the end of the item records nothing: that
article comes again and a sink that appends (a file, a Redis list or stream) may hold it
twice. Consumers that must never see a copy key on ``url`` and ``version``; PostgreSQL
upserts and never does.

Your own sink follows the same steps (docs/sinks.md)::

    class MySink:
        name = "mysink"

        @classmethod
        def from_crawler(cls, crawler):
            sink = cls()
            sink.deliveries = Deliveries.of(crawler, cls.name)
            return sink

        async def process_item(self, item):
            if await self.deliveries.has(item, self.name):
                return item
            ...  # write it; raise SinkError("...") when it cannot be written
            self.deliveries.add(item, self.name)
            return item
"""

from __future__ import annotations

import json
import weakref
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler

from news_crawler import connection
from news_crawler.crawl.counts import Counts
from news_crawler.crawl.runtime import Runtime
from news_crawler.errors import UserError

FORMAT = 1


class SinkError(Exception):
    """A kept article could not be written to a sink: it is not kept (outcome ``error``),
    and the next run writes it to the sinks that do not have it."""


class DeliveryFormatError(UserError):
    """A delivery record written by another version of the crawler."""


class Deliveries:
    """Which sinks have which of the crawler's articles (one object per crawler)."""

    def __init__(self, crawler: Crawler) -> None:
        runtime = Runtime.of(crawler)
        self.client, self.outage = runtime.client, runtime.outage
        self.counts = Counts.of(crawler.stats)
        name = crawler.spider.name if crawler.spider is not None else "items"
        self.key = connection.spider_key(crawler.settings.get("DELIVERIES_KEY"), name, self.client)
        self.sinks: list[str] = []
        self._had: dict[str, set[str]] = {}  # what a record said, per article asked about
        self._now: dict[str, set[str]] = {}  # sinks that took the article in this attempt
        for handler, signal in (
            (self.item_scraped, signals.item_scraped),
            (self.item_left, signals.item_dropped),
            (self.item_error, signals.item_error),
        ):
            crawler.signals.connect(handler, signal)

    @classmethod
    def of(cls, crawler: Crawler, sink: str) -> Deliveries:
        """The crawler's deliveries, with ``sink`` counted among its sinks."""
        deliveries = _DELIVERIES.get(crawler)
        if deliveries is None:
            deliveries = _DELIVERIES[crawler] = cls(crawler)
        if sink not in deliveries.sinks:
            deliveries.sinks.append(sink)
        return deliveries

    async def has(self, item: Any, sink: str) -> bool:
        """Whether ``sink`` took ``item`` in an earlier attempt that another sink failed."""
        if len(self.sinks) < 2:
            return False  # one sink: a failure leaves nothing half delivered
        ident = identity(item)
        if ident not in self._had:
            raw = await self.outage.call(self.client.hget, self.key, ident)
            self._had[ident] = read_record(raw) if raw else set()
        return sink in self._had[ident]

    def add(self, item: Any, sink: str) -> None:
        """``sink`` has ``item`` now (counted in ``sinks/<sink>``, what a crawl's summary says)."""
        self._now.setdefault(identity(item), set()).add(sink)
        self.counts.add("sinks", sink)

    def item_scraped(self, item: Any) -> None:
        ident = identity(item)
        self._now.pop(ident, None)
        if self._had.pop(ident, None):
            self.outage.run(lambda: self.client.hdel(self.key, ident))

    def item_left(self, item: Any) -> None:
        ident = identity(item)
        self._now.pop(ident, None)
        self._had.pop(ident, None)

    def item_error(self, item: Any) -> None:
        ident = identity(item)
        sinks = self._now.pop(ident, set()) | self._had.pop(ident, set())
        if sinks:
            record = json.dumps({"format": FORMAT, "sinks": sorted(sinks)})
            self.outage.run(lambda: self.client.hset(self.key, ident, record))


def identity(item: Any) -> str:
    """An article's version as records name it: ``<url> <version>``."""
    return f"{item.get('url', '')} {int(item.get('version') or 1)}"


def read_record(raw: bytes | str) -> set[str]:
    """The sinks a record names; a record of another format is one clear error."""
    try:
        record = json.loads(raw)
        if record.get("format") == FORMAT:
            return set(record["sinks"])
    except (ValueError, AttributeError, KeyError, TypeError):
        pass
    raise DeliveryFormatError(
        "a delivery record was written by another version of the crawler: delete the "
        "'<spider>:deliveries' keys (DELIVERIES_KEY) and crawl again"
    )


_DELIVERIES: weakref.WeakKeyDictionary[Crawler, Deliveries] = weakref.WeakKeyDictionary()
