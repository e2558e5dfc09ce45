"""scrapy-redis' scheduler, built from the crawler for the pinned Scrapy, with leases and
Redis outages handled.

scrapy-redis 0.9.1 builds components with ``from_settings`` and its own Redis client, and
passes ``spider=`` to ``StatsCollector.inc_value``: both deprecated by Scrapy 2.13+. This
subclass is built by ``from_crawler`` from typed settings (each with a default when unset,
so it works in any Scrapy project), shares the process's Redis client from the one
factory, and queues requests as JSON. With the default leased queue a request is marked
seen and queued in one step, and leaves Redis only once its outcome is recorded.

While Redis does not answer, nothing is taken from the queue, newly found requests and
finished leases are kept in order and written when it is back, and the spider stays open;
past ``REDIS_OUTAGE_LIMIT`` the spider closes with reason ``redis_unavailable``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from scrapy import Request, Spider
from scrapy.crawler import Crawler
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.misc import build_from_crawler, load_object
from scrapy_redis.dupefilter import RFPDupeFilter
from scrapy_redis.scheduler import Scheduler
from twisted.internet import task
from twisted.internet.interfaces import IReactorTime

from news_crawler import connection
from news_crawler.connection.outage import REDIS_ERRORS, Outage
from news_crawler.crawl.counts import Counts
from news_crawler.crawl.runtime import Runtime
from news_crawler.frontier import request_json
from news_crawler.frontier.dupefilter import RedisDupeFilter
from news_crawler.frontier.leasing.queue import LEASE_META
from news_crawler.frontier.leasing.without_tracker import end_leases_on_response
from news_crawler.protocols import LeasedQueue, Scheduling, SeenSet

__all__ = ["RedisDupeFilter", "RedisScheduler"]
logger = logging.getLogger(__name__)

# Scrapy's own in-memory dupefilter is its default DUPEFILTER_CLASS: under this scheduler
# that default means "unset", as a scrapy-redis user would expect, so ours is used.
SCRAPY_DEFAULT_DUPEFILTER = "scrapy.dupefilters.RFPDupeFilter"
WATCH_SECONDS = 1.0  # how often an outage is probed


class RedisScheduler(Scheduler):
    """A queue per spider in Redis, shared by every worker crawling that spider."""

    def __init__(
        self, *args: Any, crawler: Crawler, lease_seconds: float, outage: Outage, probe: Any, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.crawler = crawler
        self.stats = crawler.stats
        self.lease_seconds = lease_seconds
        self.outage = outage
        self.probe = probe  # a client that gives up fast: probing must not hold the reactor
        self._loops: list[task.LoopingCall] = []
        self.timer: IReactorTime | None = None  # what runs the loops (tests give a task.Clock); None: the reactor
        self.clock: Callable[[], float] = time.monotonic  # for SCHEDULER_IDLE_BEFORE_CLOSE
        self._closing = False
        self._empty_since: float | None = None
        self.leased: LeasedQueue | None = None  # the queue, when its pops are leases
        self.seen_set: SeenSet | None = None  # the dupefilter, when it marks and queues in one step

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedisScheduler:
        s = crawler.settings
        runtime = Runtime.of(crawler)
        server = runtime.client
        server.ping()
        dupefilter_cls = s.get("SCHEDULER_DUPEFILTER_CLASS") or s.get("DUPEFILTER_CLASS")
        if dupefilter_cls in (None, SCRAPY_DEFAULT_DUPEFILTER):
            dupefilter_cls = RedisDupeFilter
        return cls(
            server=server,
            persist=s.getbool("SCHEDULER_PERSIST"),
            flush_on_start=s.getbool("SCHEDULER_FLUSH_ON_START"),
            queue_key=s.get("SCHEDULER_QUEUE_KEY"),
            queue_cls=s.get("SCHEDULER_QUEUE_CLASS"),
            dupefilter_key=s.get("SCHEDULER_DUPEFILTER_KEY"),
            dupefilter_cls=dupefilter_cls,
            idle_before_close=s.getint("SCHEDULER_IDLE_BEFORE_CLOSE"),
            serializer=request_json.load_serializer(s.get("SCHEDULER_SERIALIZER"), s.getbool("SCHEDULER_ALLOW_PICKLE")),
            crawler=crawler,
            lease_seconds=s.getfloat("SCHEDULER_LEASE_SECONDS"),
            outage=runtime.outage,
            probe=connection.probe_client(s, server),
        )

    def open(self, spider: Spider) -> None:
        self.spider = spider
        queue_cls = load_object(self.queue_cls)
        self.queue = queue_cls(
            server=self.server,
            spider=spider,
            key=connection.spider_key(self.queue_key, spider.name, self.server),
            serializer=self.serializer,
        )
        self.df = self._build_dupefilter(spider)
        self.leased = self.queue if isinstance(self.queue, LeasedQueue) else None
        self.seen_set = self.df if isinstance(self.df, SeenSet) else None
        if self.flush_on_start:
            self.flush()
        if self.leased is not None:
            self._open_leases(spider, self.leased)
        self._every(WATCH_SECONDS, self._watch)
        if len(self.queue):
            spider.logger.info("Resuming crawl (%d requests scheduled)", len(self.queue))

    def _build_dupefilter(self, spider: Spider) -> Any:
        """As scrapy-redis does: ``from_spider`` (the spider's own persistent set) when the class
        has it, else ``from_crawler``; a dupefilter with a Redis client of its own is moved to
        ours, so that one crawl never talks to two servers."""
        cls = load_object(self.dupefilter_cls)
        if not issubclass(cls, RFPDupeFilter):
            return build_from_crawler(cls, self.crawler)
        df = cls.from_spider(spider)
        if df.server is not self.server:
            df.server = self.server
        return df

    def _open_leases(self, spider: Spider, queue: LeasedQueue) -> None:
        """Take back what dead workers held and what earlier runs postponed; keep our leases alive."""
        queue.lease_seconds = self.lease_seconds
        reclaimed, resumed = queue.reclaim(), queue.resume_postponed()
        if reclaimed or resumed:
            spider.logger.info(
                "requeued %d requests of workers that died and %d postponed by earlier runs", reclaimed, resumed
            )
        Counts.of(self.stats).set("scheduler", "reclaimed", reclaimed)
        Counts.of(self.stats).set("scheduler", "resumed", resumed)
        end_leases_on_response(self.crawler, self.ack)
        self._every(self.lease_seconds / 3, self._renew_leases)

    def _every(self, seconds: float, fn: Any) -> None:
        loop = task.LoopingCall(fn)
        if self.timer is not None:
            loop.clock = self.timer
        loop.start(seconds, now=False)
        self._loops.append(loop)

    def _renew_leases(self) -> None:
        if self.outage.down or self.leased is None:
            return
        try:
            self.leased.renew()
            self.leased.reclaim()  # leases of workers on other hosts that stopped renewing
        except REDIS_ERRORS as e:
            self.outage.failed(e)

    def _watch(self) -> None:
        """During an outage: probe Redis; past the limit, close the spider, once."""
        if not self.outage.down and not self.outage.backlog:
            return
        if self.outage.probe(self.probe.ping):
            return
        if self.outage.over_limit() and not self._closing:
            self._closing = True
            logger.error(
                "Redis did not answer for %.0f s: stopping %s; the next run takes over what was in flight",
                self.outage.limit,
                self.spider.name,
            )
            deferred_from_coro(self.crawler.engine.close_spider_async(reason="redis_unavailable"))

    def close(self, reason: str) -> None:
        for loop in self._loops:
            if loop.running:
                loop.stop()
        self.outage.probe(self.probe.ping)  # a last chance to write what waited
        if reason == "finished" and self.leased is not None and not self.outage.down:
            self._say_who_has_the_work()
        if not self.persist and not self.outage.down:
            self.flush()

    def _say_who_has_the_work(self) -> None:
        """A run that finds the queue empty while another worker holds requests of its spider
        (a crawl of the same spider still running) says so, instead of ending in silence."""
        assert self.leased is not None
        try:
            others = self.leased.held_elsewhere()
        except REDIS_ERRORS:
            return
        if others > 0:
            logger.warning(
                "%s: finished here, the queue empty, while %d of its requests are held by another worker "
                "(a crawl of this spider still running?), which fetches them; if it dies, they come back to the queue",
                self.spider.name,
                others,
            )

    def __len__(self) -> int:
        if self.outage.down:
            return 0
        try:
            return len(self.queue)
        except REDIS_ERRORS as e:
            self.outage.failed(e)
            return 0

    def has_pending_requests(self) -> bool:
        # During an outage the spider must not close as idle: there may be work in Redis.
        if self.outage.down or self.outage.backlog or len(self) > 0:
            self._empty_since = None
            return True
        return self._waiting_for_more()

    def _waiting_for_more(self) -> bool:
        """SCHEDULER_IDLE_BEFORE_CLOSE: an empty queue keeps the spider open this many seconds
        (other workers may still add requests); the queue is polled, never blocked on."""
        if self.idle_before_close <= 0:
            return False
        now = self.clock()
        if self._empty_since is None:
            self._empty_since = now
        return now - self._empty_since < self.idle_before_close

    def enqueue_request(self, request: Request) -> bool:
        """Queue ``request`` unless seen. A retry or redirect of a leased request carries
        the old lease, which ends only once the new request is safely queued."""
        result: list[bool] = []
        self.outage.run(lambda: result.append(self._enqueue(request)))
        queued = result[0] if result else True  # kept for later: it counts as queued
        if request.meta.get(LEASE_META):
            self.ack(request)
        return queued

    def _enqueue(self, request: Request) -> bool:
        if self.leased is not None and self.seen_set is not None:  # marked seen and queued in one step
            queued = self.seen_set.queue_unseen(self.leased, request)
        else:
            queued = request.dont_filter or not self.df.request_seen(request)
            if queued:
                self.queue.push(request)
        if queued:
            Counts.of(self.stats).add("scheduler", "enqueued/redis")
        else:
            self.df.log(request, self.spider)
        return queued

    def next_request(self) -> Request | None:
        if self.outage.down:
            return None  # paused: _watch probes and resumes
        try:
            request = self.queue.pop(0)  # never a blocking pop on the reactor thread
        except REDIS_ERRORS as e:
            self.outage.failed(e)
            return None
        if request is not None:
            Counts.of(self.stats).add("scheduler", "dequeued/redis")
        return request

    def ack(self, request: Request) -> None:
        """``request``'s outcome is recorded: end its lease (now, or when Redis is back)."""
        leased = self.leased
        if leased is not None:
            self.outage.run(lambda: leased.ack(request))

    def postpone(self, request: Request) -> None:
        """Fetch ``request`` again in the next run (now, or when Redis is back)."""
        self.outage.run(lambda: self.postpone_now(request))

    def postpone_now(self, request: Request) -> None:
        """``postpone`` without waiting out an outage (a queue without leases: forget it instead)."""
        if self.leased is not None:
            self.leased.postpone(request)
        else:
            self.forget(request)

    def forget(self, request: Request) -> None:
        """Remove ``request`` from the dupefilter, so a later run schedules it again."""
        if self.seen_set is not None:
            self.seen_set.forget(request)

    def seen_many(self, requests: Sequence[Request]) -> list[bool] | None:
        """Whether each of ``requests`` was seen, marking none; None when the dupefilter cannot tell."""
        return None if self.seen_set is None else self.seen_set.seen_many(requests)

    def release(self, requests: Sequence[Request] | None) -> int:
        """Give ``requests`` (every one still held, for None) back to the queue now, unfetched:
        a stopping crawl (``crawl/quickstop.py``)."""
        if self.leased is None:
            return 0
        if requests is None:
            return self.leased.release()
        return self.leased.release([m for m in (r.meta.get(LEASE_META) for r in requests) if m])


if TYPE_CHECKING:  # mypy checks that the class keeps its contract (protocols.py)

    def _keeps_contract(implementation: RedisScheduler) -> Scheduling:
        return implementation
