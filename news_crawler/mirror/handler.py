"""Download handler that fetches every http(s) URL from the mirror at ``MIRROR_URL``.

Requests and responses keep the real URLs (the dupefilter, link extraction and items see
``https://news.sina.com.cn/...``); only the transport goes to ``MIRROR_URL/<host><path>``.
Enabled by setting ``MIRROR_URL``; without it this handler refuses to load.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from scrapy import Request
from scrapy.core.downloader.handlers.base import BaseDownloadHandler
from scrapy.core.downloader.handlers.http11 import HTTP11DownloadHandler
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response


class MirrorDownloadHandler(BaseDownloadHandler):
    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self.base = (crawler.settings.get("MIRROR_URL") or "").rstrip("/")
        if not self.base:
            raise NotConfigured("MIRROR_URL is not set")
        self._http = HTTP11DownloadHandler(crawler)

    def mirrored_url(self, url: str) -> str:
        parts = urlsplit(url)
        return f"{self.base}/{parts.hostname}{parts.path or '/'}" + (f"?{parts.query}" if parts.query else "")

    async def download_request(self, request: Request) -> Response:
        response = await self._http.download_request(request.replace(url=self.mirrored_url(request.url)))
        return response.replace(url=request.url, request=request)

    async def close(self) -> None:
        await self._http.close()


def mirror_settings() -> dict[str, object]:
    """Settings that go with ``MIRROR_URL``: this handler for http(s), and no robots.txt or
    adaptive delay (the mirror is local and has no robots.txt)."""
    handler = "news_crawler.mirror.handler.MirrorDownloadHandler"
    return {"DOWNLOAD_HANDLERS": {"http": handler, "https": handler}, "ROBOTSTXT_OBEY": False,
            "AUTOTHROTTLE_ENABLED": False}
