"""A stop within seconds of SIGTERM, whatever the downloader holds.

On the first SIGTERM (or Ctrl-C) Scrapy stops taking requests but fetches every request its
downloader already holds: with a hundred requests queued for a slow site that can take a
minute, and ``docker stop`` or systemd send SIGKILL after ten seconds. So once the engine
stops, the requests the downloader holds but has not started go back to the Redis queue at
once (their leases released, not waited out) and are given up here; the ones being fetched
have ``STOP_TIMEOUT`` seconds to finish. Past it, every lease still held goes back to the
queue and the reactor is stopped. Nothing is lost either way: the next run (or another
worker) fetches what was released, and what was written to a feed before the stop is known
to the index (``pipelines/dedup.py``) and not written twice.
"""

from __future__ import annotations

import logging
from typing import Any

from scrapy import Request, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import IgnoreRequest, NotConfigured
from twisted.python.failure import Failure

from news_crawler.connection.outage import REDIS_ERRORS
from news_crawler.protocols import Scheduling

logger = logging.getLogger(__name__)
CHECK_SECONDS = 0.25  # how often the engine is asked whether it is stopping


class Released(IgnoreRequest):
    """A request given back to the queue unfetched by a stopping crawl: no outcome of its own."""


class QuickStop:
    def __init__(self, crawler: Crawler, timeout: float) -> None:
        self.crawler = crawler
        self.timeout = timeout
        self._loop: Any = None  # a LoopingCall, once the engine runs
        self._deadline: Any = None  # the reactor's DelayedCall of force()
        self._ran = False  # the engine runs only once every engine_started handler is done

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> QuickStop:
        timeout = crawler.settings.getfloat("STOP_TIMEOUT")
        if timeout <= 0:
            raise NotConfigured
        stop = cls(crawler, timeout)
        crawler.signals.connect(stop.engine_started, signal=signals.engine_started)
        crawler.signals.connect(stop.spider_closed, signal=signals.spider_closed)
        return stop

    def engine_started(self) -> None:
        from twisted.internet import task  # the reactor is installed by now

        self._loop = task.LoopingCall(self._check)
        self._loop.start(CHECK_SECONDS, now=False)

    def spider_closed(self) -> None:
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        if self._deadline is not None and self._deadline.active():
            self._deadline.cancel()

    def _scheduler(self) -> Scheduling | None:
        engine = self.crawler.engine
        scheduler = engine.scheduler if engine is not None else None
        return scheduler if isinstance(scheduler, Scheduling) else None

    def _check(self) -> None:
        engine = self.crawler.engine
        if engine is None:
            return
        if engine.running:
            self._ran = True
            return
        if not self._ran and self.crawler.crawling:
            return  # still starting (a browser being launched), not stopping
        assert self._loop is not None
        self._loop.stop()
        self.begin()

    def begin(self) -> None:
        """The engine is stopping: give back what the downloader has not started."""
        unstarted: list[Request] = []
        engine = self.crawler.engine
        for slot in engine.downloader.slots.values() if engine is not None else ():
            while slot.queue:
                request, waiting = slot.queue.popleft()
                unstarted.append(request)
                waiting.errback(Failure(Released("the crawl is stopping: back to the queue, unfetched")))
        released = self._release(unstarted)
        logger.info(
            "stopping: %d requests not yet fetched went back to the queue; the ones being fetched have %g s "
            "(STOP_TIMEOUT)",
            released,
            self.timeout,
        )
        self._deadline = _reactor().callLater(self.timeout, self.force)

    def force(self) -> None:
        """``STOP_TIMEOUT`` passed: every lease still held back to the queue, the reactor stopped."""
        released = self._release(None)
        logger.warning(
            "stopped after %g s (STOP_TIMEOUT): %d requests still being fetched went back to the queue",
            self.timeout,
            released,
        )
        try:
            _reactor().stop()
        except RuntimeError:  # stopping already
            pass

    def _release(self, requests: list[Request] | None) -> int:
        scheduler = self._scheduler()
        if scheduler is None:
            return 0
        try:
            return scheduler.release(requests)
        except REDIS_ERRORS as e:  # they stay leased: the next run on this host takes them back at once
            logger.warning("could not give %s back to the queue (%s)", "requests" if requests else "leases", e)
            return 0


def _reactor() -> Any:
    """The reactor Scrapy installed (imported only once it is: importing it installs one)."""
    from twisted.internet import reactor

    return reactor


def released(failure: Any) -> bool:
    """The failure of a request a stopping crawl gave back: it gets no outcome."""
    return bool(failure.check(Released))
