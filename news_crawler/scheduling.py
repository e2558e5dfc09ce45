"""scrapy-redis' scheduler and dupefilter, built from the crawler for the pinned Scrapy.

scrapy-redis 0.9.1 builds components with ``from_settings`` and its own Redis client, and
passes ``spider=`` to ``StatsCollector.inc_value``: both deprecated by Scrapy 2.13+. These
subclasses are built by ``from_crawler`` from typed settings (each with a default when
unset, so they work in any Scrapy project), share the process's Redis client from the
one factory, count stats without ``spider=``, fingerprint requests with the crawler's
request fingerprinter, and queue requests as JSON.
"""

from __future__ import annotations

from typing import Any

from scrapy import Request, Spider
from twisted.internet import task
from scrapy.crawler import Crawler
from scrapy.statscollectors import StatsCollector
from scrapy.utils.misc import build_from_crawler, load_object
from scrapy_redis.dupefilter import RFPDupeFilter
from scrapy_redis.scheduler import Scheduler

from news_crawler import connection, request_json
from news_crawler.config import with_defaults
from news_crawler.leasing.queue import LEASE_META

# Scrapy's own in-memory dupefilter is its default DUPEFILTER_CLASS: under this scheduler
# that default means "unset", as a scrapy-redis user would expect, so ours is used.
SCRAPY_DEFAULT_DUPEFILTER = "scrapy.dupefilters.RFPDupeFilter"


def _spider_name(crawler: Crawler) -> str:
    return crawler.spider.name if crawler.spider is not None else crawler.spidercls.name


class RedisDupeFilter(RFPDupeFilter):
    """Seen-request fingerprints in a Redis set per spider (``SCHEDULER_DUPEFILTER_KEY``)."""

    def __init__(self, server: Any, key: str, debug: bool = False, *, fingerprinter: Any = None,
                 stats: StatsCollector | None = None) -> None:
        super().__init__(server, key, debug)
        self.fingerprinter = fingerprinter
        self.stats = stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedisDupeFilter:
        settings = with_defaults(crawler.settings)
        key = settings.get("SCHEDULER_DUPEFILTER_KEY") % {"spider": _spider_name(crawler)}
        return cls(connection.from_settings(settings), key,
                   settings.getbool("DUPEFILTER_DEBUG"), fingerprinter=crawler.request_fingerprinter,
                   stats=crawler.stats)

    def request_fingerprint(self, request: Request) -> str:
        if self.fingerprinter is not None:
            return self.fingerprinter.fingerprint(request).hex()
        return super().request_fingerprint(request)

    def forget(self, request: Request) -> None:
        """Let a request be scheduled again (one that failed should be retried next run)."""
        self.server.srem(self.key, self.request_fingerprint(request))

    def log(self, request: Request, spider: Spider) -> None:
        if self.stats is not None:
            self.stats.inc_value("dupefilter/filtered")
        super().log(request, spider)


class RedisScheduler(Scheduler):
    """A queue per spider in Redis, shared by every worker crawling that spider."""

    def __init__(self, *args: Any, crawler: Crawler, lease_seconds: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.crawler = crawler
        self.stats = crawler.stats
        self.lease_seconds = lease_seconds
        self._heartbeat: task.LoopingCall | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedisScheduler:
        s = with_defaults(crawler.settings)
        server = connection.from_settings(s)
        server.ping()
        dupefilter_cls = s.get("DUPEFILTER_CLASS")
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
            serializer=request_json,
            crawler=crawler,
            lease_seconds=s.getfloat("SCHEDULER_LEASE_SECONDS"),
        )

    def open(self, spider: Spider) -> None:
        self.spider = spider
        queue_cls = load_object(self.queue_cls)
        self.queue = queue_cls(server=self.server, spider=spider, key=self.queue_key % {"spider": spider.name},
                               serializer=self.serializer)
        self.df = build_from_crawler(load_object(self.dupefilter_cls), self.crawler)
        if self.flush_on_start:
            self.flush()
        if hasattr(self.queue, "reclaim"):
            self._open_leases(spider)
        if len(self.queue):
            spider.logger.info("resuming crawl: %d requests already queued", len(self.queue))

    def _open_leases(self, spider: Spider) -> None:
        """Take back what dead workers held and what earlier runs postponed; keep our leases alive."""
        self.queue.lease_seconds = self.lease_seconds
        reclaimed, resumed = self.queue.reclaim(), self.queue.resume_postponed()
        if reclaimed or resumed:
            spider.logger.info("requeued %d requests of workers that died and %d postponed by earlier runs",
                               reclaimed, resumed)
        self.stats.set_value("scheduler/reclaimed", reclaimed)
        self.stats.set_value("scheduler/resumed", resumed)
        self._heartbeat = task.LoopingCall(self._renew_leases)
        self._heartbeat.start(self.lease_seconds / 3, now=False)

    def _renew_leases(self) -> None:
        self.queue.renew()
        self.queue.reclaim()  # leases of workers on other hosts that stopped renewing

    def close(self, reason: str) -> None:
        if self._heartbeat is not None and self._heartbeat.running:
            self._heartbeat.stop()
        super().close(reason)

    def enqueue_request(self, request: Request) -> bool:
        """Queue ``request`` unless seen. A retry or redirect of a leased request carries
        the old lease, which ends only once the new request is safely queued."""
        queued = request.dont_filter or not self.df.request_seen(request)
        if queued:
            self.stats.inc_value("scheduler/enqueued/redis")
            self.queue.push(request)
        else:
            self.df.log(request, self.spider)
        if request.meta.get(LEASE_META):
            self.ack(request)
        return queued

    def next_request(self) -> Request | None:
        request = self.queue.pop(self.idle_before_close)
        if request is not None:
            self.stats.inc_value("scheduler/dequeued/redis")
        return request

    def ack(self, request: Request) -> None:
        """``request``'s outcome is recorded: end its lease."""
        ack = getattr(self.queue, "ack", None)
        if ack is not None:
            ack(request)

    def postpone(self, request: Request) -> None:
        """Fetch ``request`` again in the next run (a queue without leases: forget it instead)."""
        postpone = getattr(self.queue, "postpone", None)
        if postpone is not None:
            postpone(request)
        else:
            self.forget(request)

    def forget(self, request: Request) -> None:
        """Remove ``request`` from the dupefilter, so a later run schedules it again."""
        forget = getattr(self.df, "forget", None)
        if forget is not None:
            forget(request)
