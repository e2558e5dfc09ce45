"""Redis outages are waited out, then given up on, never turned into tracebacks.

One ``Outage`` per Redis client (so per process) knows whether Redis answers. Writes that
must not be lost but can wait (an outcome, a lease's end, a request discovered meanwhile)
go through ``run``: done now when Redis answers, else kept in order and replayed when it
is back. Past ``REDIS_OUTAGE_LIMIT`` seconds the crawl stops; what was kept unsaved was
never marked done in Redis, so the next run does it again (leases stay, see leasing/).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import redis

logger = logging.getLogger(__name__)
T = TypeVar("T")

REDIS_ERRORS = (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError, ConnectionError, TimeoutError)


class RedisUnavailable(RuntimeError):
    """Redis did not answer for longer than ``REDIS_OUTAGE_LIMIT``."""


class Outage:
    def __init__(self, limit: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.clock = clock
        self.down_since: float | None = None
        self.backlog: list[Callable[[], Any]] = []
        self._lock = threading.RLock()

    @property
    def down(self) -> bool:
        return self.down_since is not None

    def over_limit(self) -> bool:
        return self.down_since is not None and self.clock() - self.down_since > self.limit

    def failed(self, error: BaseException) -> None:
        with self._lock:
            if self.down_since is None:
                self.down_since = self.clock()
                logger.warning("Redis does not answer (%s): pausing; giving up after %.0f s", error, self.limit)

    def answered(self) -> None:
        with self._lock:
            if self.down_since is not None:
                logger.warning("Redis answers again after %.1f s: resuming", self.clock() - self.down_since)
                self.down_since = None

    def flush(self) -> bool:
        """Replay the kept writes in order; True when none is left."""
        with self._lock:
            while self.backlog:
                try:
                    self.backlog[0]()
                except REDIS_ERRORS as e:
                    self.failed(e)
                    return False
                self.backlog.pop(0)
                self.answered()
            return True

    def run(self, write: Callable[[], Any]) -> bool:
        """Do ``write`` now (after any kept before it), or keep it for later. True if done.
        During an outage nothing is tried here (the caller's thread is not held up);
        ``probe`` writes the backlog once Redis answers."""
        with self._lock:
            if self.down_since is not None or not self.flush():
                self.backlog.append(write)
                return False
            try:
                write()
            except REDIS_ERRORS as e:
                self.failed(e)
                self.backlog.append(write)
                return False
            self.answered()
            return True

    def probe(self, ping: Callable[[], Any]) -> bool:
        """Does Redis answer now? Replays the kept writes when it does."""
        try:
            ping()
        except REDIS_ERRORS as e:
            self.failed(e)
            return False
        self.answered()
        return self.flush()

    async def call(self, fn: Callable[..., T], *args: Any, backoff: float = 0.2, cap: float = 5.0) -> T:
        """``fn(*args)`` in a thread, waiting out an outage; RedisUnavailable past the limit."""
        delay = backoff
        while True:
            try:
                result = await asyncio.to_thread(fn, *args)
            except REDIS_ERRORS as e:
                self.failed(e)
                if self.over_limit():
                    raise RedisUnavailable(f"Redis did not answer for {self.limit:.0f} s") from None
                await asyncio.sleep(delay)
                delay = min(cap, delay * 2)
                continue
            self.answered()
            return result
