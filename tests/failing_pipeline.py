"""A pipeline that raises for one URL (``FAIL_URL``): an item_error to be survived."""

from scrapy.exceptions import NotConfigured


class FailOnURL:
    def __init__(self, url: str) -> None:
        self.url = url

    @classmethod
    def from_crawler(cls, crawler):
        url = crawler.settings.get("FAIL_URL")
        if not url:
            raise NotConfigured
        return cls(url)

    def process_item(self, item):
        if item["url"] == self.url:
            raise RuntimeError("the downstream store is broken")
        return item


class RecordingSink:
    """A sink of one's own, as docs/sinks.md writes one: each article's URL appended to
    ``SINK_DIR/<name>.txt``; in a run whose ``SINK_FAILS`` names it, ``FAIL_URL`` fails."""

    name = ""

    def __init__(self, crawler) -> None:
        from news_crawler.pipelines.delivery import Deliveries

        settings = crawler.settings
        self.path = f"{settings.get('SINK_DIR')}/{self.name}.txt"
        self.fail_url = settings.get("FAIL_URL")
        self.fails = self.name in (settings.get("SINK_FAILS") or "").split(",")
        self.deliveries = Deliveries.of(crawler, self.name)

    @classmethod
    def from_crawler(cls, crawler):
        if not crawler.settings.get("SINK_DIR"):
            raise NotConfigured
        return cls(crawler)

    async def process_item(self, item):
        from news_crawler.pipelines.delivery import SinkError

        if await self.deliveries.has(item, self.name):
            return item
        if self.fails and item["url"] == self.fail_url:
            raise SinkError(f"sink {self.name} is down")
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(item["url"] + "\n")
        self.deliveries.add(item, self.name)
        return item


class SinkA(RecordingSink):
    name = "a"


class SinkB(RecordingSink):
    name = "b"


class UnsettleURL(FailOnURL):
    """A pipeline that cannot settle ``FAIL_URL`` (its store stayed away): the drop that
    leaves the page to the next run (``outcomes.drops.Unsettled``)."""

    def process_item(self, item):
        from news_crawler.outcomes.drops import Unsettled

        if item["url"] == self.url:
            raise Unsettled("not stored, the next run fetches it again", item["url"])
        return item


class FailingJsonLinesExporter:
    """A FEEDS format (``FEED_EXPORTERS``) that cannot take the article at ``fail_url`` (its
    ``item_export_kwargs``): JSON Lines otherwise."""

    def __new__(cls, file, fail_url: str = "", **kwargs):
        from scrapy.exporters import JsonLinesItemExporter

        class Failing(JsonLinesItemExporter):
            def export_item(self, item):
                if item.get("url") == fail_url:
                    raise OSError("the feed's disk is full")
                return super().export_item(item)

        return Failing(file, **kwargs)
