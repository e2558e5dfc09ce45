"""The links of one list page, feed or sitemap, taken as a stream: the generic spider's
defence against a page that would flood the queue (see the README, "Crawling untrusted sites")."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any, Protocol
from urllib.parse import urldefrag, urlparse

import scrapy
from scrapy.crawler import Crawler
from scrapy.http import Response
from scrapy.linkextractors import IGNORED_EXTENSIONS
from twisted.python.failure import Failure

from news_crawler.crawl.counts import Counts
from news_crawler.crawl.meta import LIST_DEPTH, REVISIT_OF
from news_crawler.extraction.pagination import page_of
from news_crawler.printable import short_url
from news_crawler.spiders.listing import (
    NEXT_LINK_TEXT,
    is_next_list_page,
    request_url,
    without_tracking,
)


class ListingSpider(Protocol):
    """What a list page asks of its spider (``spiders.news.NewsSpider``): the site's rules
    for links, the run's budget of list pages, and where requests go."""

    crawler: Crawler
    site: str
    domains: list[str]
    hosts: set[str]
    tracking: re.Pattern[str] | None
    follow_patterns: list[re.Pattern[str]]
    lists_requested: set[str]  # this process's, so pagination cannot loop
    links_max: int
    list_page_limit: int
    list_pages_left: int
    list_stop_at_seen: bool
    list_follow_next: bool

    @property
    def counts(self) -> Counts: ...

    @property
    def logger(self) -> logging.LoggerAdapter[logging.Logger]: ...

    def is_article(self, url: str) -> bool: ...

    def on_site(self, url: str) -> bool: ...

    def seen(self, requests: list[scrapy.Request]) -> list[bool] | None: ...

    def parse(self, response: Response, **kwargs: Any) -> AsyncIterator[scrapy.Request]: ...

    def parse_article(self, response: Response) -> AsyncIterator[Any]: ...

    def failed(self, failure: Failure) -> None: ...


_HTTP = re.compile(r"https?://", re.I)
# Images, documents, archives: never articles (Scrapy's link extractor leaves them out too).
_IGNORED = re.compile(r"\.(?:" + "|".join(map(re.escape, IGNORED_EXTENSIONS)) + ")$", re.I)
SEEN_BATCH = 200  # article links asked of the dupefilter at once
LINKS_PER_TURN = 500  # links read before the reactor gets a turn


