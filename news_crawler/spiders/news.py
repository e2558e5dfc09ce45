"""The generic news spider, and the base of every portal spider.

    scrapy crawl news -a start_urls=URL[,URL...] -a allow=REGEX [-a deny=REGEX] [-a site=NAME]

Start pages (HTML list pages, RSS feeds or sitemaps) are fetched on every run, past the
dupefilter; links on them whose URL matches ``allow`` are article pages, which go through
the persistent Redis dupefilter, so a daily run fetches only articles it has not seen.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlparse

import scrapy
from scrapy.http import Response
from scrapy.linkextractors import LinkExtractor
from twisted.python.failure import Failure

from news_crawler.config import as_list, with_defaults
from news_crawler.extraction import extract_article
from news_crawler.extraction.page import page_fields
from news_crawler.items import ArticleItem
from news_crawler.pool import WorkerPool
from news_crawler.spiders.seeds import RedisSeeds
from news_crawler.tracker import fetch_failed

_FEED_LINKS = re.compile(rb"<(?:link|loc|guid)[^>]*>\s*(?:<!\[CDATA\[)?\s*(https?://[^<\s\]]+)", re.I)


class NewsSpider(scrapy.Spider):
    name = "news"
    site = ""
    start_urls: list[str] = []
    allow: list[str] = []
    deny: list[str] = []
    custom_settings: dict[str, Any] = {}

    def __init__(self, *args: Any, start_urls: str | list[str] | None = None, allow: str | list[str] | None = None,
                 deny: str | list[str] | None = None, site: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if start_urls:
            self.start_urls = as_list(start_urls)
        if allow:
            self.allow = [allow] if isinstance(allow, str) else list(allow)
        if deny:
            self.deny = [deny] if isinstance(deny, str) else list(deny)
        if not self.start_urls:
            raise ValueError(f"spider {self.name!r} needs start pages: -a start_urls=URL[,URL...]")
        if not self.allow:
            raise ValueError(f"spider {self.name!r} needs the article URL pattern: -a allow=REGEX")
        for pattern in self.allow + self.deny:
            try:
                re.compile(pattern)
            except re.error as e:
                raise ValueError(f"bad URL pattern {pattern!r}: {e}") from None
        self.site = site or self.site or (urlparse(self.start_urls[0]).hostname or self.name)
        self._allow = [re.compile(p) for p in self.allow]
        self._deny = [re.compile(p) for p in self.deny]
        self.links = LinkExtractor(allow=self.allow, deny=self.deny, unique=True)

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> NewsSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.workers = WorkerPool.from_crawler(crawler)
        if with_defaults(crawler.settings).getbool("SEED_FROM_REDIS"):
            spider.seeds = RedisSeeds.from_crawler(crawler, spider)
        return spider

    async def start(self) -> Any:
        if getattr(self, "seeds", None) is not None:
            return  # a cluster worker: start pages arrive through Redis (see RedisSeeds)
        for url in self.start_urls:
            # List pages change every day: always fetch them, past the persistent dupefilter.
            yield scrapy.Request(url, callback=self.parse, dont_filter=True, errback=self.failed)

    def is_article(self, url: str) -> bool:
        return any(p.search(url) for p in self._allow) and not any(p.search(url) for p in self._deny)

    def article_urls(self, response: Response) -> Iterator[str]:
        """Article links of a list page, RSS feed or sitemap."""
        head = response.body[:200].lstrip()
        if head.startswith(b"<?xml") or b"<rss" in head or b"<urlset" in head or b"<feed" in head:
            for m in _FEED_LINKS.finditer(response.body):
                url = m.group(1).decode("utf-8", "replace").replace("&amp;", "&")
                if self.is_article(url):
                    yield url
            return
        if not hasattr(response, "text"):
            return
        for link in self.links.extract_links(response):
            yield link.url

    def parse(self, response: Response, **kwargs: Any) -> Iterator[scrapy.Request]:
        self.crawler.stats.inc_value(f"pages/list/{self.site}")
        seen = set()
        for url in self.article_urls(response):
            if url not in seen:
                seen.add(url)
                yield scrapy.Request(url, callback=self.parse_article, errback=self.failed)

    async def parse_article(self, response: Response) -> AsyncIterator[ArticleItem]:
        self.crawler.stats.inc_value(f"pages/article/{self.site}")
        item = ArticleItem(url=response.url, site=self.site,
                           crawled_at=datetime.now(timezone.utc).isoformat(timespec="seconds"))
        content_type = response.headers.get(b"Content-Type", b"").decode("latin-1")
        if type(self).extract is not NewsSpider.extract:  # a portal's own extraction: here, as written
            fields = page_fields(response.body, content_type, response.url, lambda html: self.extract(html, response))
        else:  # in the worker pool, with the fingerprints: the reactor thread only moves bytes
            fields = await self.workers.run(page_fields, response.body, content_type, response.url)
        item.update(fields)
        yield item

    def extract(self, html: str, response: Response):
        """Article fields of a page; portal spiders override this only where generic extraction
        is wrong (an override runs in the crawl process, the generic extraction in the pool)."""
        return extract_article(html, response.url)

    def failed(self, failure: Failure) -> None:
        """A page that could not be fetched: the outcome tracker decides what it means
        (gone, refused by robots.txt, or a failure to try again on the next run)."""
        self.crawler.signals.send_catch_log(fetch_failed, request=failure.request, failure=failure)
