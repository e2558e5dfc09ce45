"""Scrapy's downloader with each site's concurrency held.

``CONCURRENT_REQUESTS_PER_DOMAIN`` (a site's ``concurrent_requests``) is the most requests
one site has under way at once. Scrapy's downloader (2.14 to 2.19, under the asyncio
reactor) counts a request as transferring only once the task that fetches it has started;
requests that reach a slot together are all started before the first of their tasks runs,
so a burst of 32 took all 32 of ``CONCURRENT_REQUESTS`` on one site. ``Downloader`` counts a
request as transferring the moment its fetch is scheduled.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any

from scrapy import Request
from scrapy.core.downloader import Downloader as ScrapyDownloader
from scrapy.core.downloader import Slot


class Downloader(ScrapyDownloader):
    """Scrapy's downloader; a request holds its slot's transfer place from when it is
    scheduled (Scrapy's own ``_download`` adds it again, a set, and frees it when done)."""

    def _wait_for_download(self, slot: Slot, request: Request, queue_dfd: Any) -> Coroutine[Any, Any, None]:
        slot.transferring.add(request)
        return super()._wait_for_download(slot, request, queue_dfd)
