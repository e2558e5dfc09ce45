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
