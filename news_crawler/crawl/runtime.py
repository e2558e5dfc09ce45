"""What the components of one crawler share, in one object built for that crawler.

The scheduler, the dupefilter, the pipelines, the outcome tracker and the spider each come
from a ``from_crawler``; the first of them to ask builds the crawler's ``Runtime``
(``Runtime.of``), the others get the same one: one Redis client (and its connection pool),
that client's outage state (so that they wait out one outage together and replay what
waited in order), the worker pool for extraction and fingerprints, and the clock. It lives
as long as its crawler; nothing is cached by a client's ``id``.

A command line tool that works without a crawler builds its own: ``Runtime.build(settings)``.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable
from typing import Any

from news_crawler import connection
from news_crawler.addon import check_defaults
from news_crawler.connection.outage import Outage
from news_crawler.crawl.pool import WorkerPool, dedup_config


class Runtime:
    """A crawler's (or a command's) Redis client, outage state, worker pool and clock."""

    def __init__(self, client: Any, outage: Outage, pool: WorkerPool, clock: Callable[[], float] = time.time) -> None:
        self.client = client
        self.outage = outage
        self.pool = pool
        self.clock = clock

    @classmethod
    def build(cls, settings: Any, crawler: Any = None) -> Runtime:
        """A new runtime from ``settings`` (its client connects on first use)."""
        check_defaults(settings)
        return cls(
            connection.from_settings(settings),
            Outage(settings.getfloat("REDIS_OUTAGE_LIMIT")),
            WorkerPool(
                dedup_config(settings),
                settings.getint("DEDUP_PROCESSES"),
                crawler,
                settings.getfloat("EXTRACT_TIMEOUT"),
            ),
        )

    @classmethod
    def of(cls, crawler: Any) -> Runtime:
        """The crawler's runtime, built by the first component that asks."""
        runtime = _RUNTIMES.get(crawler)
        if runtime is None:
            runtime = _RUNTIMES[crawler] = cls.build(crawler.settings, crawler)
        return runtime


# One runtime per crawler, for as long as the crawler lives.
_RUNTIMES: weakref.WeakKeyDictionary[Any, Runtime] = weakref.WeakKeyDictionary()
