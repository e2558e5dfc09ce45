"""The downloader's last word on what is fetched: only http(s), and a redirect must land on
the site.

Links found in pages are checked by the spider already (``spiders/news.py``); this
middleware checks every request once more, because a request can come from elsewhere (a
redirect, a meta refresh, another spider, a queue filled by hand). Scrapy's ``file``,
``ftp``, ``s3`` and ``data`` handlers are off in ``settings.py``; with
``START_URLS_ALLOW_FILE`` a ``file:`` start page is read, never a ``file:`` link.

A redirect (HTTP or meta refresh) that leads a news spider's request off its site (another
domain, or an article's first page to a URL that is no article) is refused before it is
fetched: the URL's outcome is ``invalid``, ``redirected outside the site``. An HTTP
redirect to a URL no request can be made of (a broken IPv6 host, a port out of range) is
refused the same way; a meta refresh to one, or a page whose ``<base href>`` is one, is no
refresh: the page is read as it came. ``links/refused_redirect/<site>`` counts both (Scrapy's
own middlewares raise there, and the page would fail on every run).
"""

from __future__ import annotations

from typing import Any

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.downloadermiddlewares.redirect import MetaRefreshMiddleware, RedirectMiddleware
from scrapy.http import Response
from scrapy.utils.httpobj import urlparse_cached

from news_crawler.crawl.counts import Counts
from news_crawler.crawl.meta import START_PAGE
from news_crawler.outcomes.failures import RedirectedOutside, RefusedScheme
from news_crawler.printable import printable, short_url
from news_crawler.protocols import SiteSpider

WEB_SCHEMES = ("http", "https")


class SafeRequests:
    def __init__(self, crawler: Crawler, allow_file_start: bool) -> None:
        self.crawler = crawler
        self.allow_file_start = allow_file_start

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> SafeRequests:
        return cls(crawler, crawler.settings.getbool("START_URLS_ALLOW_FILE"))

    def process_request(self, request: Request) -> Any:
        spider = self.crawler.spider
        scheme = urlparse_cached(request).scheme
        site = spider.site if isinstance(spider, SiteSpider) else getattr(spider, "name", "")
        if scheme not in WEB_SCHEMES and not (
            scheme == "file"
            and self.allow_file_start
            and request.meta.get(START_PAGE)
            and not request.meta.get("redirect_urls")
        ):
            Counts.of(self.crawler.stats).add("links", "refused_scheme", site)
            raise RefusedScheme(f"refused: {scheme}: is not http(s): {short_url(request.url)}")
        if request.meta.get("redirect_urls") and isinstance(spider, SiteSpider) and not spider.allows_redirect(request):
            first = request.meta["redirect_urls"][0]
            raise RedirectedOutside(f"{RedirectedOutside.reason}: {short_url(first)} -> {short_url(request.url)}")
        return None


class SafeRedirect(RedirectMiddleware):
    """Scrapy's HTTP redirects, but one to a ``Location`` no request can be made of is refused
    (outcome ``invalid``) instead of raising."""

    def process_response(self, request: Request, response: Response, spider: Any = None) -> Request | Response:
        try:
            return super().process_response(request, response)
        except ValueError:
            spider = self.crawler.spider
            site = spider.site if isinstance(spider, SiteSpider) else getattr(spider, "name", "")
            Counts.of(self.crawler.stats).add("links", "refused_redirect", site)
            to = printable((response.headers.get("Location") or b"").decode("latin-1"), 200)
            raise RedirectedOutside(f"{RedirectedOutside.reason}: {short_url(request.url)} -> {to}") from None


class SafeMetaRefresh(MetaRefreshMiddleware):
    """Scrapy's meta refresh, but a refresh (or a ``<base href>``) no request can be made of
    is no refresh: the page is read as it came."""

    def process_response(self, request: Request, response: Response, spider: Any = None) -> Request | Response:
        try:
            return super().process_response(request, response)
        except ValueError:  # raised reading the <base>, whether or not the page has a refresh
            return response
