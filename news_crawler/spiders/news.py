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

With ``WATCH`` (``news-crawler watch``) the spider stays open and its start pages are fetched
again whenever the shared revisit schedule says (``spiders/watch.py``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlparse

import scrapy
import tldextract
from scrapy.http import Response
from twisted.python.failure import Failure

from news_crawler.config import as_list
from news_crawler.crawl.counts import Counts
from news_crawler.crawl.meta import LIST_DEPTH, REVISIT_OF, START_PAGE
from news_crawler.crawl.page_work import article_page, finished
from news_crawler.crawl.pool import PageTimeout, WorkerPool
from news_crawler.crawl.runtime import Runtime
from news_crawler.extraction import extract_article
from news_crawler.extraction.page import invalid, page_fields
from news_crawler.fields import well_formed
from news_crawler.items import ArticleItem
from news_crawler.protocols import Scheduling
from news_crawler.signals import fetch_failed
from news_crawler.spiders.list_page import ListPage
from news_crawler.spiders.listing import (
    as_html,
    feed_links,
    html_links,
    is_feed,
    is_markup,
    is_sitemap_index,
    unpacked,
    web_url,
)
from news_crawler.spiders.recheck import Rechecks
from news_crawler.spiders.seeds import RedisSeeds
from news_crawler.spiders.watch import REVISIT, Watcher


def tracking_pattern(pattern: str | None) -> re.Pattern[str] | None:
    """``URL_TRACKING_PARAMS`` compiled (None when empty); ValueError for a bad pattern."""
    try:
        return re.compile(pattern) if pattern else None
    except re.error as e:
        raise ValueError(f"bad URL_TRACKING_PARAMS pattern {pattern!r}: {e}") from None


def failed_request(failure: Failure) -> scrapy.Request:
    """The request Scrapy attaches to a download's failure."""
    request: scrapy.Request = failure.request  # type: ignore[attr-defined]
    return request


_REMOTE_CONTROL = "scrapy.extensions.remote_control.RemoteControl"

# The public suffix list as tldextract ships it: never fetched at run time.
_DOMAINS = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)


def site_domain(host: str) -> str:
    """The domain a host belongs to (``news.sina.com.cn`` -> ``sina.com.cn``, ``www.example.gov.cn``
    -> ``example.gov.cn``); an IP address or a single-label host is its own."""
    return _DOMAINS(host).top_domain_under_public_suffix or host


def on_domains(url: str, domains: list[str]) -> bool:
    """``url`` is http(s) and its host (not host:port) is one of ``domains`` or under one."""
    if not web_url(url):
        return False
    host = (urlparse(url).hostname or "").rstrip(".")
    return any(host == d or host.endswith("." + d) for d in domains)


def check_arguments(spidercls: type, spider_args: dict[str, Any], settings: Any) -> None:
    """ValueError for ``-a`` arguments or settings a news spider refuses (built from them alone:
    nothing starts); other spiders are not checked."""
    if issubclass(spidercls, NewsSpider):
        spidercls(**spider_args).check_start_urls(settings)
        tracking_pattern(settings.get("URL_TRACKING_PARAMS"))
        if spidercls.render == "browser":
            from news_crawler.middlewares import browser  # Playwright is loaded by browser sites only

            browser.require(settings)  # UserError: no browser, one line


