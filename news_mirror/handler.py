"""Download handler that fetches every http(s) URL from the mirror at ``MIRROR_URL``.

Requests and responses keep the real URLs (the dupefilter, link extraction and items see
``https://news.sina.com.cn/...``); only the transport goes to ``MIRROR_URL/<host><path>``.
Without ``MIRROR_URL`` this handler refuses to load.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from scrapy import Request
from scrapy.core.downloader.handlers.base import BaseDownloadHandler
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response


def mirror_path(url: str) -> str:
    """``<host><path>[?query]``: where the mirror serves the page of a real URL."""
    parts = urlsplit(url)
    return f"{parts.hostname}{parts.path or '/'}" + (f"?{parts.query}" if parts.query else "")


class MirrorDownloadHandler(BaseDownloadHandler):
    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self.base = (crawler.settings.get("MIRROR_URL") or "").rstrip("/")
        if not self.base:
            raise NotConfigured("MIRROR_URL is not set")
        self._http = HTTP11DownloadHandler(crawler)

    async def download_request(self, request: Request) -> Response:
        mirrored = request.replace(url=f"{self.base}/{mirror_path(request.url)}")
        response = await self._http.download_request(mirrored)
        return response.replace(url=request.url, request=request)

    async def close(self) -> None:
        await self._http.close()
