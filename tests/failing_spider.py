"""The sina spider with a bug: its callback raises for one URL (``FAIL_URL``)."""

from news_crawler.spiders.news import NewsSpider
from news_crawler.spiders.sites import load_sites, site_spider


class FailingSinaSpider(site_spider(load_sites()["sina"], NewsSpider)):
    name = "failing_sina"

    async def parse_article(self, response):
        if response.url == self.settings.get("FAIL_URL"):
            raise RuntimeError("a bug in the callback")
        async for item in super().parse_article(response):
            yield item