class ListPage:
    """The links of one list page, feed or sitemap, taken as a stream.

    Article links (matching ``allow``, not ``deny``, on the site's domains) are asked of the
    dupefilter a batch at a time, and at most ``LIST_LINKS_MAX`` new ones are queued: the
    links past them are counted and left for the next run, which reads the page again and
    takes the next new ones (a large sitemap comes in over several runs; nothing is lost).
    A link that is not http(s) is refused and counted, never fetched. List pages it links
    (``follow``, or without it its 下一页 link) come after its articles, as many at most.
    """

    def __init__(self, spider: ListingSpider, response: Response) -> None:
        self.spider = spider
        self.response = response
        self.depth = response.meta.get(LIST_DEPTH, 0)
        self.revisit_of: str | None = response.meta.get(REVISIT_OF)  # a watched start page's, or a page it led to
        self.counts = Counts.of(spider.crawler.stats)
        self.cap = spider.links_max if spider.links_max > 0 else float("inf")
        self.queued = self.past = self.articles = 0
        self.any_new = False
        self.any_seen = False
        self.met: set[int] = set()  # hashes of the article links met, so that each is taken once
        self.later: dict[str, list[str]] = {}  # first page -> its later pages, linked before it
        self.deferred = 0
        self.batch: list[str] = []

    async def read(
        self, links: Iterator[tuple[str, str]], html: bool = False, encoding: str = "utf-8"
    ) -> AsyncIterator[scrapy.Request]:
        """The requests for the page's ``links`` (``(url, text)``; ``html``: with their text,
        from an HTML page whose non-ASCII query text is quoted in ``encoding``)."""
        spider, site = self.spider, self.spider.site
        lists: list[scrapy.Request] = []
        refused = offsite = 0
        for n, (url, text) in enumerate(links, 1):
            if n % LINKS_PER_TURN == 0:
                await asyncio.sleep(0)  # downloads, signals and shutdown go on while a huge page is read
            if not spider.crawler.crawling:
                return  # shutting down: the rest is read again by the next run
            if self.queued >= self.cap and spider.is_article(url):  # the cap is reached: only counted
                if _HTTP.match(url):
                    self.past += 1
                else:
                    refused += 1
                continue
            quoted = request_url(url, encoding)
            if quoted is None:
                refused += spider.is_article(url) or any(p.search(url) for p in spider.follow_patterns)
                continue
            url = without_tracking(urldefrag(quoted)[0], spider.tracking)
            if spider.is_article(url):
                if not spider.on_site(url):
                    offsite += 1
                elif _IGNORED.search(urlparse(url).path) is None:
                    for request in self._article(url):
                        yield request
            elif html and len(lists) < self.cap and url not in spider.lists_requested and self._next_list(url, text):
                if spider.list_pages_left <= 0:  # pagination is a chain, not a tree a page can grow
                    self.counts.add("links", "list_pages_over_limit", site)
                    continue
                spider.list_pages_left -= 1
                spider.lists_requested.add(url)
                lists.append(
                    scrapy.Request(
                        url,
                        callback=spider.parse,
                        dont_filter=True,
                        errback=spider.failed,
                        meta={LIST_DEPTH: self.depth + 1, **({REVISIT_OF: self.revisit_of} if self.revisit_of else {})},
                    )
                )
        for pages in self.later.values():  # later pages whose first page the list does not link
            for url in pages:
                for request in self._article(url, final=True):
                    yield request
        for request in self._flush():
            yield request
        self._report(refused, offsite)
        # A revisit reads the next pages only when every article here was new (the list may
        # have moved past its last visit); a crawl, unless LIST_STOP_AT_SEEN, always.
        ended = self.any_seen if self.revisit_of else not self.any_new and spider.list_stop_at_seen
        if self.articles and ended:
            if lists:
                self.counts.add("pages", "list_ended_at_seen", site)
                spider.logger.debug(
                    "list page %s: every article on it was seen before, its next pages not followed", self.response.url
                )
            return
        for request in lists:
            yield request

    def _report(self, refused: int, offsite: int) -> None:
        """Count and log, once for the page, the links left out and those left for the next run."""
        spider, site, page = self.spider, self.spider.site, short_url(self.response.url)
        if refused:
            self.counts.add("links", "refused_scheme", site, refused)
            spider.logger.warning("list page %s: %d links that are not http(s) refused", page, refused)
        if offsite:
            self.counts.add("links", "refused_offsite", site, offsite)
            spider.logger.info(
                "list page %s: %d article links outside the site's domains (%s) left out",
                page,
                offsite,
                ", ".join(spider.domains),
            )
        if self.past:
            self.counts.add("links", "over_limit", site, self.past)
            spider.logger.warning(
                "list page %s: %d new article links queued (LIST_LINKS_MAX), %d more left for the next run",
                page,
                self.queued,
                self.past,
            )

    def _next_list(self, url: str, text: str) -> bool:
        """A link to the list's next page: matching ``follow``; without it, a 下一页 (or next
        number) link to a start page's host (host, not host:port), LIST_PAGE_LIMIT deep."""
        spider = self.spider
        if self.depth >= spider.list_page_limit:
            return False
        if spider.follow_patterns:
            return spider.on_site(url) and any(p.search(url) for p in spider.follow_patterns)
        return (
            spider.list_follow_next
            and bool(NEXT_LINK_TEXT.search(text))
            and is_next_list_page(text, self.depth)
            and urlparse(url).hostname in spider.hosts
        )

    def _article(self, url: str, final: bool = False) -> Iterator[scrapy.Request]:
        """Take an article link, at its article's first page: story_2.html is a later page
        of story.html where the list links that too (before or after it); else show_12.html
        is an article of its own, not page 12 of show.html."""
        self.articles += 1
        if self.queued >= self.cap:
            self.past += 1
            return
        key = hash(url)
        if key in self.met:
            return
        first, number = page_of(url)
        if not final and number > 1 and self.spider.is_article(first):
            if hash(first) in self.met:
                return
            if self.deferred < self.cap:
                self.deferred += 1
                self.later.setdefault(first, []).append(url)
                return
        self.later.pop(url, None)  # the first page itself: its later pages go with it
        self.met.add(key)
        self.batch.append(url)
        if len(self.batch) >= SEEN_BATCH:
            yield from self._flush()

    def _flush(self) -> Iterator[scrapy.Request]:
        """The batch's new articles queued (those the dupefilter has not seen), up to the cap."""
        spider = self.spider
        requests = [scrapy.Request(u, callback=spider.parse_article, errback=spider.failed) for u in self.batch]
        self.batch = []
        seen = spider.seen(requests)
        for n, request in enumerate(requests):
            if seen is not None and seen[n]:
                self.any_seen = True
                continue
            self.any_new = True
            if self.queued >= self.cap:
                self.past += 1
                continue
            self.queued += 1
            yield request
        if seen is None and requests:
            self.any_new = True
