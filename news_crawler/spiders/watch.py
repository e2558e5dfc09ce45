"""A spider that watches its start pages (``WATCH``, set by ``news-crawler watch``).

Instead of fetching its start pages once, the spider stays open and visits each one again
when the shared schedule says it is due (``frontier/revisits``): it wakes when the next page
is due (every ``poll`` seconds at least, for what other watchers change), claims the due
pages, fetches them ahead of its articles, and records what each visit found
(new links, unchanged, a 304, a failure), which sets the page's next visit. A revisit is
queued in the spider's shared queue like any request, so whichever process takes it records
its visit: every news spider has a ``Watcher``, which claims pages only when ``watching``.
A watcher also fetches the kept articles whose recheck is due (``spiders/recheck.py``). A revisit sends
the page's ETag and Last-Modified back (If-None-Match, If-Modified-Since): a 304 costs no
parse. The articles it finds go through the same queue, leases, dupefilter, near-duplicate
index, outcomes and feed as a crawl's.
"""

from __future__ import annotations

import itertools
import logging
from typing import Any

import scrapy
from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.exceptions import DontCloseSpider
from scrapy.http import Response
from scrapy.utils.reactor import CallLaterOnce

from news_crawler.connection.outage import REDIS_ERRORS
from news_crawler.crawl.counts import Counts
from news_crawler.crawl.meta import REVISIT_OF, START_PAGE
from news_crawler.crawl.runtime import Runtime
from news_crawler.frontier.revisits import Claimed, RevisitSchedule

logger = logging.getLogger(__name__)
REVISIT = "revisit"  # request meta: a start page visited by the watcher
PRIORITY = 100  # a revisit is fetched before the articles already queued
CLAIM_BATCH = 100
# The shortest sleep between two ticks: pages due within it are claimed together, and many
# pages due at scattered instants cost at most a hundred claims a second.
MIN_WAIT = 0.01


def page_url(meta: dict[str, Any], url: str) -> str:
    """The start page a revisit's response or request is of: the URL before any redirect."""
    return str((meta.get("redirect_urls") or [url])[0])


