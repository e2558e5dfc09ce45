"""Kept articles fetched again on their schedule (``RECHECK_AFTER``): edits and deletions.

Every crawl fetches the rechecks that are due after its start pages (``news-crawler recheck``
fetches only them, ``RECHECK``; ``watch`` claims them as it goes). A recheck extracts the page
again, and every later page of an article split over pages, joined as the crawl joins them
(a later page that fails makes the recheck a failure, never an edit), and compares the
fields, never the bytes (``frontier/revisits/rechecks.py``): an edit
writes the article again as a new version (``"version": n``) and records an ``edited``
event; a 404 or 410, a redirect to a page that is not an article, or a page that says its
content was removed records ``deleted`` and ends the article's rechecks; a failure (a
timeout, a 503) is counted and the next recheck comes as scheduled. The article's outcome
stays what the crawl recorded; the events are in ``ChangeLog`` (``news-crawler changes``).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

import scrapy
from scrapy.crawler import Crawler
from scrapy.http import Response
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.python.failure import Failure

from news_crawler.connection.outage import REDIS_ERRORS
from news_crawler.crawl.counts import Counts
from news_crawler.crawl.meta import RECHECK
from news_crawler.crawl.page_work import article_page
from news_crawler.crawl.pool import PageTimeout
from news_crawler.crawl.quickstop import released
from news_crawler.crawl.runtime import Runtime
from news_crawler.frontier.revisits.rechecks import ArticleState, RecheckSchedule, Verdict, judge
from news_crawler.outcomes.changes import ChangeLog
from news_crawler.outcomes.failures import GONE_STATUSES, RedirectedOutside

logger = logging.getLogger(__name__)
PAGE_TEXT = 300_000  # characters of a page searched for a removal notice
# A multi-page article's recheck, on its later pages: the pages before joined, how many, and
# the first page's text (where a removal notice is).
RECHECK_ARTICLE, RECHECK_PAGES, RECHECK_TEXT = "recheck_article", "recheck_pages", "recheck_text"


class Rechecks:
    def __init__(self, crawler: Crawler, spider: Any, schedule: RecheckSchedule, log: ChangeLog, only: bool) -> None:
        self.crawler = crawler
        self.spider = spider
        self.schedule = schedule
        self.log = log
        self.only = only  # RECHECK: the rechecks and nothing else

    @classmethod
    def from_crawler(cls, crawler: Crawler, spider: Any) -> Rechecks | None:
        """The spider's rechecks; None when ``RECHECK_AFTER`` is empty (no recheck)."""
        client = Runtime.of(crawler).client
        schedule = RecheckSchedule.for_spider(client, crawler.settings, spider.name)
        if not schedule.after:
            return None
        log = ChangeLog.for_spider(client, crawler.settings, spider.name)
        try:
            moved = schedule.follow_plan()
        except REDIS_ERRORS as e:  # the next run re-plans
            logger.warning("could not read the recheck plan: %s", e)
            moved = None
        if moved is not None:
            logger.info(
                "%s: RECHECK_AFTER is now %s: %d tracked articles re-planned to it",
                spider.name,
                crawler.settings.get("RECHECK_AFTER"),
                moved,
            )
        return cls(crawler, spider, schedule, log, crawler.settings.getbool("RECHECK"))

    @property
    def counts(self) -> Counts:
        return Counts.of(self.crawler.stats)

    def due(self, batch: int = 100) -> Iterator[scrapy.Request]:
        """Requests for every recheck due now, each claimed for this crawl."""
        while True:
            try:
                claimed = self.schedule.claim(batch)
            except REDIS_ERRORS as e:  # the next run takes them
                logger.warning("could not read the recheck schedule: %s", e)
                return
            for url, _state, read in claimed:
                yield scrapy.Request(
                    url,
                    callback=self.spider.parse_recheck,
                    errback=self.spider.recheck_failed,
                    dont_filter=True,
                    meta={RECHECK: read, "dont_retry": True},
                )
            if len(claimed) < batch:
                return

    async def parse(self, response: Response) -> AsyncIterator[Any]:
        """Compare the article, every page of it read again and joined as the crawl joins
        them, with the article as kept; yield its new version if edited."""
        read = response.meta[RECHECK]
        state = ArticleState.from_json(read)
        before = response.meta.get(RECHECK_ARTICLE)  # the pages before, on a later page
        pages = response.meta.get(RECHECK_PAGES, 1)
        site = self.spider.site
        if before is None:
            url = (response.meta.get("redirect_urls") or [response.url])[0]
            if response.url != url and not self.spider.is_article(response.url):
                self._record(url, read, Verdict("deleted", [], f"redirected to {response.url}", state), site)
                return
            text = response.text[:PAGE_TEXT] if hasattr(response, "text") else ""
        else:
            url, text = before["url"], response.meta[RECHECK_TEXT]
        content_type = (response.headers.get(b"Content-Type") or b"").decode("latin-1")
        last = pages >= self.spider.article_max_pages
        try:
            fields = await self.spider.workers.with_fingerprinter(
                article_page,
                response.body,
                content_type,
                url if before is None else response.url,
                before,
                last,
                self.spider.fingerprinted,
                self.spider.images_max,
            )
        except PageTimeout as e:
            self._failed(url, read, state, f"extraction took too long ({e})", site)
            return
        following = fields.pop("next_page", None)
        if following and not last and self.spider.on_site(following) and not fields.get("invalid_reason"):
            yield scrapy.Request(
                following,
                callback=self.spider.parse_recheck,
                errback=self.spider.recheck_failed,
                dont_filter=True,
                meta={
                    RECHECK: read,
                    RECHECK_ARTICLE: {**fields, "url": url},
                    RECHECK_PAGES: pages + 1,
                    RECHECK_TEXT: text,  # a removal notice is on the article's first page
                    "dont_retry": True,
                },
            )
            return
        verdict = judge(state, str(fields.get("title") or ""), str(fields.get("body") or ""), text)
        if verdict.event == "edited" and not fields.get("invalid_reason"):
            yield self.spider.item({**fields, "url": url, "version": verdict.state.version})
        elif verdict.event == "edited":  # a page with no usable article now: not an edit
            verdict = Verdict("", [], "", state)
        self._record(url, read, verdict, site)

    def failed(self, failure: Failure) -> None:
        """A recheck that could not be fetched: a 404, a 410 or a redirect off the article is
        a deletion; anything else a failure, counted, and the next recheck as scheduled."""
        if released(failure):
            return  # a stopping crawl gave it back: its claim runs out and it is due again
        request: scrapy.Request = failure.request  # type: ignore[attr-defined]
        url = (request.meta.get("redirect_urls") or [request.url])[0]
        read = request.meta[RECHECK]
        state = ArticleState.from_json(read)
        site = self.spider.site
        before = request.meta.get(RECHECK_ARTICLE)
        if before is not None:  # a later page: the article cannot be read whole, so nothing is known of it
            error = f"{type(failure.value).__name__}: {failure.value}"
            why = f"page {request.meta.get(RECHECK_PAGES)} ({request.url}): {error}"
            self._failed(before["url"], read, state, why[:300], site)
        elif failure.check(HttpError) and failure.value.response.status in GONE_STATUSES:
            self._record(url, read, Verdict("deleted", [], f"HTTP {failure.value.response.status}", state), site)
        elif failure.check(RedirectedOutside):
            self._record(url, read, Verdict("deleted", [], f"{failure.value}", state), site)
        else:
            self._failed(url, read, state, f"{type(failure.value).__name__}: {failure.value}"[:200], site)

    def _failed(self, url: str, read: str, state: ArticleState, reason: str, site: str) -> None:
        self.counts.add("rechecks", "failed", site)
        logger.info("recheck of %s failed (%s): the next one as scheduled", url, reason)
        self._write(url, read, ArticleState(**{**state.__dict__, "failures": state.failures + 1}), False)

    def _record(self, url: str, read: str, verdict: Verdict, site: str) -> None:
        self.counts.add("rechecks", verdict.event or "unchanged", site)
        if verdict.event:
            try:
                self.log.record(url, site, verdict.event, verdict.state.version, verdict.changed, verdict.reason)
            except REDIS_ERRORS as e:
                logger.warning("could not record that %s was %s: %s", url, verdict.event, e)
            logger.info("%s: %s %s", verdict.event, url, verdict.reason or ", ".join(verdict.changed))
        self._write(url, read, verdict.state, verdict.event == "deleted")

    def _write(self, url: str, read: str, state: ArticleState, done: bool) -> None:
        try:
            self.schedule.checked(url, read, state, done)
        except REDIS_ERRORS as e:  # its claim runs out: it is rechecked again
            logger.warning("could not record the recheck of %s: %s", url, e)