class NewsSpider(scrapy.Spider):
    name = "news"
    site = ""
    start_urls: list[str] = []
    allow: list[str] = []
    deny: list[str] = []
    follow: list[str] = []  # list pagination; portal spiders set their own
    # Where the site's pages may be (Scrapy's attribute; -a allowed_domains=a.cn,b.cn): empty
    # means the start pages' domains. Links, and where redirects land, must be on them.
    allowed_domains: list[str] = []
    custom_settings: dict[str, Any] = {}
    # What the worker pool does with an article page (``crawl/page_work.py``); a module-level
    # function, since it reaches the worker process by name.
    page_work: Callable[..., dict[str, Any]] = staticmethod(article_page)
    # Set by from_crawler, from settings.
    workers: WorkerPool
    fingerprinted: bool
    list_page_limit: int
    list_stop_at_seen: bool
    list_follow_next: bool
    article_max_pages: int
    images_max: int
    tracking: re.Pattern[str] | None
    strip_params: str | None = None  # the site's own URL_TRACKING_PARAMS (sites file), else the setting
    render = "http"  # "browser" (sites file): pages read through Chromium (middlewares/browser.py)
    wait_for = ""  # a browser site's CSS selector: its pages are read once it matches (sites file)
    max_list_bytes: int = 0  # DOWNLOAD_MAXSIZE: a list page's unpacked bytes, at most
    links_max: int
    list_pages_left: int  # list pages this run may still follow
    seeds: RedisSeeds | None = None  # a cluster worker's start pages come through Redis
    watcher: Watcher | None = None  # records revisits; with WATCH, revisits start pages on the shared schedule
    rechecks: Rechecks | None = None  # kept articles fetched again (RECHECK_AFTER)

    def __init__(
        self,
        *args: Any,
        start_urls: str | list[str] | None = None,
        allow: str | list[str] | None = None,
        deny: str | list[str] | None = None,
        follow: str | list[str] | None = None,
        site: str | None = None,
        allowed_domains: str | list[str] | None = None,
        **kwargs: Any,
    ) -> None:
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
            # file: start pages only with START_URLS_ALLOW_FILE, checked in from_crawler
            if not (web_url(url) or (urlparse(url).scheme == "file" and urlparse(url).path)):
                raise ValueError(f"bad start URL {url!r}: it needs http:// or https:// and a host")
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
        self.follow_patterns = [re.compile(p) for p in self.follow]
        if allowed_domains:
            self.allowed_domains = as_list(allowed_domains)
        hosts = [urlparse(u).hostname or "" for u in self.start_urls if web_url(u)]
        self.domains = [d.lower().strip(".") for d in self.allowed_domains] or sorted({site_domain(h) for h in hosts})
        self.hosts = set(hosts)  # without follow patterns: a 下一页 link to one of these is the list's next page
        self.lists_requested: set[str] = set(self.start_urls)  # this process's, so pagination cannot loop

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> NewsSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.workers = Runtime.of(crawler).pool
        settings = crawler.settings
        spider.fingerprinted = settings.getbool("DEDUP_ENABLED")  # the pool also fingerprints each article
        spider.list_page_limit = settings.getint("LIST_PAGE_LIMIT")
        spider.list_stop_at_seen = settings.getbool("LIST_STOP_AT_SEEN")
        spider.list_follow_next = settings.getbool("LIST_FOLLOW_NEXT")
        spider.article_max_pages = settings.getint("ARTICLE_MAX_PAGES")
        spider.images_max = settings.getint("IMAGES_MAX")
        own = spider.strip_params
        spider.tracking = tracking_pattern(own if own is not None else settings.get("URL_TRACKING_PARAMS"))
        spider.max_list_bytes = settings.getint("DOWNLOAD_MAXSIZE")
        spider.links_max = settings.getint("LIST_LINKS_MAX")
        # List pages followed in one run, at most: LIST_PAGE_LIMIT a start page. The depth limit
        # alone would let a page of a thousand "next" links grow a tree of list pages.
        spider.list_pages_left = spider.list_page_limit * max(1, len(spider.start_urls))
        spider.check_start_urls(settings)
        if spider.render == "browser":
            from news_crawler.middlewares import browser

            browser.require(settings)  # no browser: one line before anything starts
        spider.watcher = Watcher.from_crawler(crawler, spider)
        spider.rechecks = Rechecks.from_crawler(crawler, spider)
        if crawler.settings.getbool("SEED_FROM_REDIS") and not spider.watcher.watching:
            spider.seeds = RedisSeeds.from_crawler(crawler, spider)
        return spider

    async def start(self) -> Any:
        only_rechecks = self.rechecks is not None and self.rechecks.only
        if self.seeds is not None or self.watcher is not None and self.watcher.watching or only_rechecks:
            pass  # start pages arrive through Redis (RedisSeeds), or when due (Watcher), or not at all
        else:
            for url in self.start_urls:
                # List pages change every day: always fetch them, past the persistent dupefilter.
                yield scrapy.Request(
                    url, callback=self.parse, dont_filter=True, errback=self.failed, meta={START_PAGE: True}
                )
        if self.rechecks is not None and (self.watcher is None or not self.watcher.watching):
            for request in self.rechecks.due():  # then the kept articles whose recheck is due
                yield request

    def check_start_urls(self, settings: Any) -> None:
        """ValueError for start pages the settings refuse: ``file:`` ones without
        ``START_URLS_ALLOW_FILE``, or with no domain for the site's links (``allowed_domains``)."""
        local = [url for url in self.start_urls if not web_url(url)]
        if local and not settings.getbool("START_URLS_ALLOW_FILE"):
            raise ValueError(
                f"start URL {local[0]!r} is not http(s); file: start pages are read only with "
                "-s START_URLS_ALLOW_FILE=True (local testing)"
            )
        if local and not self.domains:
            raise ValueError(
                "file: start pages name no site: say where its articles are with -a allowed_domains=DOMAIN[,DOMAIN...]"
            )

    @classmethod
    def update_settings(cls, settings: Any) -> None:
        super().update_settings(settings)
        if settings.getbool("START_URLS_ALLOW_FILE"):  # Scrapy's file handler, off by default, for start pages
            handlers = dict(settings.getdict("DOWNLOAD_HANDLERS"))
            handlers["file"] = "scrapy.core.downloader.handlers.file.FileDownloadHandler"
            settings.set("DOWNLOAD_HANDLERS", handlers, priority="spider")
        if not settings.getbool("REMOTE_CONTROL_ENABLED"):
            # Scrapy imports every extension it lists, even one its setting turns off or one
            # set to None: its remote control brings aiohttp's web server, a tenth of a second
            # of every crawl's start. Off, it is left out of the list.
            base = settings.getdict("EXTENSIONS_BASE")
            base.pop(_REMOTE_CONTROL, None)
            settings.set("EXTENSIONS_BASE", base, priority="spider")
        if cls.render == "browser":
            from news_crawler.middlewares import browser

            browser.install(settings)

    @property
    def counts(self) -> Counts:
        """The crawl's counts (its stats exist once the crawl starts)."""
        return Counts.of(self.crawler.stats)

    def on_site(self, url: str) -> bool:
        """``url`` is http(s), on the site's domains (``allowed_domains``, else the start pages')."""
        return on_domains(url, self.domains)

    def allows_redirect(self, request: scrapy.Request) -> bool:
        """Where a redirect (HTTP or meta refresh) leads ``request`` is still the site's: on its
        domains, and an article's first page still an article (matching ``allow``, not ``deny``)."""
        if not self.on_site(request.url):
            return False
        first_page = request.callback == self.parse_article and "article" not in request.meta
        return not first_page or self.is_article(request.url)

    def is_article(self, url: str) -> bool:
        return any(p.search(url) for p in self._allow) and not any(p.search(url) for p in self._deny)

    def sitemaps(self, response: Response) -> Iterator[scrapy.Request]:
        """The sitemaps a sitemap index lists (those matching ``follow``, when it is given)."""
        depth = response.meta.get(LIST_DEPTH, 0)
        if depth >= self.list_page_limit:
            return
        for url in itertools.islice(feed_links(response.body, response.url), self.links_max):
            if not self.on_site(url):
                self.counts.add("links", "refused_scheme" if not web_url(url) else "refused_offsite", self.site)
                continue
            if (
                not self.follow_patterns or any(p.search(url) for p in self.follow_patterns)
            ) and url not in self.lists_requested:
                if self.list_pages_left <= 0:
                    self.counts.add("links", "list_pages_over_limit", self.site)
                    continue
                self.list_pages_left -= 1
                self.lists_requested.add(url)
                meta = {LIST_DEPTH: depth + 1}
                if response.meta.get(REVISIT_OF):  # a watched sitemap index: its sitemaps' links are its own
                    meta[REVISIT_OF] = response.meta[REVISIT_OF]
                yield scrapy.Request(url, callback=self.parse, dont_filter=True, errback=self.failed, meta=meta)

    async def parse(self, response: Response, **kwargs: Any) -> AsyncIterator[scrapy.Request]:
        revisit = self.watcher if response.meta.get(REVISIT) else None
        if revisit is not None and response.status == 304:  # unchanged, as its validators say
            revisit.visited(response, 0)
            return
        self.counts.add("pages", "list", self.site)
        listing = ListPage(self, response)
        async for request in self.list_requests(response, listing):
            yield request
        found = listing.queued + listing.past
        if revisit is not None:
            revisit.visited(response, found)
        elif found and self.watcher is not None and response.meta.get(REVISIT_OF):
            self.watcher.more_links(response.meta[REVISIT_OF], found)

    async def list_requests(self, response: Response, listing: ListPage) -> AsyncIterator[scrapy.Request]:
        """The requests of a list page, feed or sitemap: its new articles and next list pages."""
        body = unpacked(response.body, self.max_list_bytes)
        if body is None:
            self.counts.add("pages", "list_unreadable", self.site)
            self.logger.warning("list page %s is gzip that cannot be unpacked: no links taken from it", response.url)
            return
        if body is not response.body:  # a gzipped sitemap
            response = Response(response.url, body=body, request=response.request)
        if is_sitemap_index(body):
            for request in self.sitemaps(response):
                yield request
            return
        if is_feed(body):
            async for request in listing.read((url, "") for url in feed_links(body, response.url)):
                yield request
            return
        page = as_html(response) if is_markup(body) else None
        if page is None:
            self.counts.add("pages", "list_unrecognised", self.site)
            self.logger.warning(
                "list page %s is neither an HTML page nor a feed (it starts %r): no links taken from it",
                response.url,
                body[:20],
            )
            return
        async for request in listing.read(html_links(page.text, page.url), html=True, encoding=page.encoding):
            yield request

    def seen(self, requests: list[scrapy.Request]) -> list[bool] | None:
        """Which of ``requests`` the dupefilter has seen, without marking them; None when it
        cannot tell (a dupefilter without ``seen_many``, or Redis not answering)."""
        scheduler = self.crawler.engine.scheduler if self.crawler.engine is not None else None
        if not isinstance(scheduler, Scheduling) or not requests:
            return None
        try:
            return scheduler.seen_many(requests)
        except Exception as e:  # noqa: BLE001 - an outage: every link counts as new
            self.logger.warning(
                "could not ask the dupefilter whether %d articles were seen (%s): taking them as new", len(requests), e
            )
            return None

    async def parse_article(self, response: Response) -> AsyncIterator[Any]:
        self.counts.add("pages", "article", self.site)
        content_type = (response.headers.get(b"Content-Type") or b"").decode("latin-1")
        article = response.meta.get("article")  # the pages before, on a later page
        pages = response.meta.get("article_pages", 1)
        last = pages >= self.article_max_pages
        # One trip to the worker pool a page: the fields, the pages before joined, and the
        # whole article's fingerprint for the near-duplicate pipeline (``crawl/page_work.py``).
        try:
            if type(self).extract is not NewsSpider.extract:  # a portal's own extraction: here, as written
                own = page_fields(
                    response.body,
                    content_type,
                    response.url,
                    lambda html: self.extract(html, response),
                    article is not None,
                )
                fields = await self.workers.with_fingerprinter(
                    finished, own, response.url, article, last, self.fingerprinted, self.images_max
                )
            else:  # the reactor thread only moves bytes
                fields = await self.workers.with_fingerprinter(
                    self.page_work,
                    response.body,
                    content_type,
                    response.url,
                    article,
                    last,
                    self.fingerprinted,
                    self.images_max,
                )
        except PageTimeout as e:  # the pages before make the item; a first page holds no article
            slow = {**invalid(f"extraction took too long ({e}: EXTRACT_TIMEOUT)", "too_slow"), "url": response.url}
            fields = dict(article) if article is not None else slow
        next_url = fields.pop("next_page", None)
        if next_url and not self.on_site(next_url):  # a page of the story is on the site, or it is no page of it
            self.counts.add("links", "refused_scheme" if not web_url(next_url) else "refused_offsite", self.site)
            next_url = None
        if next_url and not last:
            yield scrapy.Request(
                next_url,
                callback=self.parse_article,
                errback=self.next_page_failed,
                dont_filter=True,
                meta={"article": fields, "article_pages": pages + 1},
            )
            return
        yield self.item(fields)

    def item(self, fields: dict[str, Any]) -> ArticleItem:
        """The item of an article's fields, every text well formed (a feed line can hold it)."""
        fields = {key: well_formed(value) for key, value in fields.items()}
        fields.setdefault("version", 1)  # a recheck's new version sets its own
        return ArticleItem(site=self.site, crawled_at=datetime.now(UTC).isoformat(timespec="milliseconds"), **fields)

    def next_page_failed(self, failure: Failure) -> Iterator[ArticleItem]:
        """A later page of an article could not be fetched: the pages before it make the item."""
        self.counts.add("pages", "article_page_failed", self.site)
        self.logger.warning(
            "page %s of an article could not be fetched (%s): keeping the pages before it",
            failed_request(failure).url,
            failure.value,
        )
        yield self.item(failed_request(failure).meta["article"])

    def extract(self, html: str, response: Response):
        """Article fields of a page; portal spiders override this only where generic extraction
        is wrong (an override runs in the crawl process, the generic extraction in the pool)."""
        return extract_article(html, response.url)

    async def parse_recheck(self, response: Response) -> AsyncIterator[Any]:
        """A kept article fetched again (``spiders/recheck.py``)."""
        if self.rechecks is not None:
            async for item in self.rechecks.parse(response):
                yield item

    def recheck_failed(self, failure: Failure) -> None:
        """A kept article that could not be fetched again: maybe deleted (``spiders/recheck.py``)."""
        if self.rechecks is not None:
            self.rechecks.failed(failure)
        # the outcome tracker ends its lease (a recheck has no outcome of its own)
        self.crawler.signals.send_catch_log(fetch_failed, request=failed_request(failure), failure=failure)

    def failed(self, failure: Failure) -> None:
        """A page that could not be fetched: the outcome tracker decides what it means
        (gone, refused by robots.txt, or a failure to try again on the next run)."""
        request = failed_request(failure)
        if self.watcher is not None and request.meta.get(REVISIT):
            self.watcher.failed(request)
        self.crawler.signals.send_catch_log(fetch_failed, request=request, failure=failure)