class Watcher:
    def __init__(
        self, crawler: Crawler, spider: Any, schedule: RevisitSchedule, poll: float, watching: bool = True
    ) -> None:
        self.crawler = crawler
        self.spider = spider
        self.schedule = schedule
        self.poll = poll
        self.watching = watching  # claims due pages and keeps the spider open; else only records visits
        self._next = CallLaterOnce(self._wake)

    @classmethod
    def from_crawler(cls, crawler: Crawler, spider: Any) -> Watcher:
        schedule = RevisitSchedule.for_spider(Runtime.of(crawler).client, crawler.settings, spider.name)
        # A watcher wakes when the next page is due; and, for pages other watchers (or a site's
        # new start pages) make due sooner, at least every tenth of REVISIT_MIN, but not more
        # than ten times a second.
        watching = crawler.settings.getbool("WATCH")
        watcher = cls(crawler, spider, schedule, max(0.1, min(1.0, schedule.lo / 10)), watching)
        if watching:
            crawler.signals.connect(watcher.spider_opened, signal=signals.spider_opened)
            crawler.signals.connect(watcher.spider_idle, signal=signals.spider_idle)
            crawler.signals.connect(watcher.spider_closed, signal=signals.spider_closed)
        return watcher

    @property
    def counts(self) -> Counts:
        return Counts.of(self.crawler.stats)

    def spider_opened(self, spider: Any) -> None:
        added = self.schedule.register(list(self.spider.start_urls))
        logger.info(
            "watching %d start pages (%d new to the schedule), revisited every %gs to %gs",
            len(self.spider.start_urls),
            added,
            self.schedule.lo,
            self.schedule.hi,
        )
        self._wake()

    def spider_idle(self, spider: Any) -> None:
        raise DontCloseSpider  # a watcher runs until it is stopped

    def spider_closed(self, spider: Any) -> None:
        self._next.cancel()

    def _wake(self) -> None:
        """A tick, and the next one when the next page is due (``poll`` at the latest)."""
        try:
            wait = self.tick()
        except Exception:  # a bug: said once, not every tick
            logger.exception("the watch loop stopped")
            return
        self._next.schedule(max(MIN_WAIT, min(self.poll, wait)))  # until spider_closed cancels it

    def tick(self) -> float:
        """Fetch the start pages that are due, and the kept articles whose recheck is; the
        seconds until the next start page is due."""
        if not self.crawler.crawling or self.crawler.engine is None:
            return self.poll
        rechecks = getattr(self.spider, "rechecks", None)
        if rechecks is not None:  # a batch a tick: the claims of the rest wait for the next ticks
            for request in itertools.islice(rechecks.due(CLAIM_BATCH), CLAIM_BATCH):
                self.crawler.engine.crawl(request)
        try:
            claims = self.schedule.claim(CLAIM_BATCH)
        except REDIS_ERRORS as e:  # the scheduler waits Redis out; the next tick tries again
            logger.debug("could not read the revisit schedule: %s", e)
            return self.poll
        if claims.pages:
            # A revisit follows the list's next pages afresh (LIST_PAGE_LIMIT a start page).
            self.spider.lists_requested = set(self.spider.start_urls)
            self.spider.list_pages_left = self.spider.list_page_limit * max(1, len(self.spider.start_urls))
            for page in claims.pages:
                self.crawler.engine.crawl(self.request(page))
        return claims.wait

    def request(self, page: Claimed) -> scrapy.Request:
        headers = {}
        if page.state is not None and page.state.etag:
            headers["If-None-Match"] = page.state.etag
        if page.state is not None and page.state.modified:
            headers["If-Modified-Since"] = page.state.modified
        return scrapy.Request(
            page.url,
            callback=self.spider.parse,
            errback=self.spider.failed,
            dont_filter=True,
            priority=PRIORITY,
            headers=headers,
            # one fetch a visit: a failure is retried at the next visit, which the schedule sets
            meta={
                START_PAGE: True,
                REVISIT: True,
                REVISIT_OF: page.url,
                "handle_httpstatus_list": [304],
                "dont_retry": True,
            },
        )

    def visited(self, response: Response, new_links: int) -> None:
        """Record a revisit's response: a 304, or the new links its page showed."""
        if response.status == 304:
            result = "not_modified"
        else:
            result = "new_links" if new_links else "unchanged"
        self._record(
            page_url(response.meta, response.url),
            result,
            new_links,
            (response.headers.get(b"ETag") or b"").decode("latin-1"),
            (response.headers.get(b"Last-Modified") or b"").decode("latin-1"),
        )

    def more_links(self, url: str, new_links: int) -> None:
        """New links on a list page that start page ``url``'s revisit led to (its next page, a
        sitemap of its sitemap index): evidence of the start page's rate, counted with its visit."""
        try:
            self.schedule.more_links(url, new_links)
        except REDIS_ERRORS as e:
            logger.warning("could not record %d new links of %s: %s", new_links, url, e)

    def failed(self, request: scrapy.Request) -> None:
        """A revisit that could not be fetched: the page keeps its interval."""
        if self.crawler.crawling:  # a stopping crawl gives its requests back: no visit
            self._record(page_url(request.meta, request.url), "failed", 0, "", "")

    def _record(self, url: str, result: str, new_links: int, etag: str, modified: str) -> None:
        self.counts.add("revisits", result, self.spider.site)
        try:
            state = self.schedule.visited(url, result, new_links, etag[:1024], modified[:256])
        except REDIS_ERRORS as e:  # the claim runs out and the page is visited again then
            logger.warning("could not record the revisit of %s: %s", url, e)
            return
        if state is not None:
            logger.debug("%s: %s (%d new), next visit in %.1fs", url, result, new_links, state.interval)
