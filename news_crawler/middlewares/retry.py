"""Scrapy's retries, spaced out: the n-th retry of a request waits
``RETRY_BACKOFF_BASE * 2 ** (n - 1)`` seconds, at most ``RETRY_BACKOFF_MAX``, so a transient
failure (an overloaded portal, a network blip) has time to pass. The wait is asynchronous:
other requests go on meanwhile. After the last retry the page's outcome is ``failed`` and
the next run tries again (see outcomes/store.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.retry import RetryMiddleware
from scrapy.http import Response


class BackoffRetryMiddleware(RetryMiddleware):
    sleep: Callable[[float], Awaitable[Any]] = staticmethod(asyncio.sleep)
    backoff_base: float = 0.0  # RETRY_BACKOFF_BASE, set by from_crawler
    backoff_max: float = 0.0  # RETRY_BACKOFF_MAX

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> BackoffRetryMiddleware:
        o = super().from_crawler(crawler)
        settings = crawler.settings
        o.backoff_base = settings.getfloat("RETRY_BACKOFF_BASE")
        o.backoff_max = settings.getfloat("RETRY_BACKOFF_MAX")
        return o

    def delay(self, retry_times: int) -> float:
        return min(self.backoff_max, self.backoff_base * 2 ** (retry_times - 1))

    async def _spaced(self, result: Any) -> Any:
        if isinstance(result, Request) and self.backoff_base > 0:
            await self.sleep(self.delay(result.meta.get("retry_times", 1)))
        return result

    async def process_response(  # type: ignore[override]  # Scrapy 2.13+ takes coroutines, its stubs not yet
        self, request: Request, response: Response
    ) -> Request | Response:
        return await self._spaced(super().process_response(request, response))

    async def process_exception(  # type: ignore[override]  # as process_response
        self, request: Request, exception: Exception
    ) -> Request | Response | None:
        return await self._spaced(super().process_exception(request, exception))
