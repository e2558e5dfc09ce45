"""The generic news spider, and the base of every portal spider.

    scrapy crawl news -a start_urls=URL[,URL...] -a allow=REGEX [-a deny=REGEX] [-a follow=REGEX] [-a site=NAME]

Start pages (HTML or XHTML list pages, RSS or Atom feeds, sitemaps, gzipped or not) are
fetched on every run, past the dupefilter; links on them whose URL matches ``allow`` are
article pages, which go through the persistent Redis dupefilter, so a daily run fetches
only articles it has not seen. Links matching ``follow`` are more list pages (pagination;
without ``follow``, a list page's 下一页 link to no article, ``LIST_FOLLOW_NEXT``),
and so are the sitemaps of a sitemap index (those matching ``follow`` when it is given),
fetched every run too, at most ``LIST_PAGE_LIMIT`` deep from a start page (and, with
``LIST_STOP_AT_SEEN``, not past a list page whose articles were all seen before). An article split over pages
(下一页, ``_2.shtml``, ``?page=2``) becomes one item, at its first page's URL.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urldefrag, urlparse

import scrapy
from scrapy.http import Response
from scrapy.linkextractors import LinkExtractor
from twisted.python.failure import Failure

from news_crawler.config import as_list, with_defaults
from news_crawler.extraction import extract_article
from news_crawler.extraction.page import page_fields
from news_crawler.extraction.pagination import joined_pages, page_of
from news_crawler.items import ArticleItem
from news_crawler.pool import WorkerPool
from news_crawler.spiders.listing import (NEXT_LINK_TEXT, as_html, feed_links, is_feed, is_next_list_page,
                                          is_sitemap_index, unpacked, without_tracking)
from news_crawler.spiders.seeds import RedisSeeds
from news_crawler.tracker import fetch_failed


def tracking_pattern(pattern: str | None) -> re.Pattern | None:
    """``URL_TRACKING_PARAMS`` compiled (None when empty); ValueError for a bad pattern."""
    try:
        return re.compile(pattern) if pattern else None
    except re.error as e:
        raise ValueError(f"bad URL_TRACKING_PARAMS pattern {pattern!r}: {e}") from None


class NewsSpider(scrapy.Spider):
    name = "news"
    site = ""
    start_urls: list[str] = []
    allow: list[str] = []
    deny: list[str] = []
    follow: list[str] = []  # list pagination; portal spiders set their own
    custom_settings: dict[str, Any] = {}

    def __init__(self, *args: Any, start_urls: str | list[str] | None = None, allow: str | list[str] | None = None,
                 deny: str | list[str] | None = None, follow: str | list[str] | None = None, site: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if start_urls:
            self.start_urls = as_list(start_urls)
        if allow:
            self.allow = [allow] if isinstance(allow, str) else list(allow)
        if deny:
            self.deny = [deny] if isinstance(deny, str) else list(deny)
        if follow:
            self.follow = [follow] if isinstance(follow, str) else list(follow)
        if not self.start_urls:
            raise ValueError(f"spider {self.name!r} needs start pages: -a start_urls=URL[,URL...]")
        for url in self.start_urls:
            if urlparse(url).scheme not in ("http", "https", "file") or not urlparse(url).path + urlparse(url).netloc:
                raise ValueError(f"bad start URL {url!r}: it needs http:// or https://")
        if not self.allow:
            raise ValueError(f"spider {self.name!r} needs the article URL pattern: -a allow=REGEX")
        for pattern in self.allow + self.deny + self.follow:
            try:
                re.compile(pattern)
            except re.error as e:
                raise ValueError(f"bad URL pattern {pattern!r}: {e}") from None
        self.site = site or self.site or (urlparse(self.start_urls[0]).hostname or self.name)
        self._allow = [re.compile(p) for p in self.allow]
        self._deny = [re.compile(p) for p in self.deny]
        self._follow = [re.compile(p) for p in self.follow]
        self.links = LinkExtractor(allow=self.allow, deny=self.deny, unique=True)
        self.list_links = LinkExtractor(allow=self.follow, unique=True) if self.follow else None
        # Without follow patterns: a list page's 下一页 link, on a start page's host, to no article.
        hosts = sorted({urlparse(u).hostname for u in self.start_urls if urlparse(u).hostname})
        self.next_links = LinkExtractor(restrict_text=NEXT_LINK_TEXT, deny=self.allow, allow_domains=hosts, unique=True)
        self._lists_requested: set[str] = set(self.start_urls)  # this process's, so pagination cannot loop

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> NewsSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.workers = WorkerPool.from_crawler(crawler)
        settings = with_defaults(crawler.settings)
        spider.list_page_limit = settings.getint("LIST_PAGE_LIMIT")
        spider.list_stop_at_seen = settings.getbool("LIST_STOP_AT_SEEN")
        spider.list_follow_next = settings.getbool("LIST_FOLLOW_NEXT")
        spider.article_max_pages = settings.getint("ARTICLE_MAX_PAGES")
        spider.tracking = tracking_pattern(settings.get("URL_TRACKING_PARAMS"))
        spider.max_list_bytes = settings.getint("DOWNLOAD_MAXSIZE")
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
        """Article links of a list page, feed or sitemap, each at its article's first page."""
        if is_feed(response.body):
            urls: Iterator[str] = (u for u in feed_links(response.body, response.url) if self.is_article(u))
        else:
            page = as_html(response)
            urls = (link.url for link in self.links.extract_links(page)) if page is not None else iter(())
        # The article's own URL: no #fragment (the page is fetched without it, and an item
        # must not take the URL of whichever link came first), no tracking parameters.
        links = [without_tracking(urldefrag(url)[0], getattr(self, "tracking", None)) for url in urls]
        linked = set(links)
        for url in links:
            # story_2.html is a later page of story.html where the list links that too;
            # else show_12.html is an article of its own, not page 12 of show.html.
            first, number = page_of(url)
            yield first if number > 1 and first in linked and self.is_article(first) else url

    def more_list_pages(self, response: Response) -> Iterator[scrapy.Request]:
        """The list's next pages (links matching ``follow``; without it, its 下一页 link), down to
        ``LIST_PAGE_LIMIT``."""
        depth = response.meta.get("list_depth", 0)
        links = self.list_links or (self.next_links if self.list_follow_next else None)
        page = as_html(response) if links is not None and not is_feed(response.body) else None
        if page is None or depth >= self.list_page_limit:
            return
        for link in links.extract_links(page):
            if links is self.next_links and not is_next_list_page(link.text, depth):
                continue  # a page number, but not the next one
            if link.url not in self._lists_requested and not self.is_article(link.url):
                self._lists_requested.add(link.url)
                yield scrapy.Request(link.url, callback=self.parse, dont_filter=True, errback=self.failed,
                                     meta={"list_depth": depth + 1})

    def sitemaps(self, response: Response) -> Iterator[scrapy.Request]:
        """The sitemaps a sitemap index lists (those matching ``follow``, when it is given)."""
        depth = response.meta.get("list_depth", 0)
        if depth >= self.list_page_limit:
            return
        for url in feed_links(response.body, response.url):
            if (not self._follow or any(p.search(url) for p in self._follow)) and url not in self._lists_requested:
                self._lists_requested.add(url)
                yield scrapy.Request(url, callback=self.parse, dont_filter=True, errback=self.failed,
                                     meta={"list_depth": depth + 1})

    def parse(self, response: Response, **kwargs: Any) -> Iterator[scrapy.Request]:
        self.crawler.stats.inc_value(f"pages/list/{self.site}")
        body = unpacked(response.body, getattr(self, "max_list_bytes", 0))
        if body is None:
            self.crawler.stats.inc_value(f"pages/list_unreadable/{self.site}")
            self.logger.warning("list page %s is gzip that cannot be unpacked: no links taken from it", response.url)
            return
        if body is not response.body:  # a gzipped sitemap
            response = Response(response.url, body=body, request=response.request)
        if is_sitemap_index(body):
            yield from self.sitemaps(response)
            return
        articles = [scrapy.Request(url, callback=self.parse_article, errback=self.failed)
                    for url in dict.fromkeys(self.article_urls(response))]
        new = self.any_new(articles)  # asked before they are scheduled (which marks them seen)
        yield from articles
        if new:
            yield from self.more_list_pages(response)
        else:
            self.crawler.stats.inc_value(f"pages/list_ended_at_seen/{self.site}")
            self.logger.debug("list page %s: every article on it was seen before, its next pages not followed",
                              response.url)

    def any_new(self, articles: list[scrapy.Request]) -> bool:
        """Whether a list page with ``articles`` leads to new ones: some article not seen
        before, or none to judge by, or no pagination to stop, or ``LIST_STOP_AT_SEEN`` off, or
        a dupefilter that cannot tell without marking, or Redis not answering (then its next
        pages are followed)."""
        paginated = self.list_links is not None or getattr(self, "list_follow_next", False)
        if not paginated or not articles or not getattr(self, "list_stop_at_seen", False):
            return True
        scheduler = getattr(self.crawler.engine, "scheduler", None)
        seen_many = getattr(getattr(scheduler, "df", None), "seen_many", None)
        if seen_many is None:
            return True
        try:
            return not all(seen_many(articles))
        except Exception as e:  # noqa: BLE001 - an outage: the pages are followed as if new
            self.logger.warning("could not ask the dupefilter whether %d articles were seen (%s): following the "
                                "list's next pages", len(articles), e)
            return True

    async def parse_article(self, response: Response) -> AsyncIterator[Any]:
        self.crawler.stats.inc_value(f"pages/article/{self.site}")
        content_type = response.headers.get(b"Content-Type", b"").decode("latin-1")
        article = response.meta.get("article")  # the pages before, on a later page
        if type(self).extract is not NewsSpider.extract:  # a portal's own extraction: here, as written
            fields = page_fields(response.body, content_type, response.url, lambda html: self.extract(html, response))
        else:  # in the worker pool, with the fingerprints: the reactor thread only moves bytes
            fields = await self.workers.run(page_fields, response.body, content_type, response.url, None,
                                            article is not None)
        next_url = fields.pop("next_page", None)
        if article is not None:  # a later page: its text joins the first page's
            fields = {**article, "body": joined_pages(article["body"], fields.get("body", ""))}
        else:
            fields = {**fields, "url": response.url}
        pages = response.meta.get("article_pages", 1)
        if next_url and pages < self.article_max_pages:
            yield scrapy.Request(next_url, callback=self.parse_article, errback=self.next_page_failed,
                                 dont_filter=True, meta={"article": fields, "article_pages": pages + 1})
            return
        yield self.item(fields)

    def item(self, fields: dict[str, Any]) -> ArticleItem:
        return ArticleItem(site=self.site, crawled_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                           **fields)

    def next_page_failed(self, failure: Failure) -> Iterator[ArticleItem]:
        """A later page of an article could not be fetched: the pages before it make the item."""
        self.crawler.stats.inc_value(f"pages/article_page_failed/{self.site}")
        self.logger.warning("page %s of an article could not be fetched (%s): keeping the pages before it",
                            failure.request.url, failure.value)
        yield self.item(failure.request.meta["article"])

    def extract(self, html: str, response: Response):
        """Article fields of a page; portal spiders override this only where generic extraction
        is wrong (an override runs in the crawl process, the generic extraction in the pool)."""
        return extract_article(html, response.url)

    def failed(self, failure: Failure) -> None:
        """A page that could not be fetched: the outcome tracker decides what it means
        (gone, refused by robots.txt, or a failure to try again on the next run)."""
        self.crawler.signals.send_catch_log(fetch_failed, request=failure.request, failure=failure)
