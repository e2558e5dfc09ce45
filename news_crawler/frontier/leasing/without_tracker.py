"""Where a lease ends in a project that does not enable ``news_crawler.middlewares.tracker.OutcomeTracker``
(a scrapy-redis project that switched only ``SCHEDULER`` and ``DUPEFILTER_CLASS``).

With the tracker, a lease ends once the callback's items are settled. Without it, the
scheduler ends a lease when the response reaches the spider or the request is dropped. A
worker that dies while a callback runs then loses that page's items, as under scrapy-redis;
a request whose download failed for good keeps its lease and is fetched again next run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from scrapy import Request, signals
from scrapy.crawler import Crawler

from news_crawler.protocols import EndsLeases

logger = logging.getLogger(__name__)


def tracker_enabled(crawler: Crawler) -> bool:
    try:
        engine = crawler.engine
    except RuntimeError:  # a scheduler built outside a crawl (component use): no middlewares
        return False
    if engine is None:  # built before the crawl started: no middlewares yet
        return False
    return any(isinstance(m, EndsLeases) for m in engine.scraper.spidermw.middlewares)


def end_leases_on_response(crawler: Crawler, ack: Callable[[Request], None]) -> None:
    """Unless the tracker is enabled, call ``ack(request)`` when its response reaches the
    spider or it is dropped."""
    if tracker_enabled(crawler):
        return

    def on_response(response: Any, request: Request, spider: Any = None) -> None:
        ack(request)

    def on_dropped(request: Request, spider: Any = None) -> None:
        ack(request)

    crawler.signals.connect(on_response, signal=signals.response_received, weak=False)
    crawler.signals.connect(on_dropped, signal=signals.request_dropped, weak=False)
    logger.info(
        "leases end when a response reaches the spider: add news_crawler.middlewares.tracker.OutcomeTracker to "
        "SPIDER_MIDDLEWARES to end them only once its items are settled (a crash then loses nothing)"
    )
