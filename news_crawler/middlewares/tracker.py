"""The spider middleware that ends every leased request with a recorded outcome.

It counts the items each response yields; the item signals (scraped, dropped, error)
record each item's outcome; when the response's output is exhausted and all its items
have an outcome, the request's lease ends. A page that could not be fetched arrives
through ``fetch_failed`` (sent by the spider's errback). An exception in a callback or a
pipeline releases the request for the next run, up to ``OUTCOME_RETRY_RUNS`` runs.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, cast

from itemadapter import is_item
from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.http import Response

from news_crawler.connection.outage import Outage
from news_crawler.crawl.counts import Counts
from news_crawler.crawl.meta import RECHECK, is_list_page
from news_crawler.crawl.quickstop import released
from news_crawler.crawl.runtime import Runtime
from news_crawler.frontier.revisits.rechecks import RecheckSchedule
from news_crawler.outcomes.drops import ArticleDrop
from news_crawler.outcomes.failures import classify_failure
from news_crawler.outcomes.latency import LatencyLog
from news_crawler.outcomes.store import OutcomeStore
from news_crawler.printable import short_url
from news_crawler.protocols import Scheduling
from news_crawler.signals import fetch_failed

logger = logging.getLogger(__name__)


def request_of(response: Response) -> Request:
    """The request a response answers (Scrapy sets it on every response it hands a spider)."""
    return cast(Request, response.request)


def spider_name(crawler: Crawler) -> str:
    return crawler.spider.name if crawler.spider is not None else str(crawler.spidercls.name)


class OutcomeTracker:
    ends_leases = True  # protocols.EndsLeases: the scheduler leaves leases to the tracker

    def __init__(
        self,
        crawler: Crawler,
        store: OutcomeStore,
        retry_runs: int,
        outage: Outage,
        latency: LatencyLog | None = None,
        rechecks: RecheckSchedule | None = None,
    ) -> None:
        self.crawler = crawler
        self.store = store
        self.latency = latency  # kept articles' discovery latency
        self.rechecks = rechecks  # kept articles' rechecks start
        self.retry_runs = retry_runs
        self.outage = outage  # writes wait here while Redis is away, in order
        self._pending: dict[int, int] = {}  # id(request) -> items without an outcome yet
        self._open: set[int] = set()  # requests whose callback output is still being read
        self._keep_lease: set[int] = set()  # requests the next run must fetch again
        self._counted: dict[str, str] = {}  # URL -> the outcome this run counted for it

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> OutcomeTracker:
        settings = crawler.settings
        runtime = Runtime.of(crawler)
        store = OutcomeStore.for_spider(runtime.client, settings, spider_name(crawler))
        latency = LatencyLog.for_spider(runtime.client, settings, spider_name(crawler))
        rechecks = RecheckSchedule.for_spider(runtime.client, settings, spider_name(crawler))
        tracker = cls(crawler, store, settings.getint("OUTCOME_RETRY_RUNS"), runtime.outage, latency, rechecks)
        for handler, signal in (
            (tracker.item_scraped, signals.item_scraped),
            (tracker.item_dropped, signals.item_dropped),
            (tracker.item_error, signals.item_error),
            (tracker.spider_error, signals.spider_error),
            (tracker.fetch_failed, fetch_failed),
        ):
            crawler.signals.connect(handler, signal=signal)
        return tracker

    # Spider middleware: count items per response; end the lease when all are settled.
    # Scrapy calls the sync or the async one, depending on the callback; both share _reading.
    def process_spider_output(self, response: Response, result: Iterable[Any]) -> Iterator[Any]:
        request = request_of(response)
        with self._reading(request):
            for o in result:
                yield self._count(request, o)

    async def process_spider_output_async(self, response: Response, result: AsyncIterator[Any]) -> AsyncIterator[Any]:
        request = request_of(response)
        with self._reading(request):
            async for o in result:
                yield self._count(request, o)

    @contextmanager
    def _reading(self, request: Request) -> Iterator[None]:
        """While a callback's output is read: the lease cannot end; after it, it may."""
        self._open.add(id(request))
        self._pending.setdefault(id(request), 0)
        try:
            yield
        except Exception:
            self._open.discard(id(request))  # spider_error releases it, then ends the lease
            raise
        self._output_done(request)

    def _count(self, request: Request, output: Any) -> Any:
        if is_item(output):
            self._pending[id(request)] = self._pending.get(id(request), 0) + 1
        return output

    def _output_done(self, request: Request) -> None:
        self._open.discard(id(request))
        self._maybe_finish(request)

    def _item_done(self, response: Response | None) -> None:
        if response is None or response.request is None:
            return
        key = id(response.request)
        self._pending[key] = self._pending.get(key, 1) - 1
        self._maybe_finish(response.request)

    def _maybe_finish(self, request: Request) -> None:
        key = id(request)
        if key not in self._open and self._pending.get(key, 0) <= 0:
            self._pending.pop(key, None)
            if key in self._keep_lease:
                self._keep_lease.discard(key)
            else:
                self._ack(request)

    @property
    def counts(self) -> Counts:
        return Counts.of(self.crawler.stats)

    def _scheduler(self) -> Scheduling | None:
        """The scheduler, when it holds leases to end (``contracts.Scheduling``)."""
        scheduler = self.crawler.engine.scheduler if self.crawler.engine is not None else None
        return scheduler if isinstance(scheduler, Scheduling) else None

    def _ack(self, request: Request) -> None:
        scheduler = self._scheduler()
        if scheduler is not None:
            scheduler.ack(request)

    def _site(self, item: Any = None) -> str:
        site = item.get("site") if item is not None and hasattr(item, "get") else None
        return site or getattr(self.crawler.spider, "site", "") or spider_name(self.crawler)

    def _record(self, url: str, outcome: str, reason: str, site: str, title: str = "") -> None:
        """The one place an outcome is written: to the store (an article's headline beside
        it), and counted once a URL a run in ``outcomes/<outcome>/<site>`` (a write replayed
        after an outage counts nothing again; a URL whose outcome changes moves to the new
        count), as the store counts a day's outcomes: the summary and the report count the
        same facts."""
        self.store.record(url, outcome, reason, title)
        before = self._counted.get(url)
        if before != outcome:
            if before is not None:
                self.counts.add("outcomes", before, site, -1)
            self.counts.add("outcomes", outcome, site)
            self._counted[url] = outcome

    # Item outcomes.
    def item_scraped(self, item: Any, response: Response) -> None:
        site, title = self._site(item), str(item.get("title") or "")
        self.outage.run(lambda: self._record(item["url"], "kept", "", site, title))
        first = int(item.get("version") or 1) == 1  # a new version's first was timed and is tracked
        if first and self.latency is not None:
            latency, published, crawled = self.latency, str(item.get("published_at") or ""), str(item["crawled_at"])
            self.outage.run(lambda: latency.record(published, crawled))
        if first and self.rechecks is not None and self.rechecks.after:
            rechecks, title, body = self.rechecks, str(item.get("title") or ""), str(item.get("body") or "")
            self.outage.run(lambda: rechecks.track(item["url"], title, body))
        self._item_done(response)

    def item_dropped(self, item: Any, response: Response, exception: BaseException) -> None:
        # This project's drops name their outcome (outcomes/drops.py); any other DropItem is "dropped".
        outcome = exception.outcome if isinstance(exception, ArticleDrop) else "dropped"
        if outcome:
            url, site = item.get("url") or response.url, self._site(item)
            reason = exception.reason if isinstance(exception, ArticleDrop) else str(exception)
            title = str(item.get("title") or "") if outcome == "duplicate" else ""
            self.outage.run(lambda: self._record(url, outcome, reason[:200], site, title))
        if isinstance(exception, ArticleDrop) and not exception.ends_lease and response is not None:
            self._keep_lease.add(id(response.request))
        self._item_done(response)

    def item_error(self, item: Any, response: Response, failure: Any) -> None:
        self._release(request_of(response), item.get("site"), failure)
        self._item_done(response)

    def spider_error(self, failure: Any, response: Response) -> None:
        request = request_of(response)
        self._release(request, None, failure)
        self._pending.pop(id(request), None)
        self._ack(request)

    def _release(self, request: Request, site: str | None, failure: Any) -> None:
        """An exception, not a verdict on the page: fetch it again on the next run."""
        reason = f"{type(failure.value).__name__}: {failure.value}"[:200]
        site = site or self._site()
        self.outage.run(lambda: self._retry_later(request, "error", reason, site))

    def _retry_later(self, request: Request, outcome: str, reason: str, site: str) -> None:
        """Record the attempt, then postpone ``request`` or give up on it. Runs whole, now
        or when Redis is back (``outage.run``). A list page is only recorded: the next run
        fetches it from its start pages anyway (postponed too, it would be fetched, and
        counted, twice)."""
        if is_list_page(request):
            self._record(request.url, outcome, reason, site)
            return
        attempts = self.store.count_attempt(request.url)
        if attempts >= self.retry_runs:
            self._record(request.url, "given_up", f"{reason} ({attempts} runs)", site)
            logger.warning("giving up on %s after %d runs: %s", short_url(request.url), attempts, reason)
            return
        self._record(request.url, outcome, reason, site)
        scheduler = self._scheduler()
        if scheduler is not None:
            scheduler.postpone_now(request)

    # Pages that could not be fetched (the spider's errback sends fetch_failed).
    def fetch_failed(self, request: Request, failure: Any) -> None:
        if released(failure):
            return  # given back to the queue by a stopping crawl: the next run fetches it
        if request.meta.get(RECHECK):  # a kept article fetched again: its outcome stays, its recheck recorded it
            self._ack(request)
            return
        outcome, reason = classify_failure(failure)
        site = self._site()
        if outcome == "failed":
            logger.warning("fetch failed, will retry next run: %s (%s)", short_url(request.url), reason)
            self.outage.run(lambda: self._retry_later(request, "failed", reason, site))
        else:
            url = request.meta.get("redirect_urls", [request.url])[0]  # the URL the dupefilter knows
            if outcome == "invalid":  # a redirect off the site, a refused scheme: with the pages that hold no article
                kind = "redirected_outside" if "redirected" in reason else "not_http"
                self.counts.add("articles", f"invalid_reason/{kind}")
            logger.info("%s: %s (%s), not retried", outcome, short_url(url), reason)
            self.outage.run(lambda: self._record(url, outcome, reason, site))
        self._ack(request)
