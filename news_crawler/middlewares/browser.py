"""Pages that need a browser: a site with ``render = "browser"`` (sites file) is fetched
through scrapy-playwright with the machine's Chromium (``BROWSER_PATH``; else ``chromium``
on PATH), its pages read once their ``load`` event fired, as the browser built them.

Only such sites start a browser: their spiders' settings name ``BrowserHandler`` for http(s)
(``install``); every other spider downloads as always. Their robots.txt, feeds and sitemaps
(``.xml``, ``.rss``, ``.atom``, ``.gz``, ``.txt`` and ``.json`` URLs) are fetched plainly: a
browser only wraps them in its viewer.

Bounded as a plain fetch is:
- at most ``BROWSER_PAGES`` pages open at once; a browser context (cookies, caches, the
  memory of its pages' scripts) serves ``BROWSER_CONTEXT_PAGES`` pages, then a new one takes
  over and the old one is closed as soon as its last page is;
- every page is closed when it has been read or has failed (scrapy-playwright's own rule, as
  long as no request asks for its page);
- a page's navigation has ``DOWNLOAD_TIMEOUT`` seconds;
- the browser resolves no host but the site's domains (``--host-resolver-rules``): a
  redirect, a script, a frame or a prefetch that reaches elsewhere fails inside the browser,
  before anything is sent;
- the page may load only http(s) resources on the site's domains, and no images, media,
  fonts or style sheets (text needs none of them); anything else is aborted before it is
  asked for (counted in ``browser/aborted``);
- where the page ends up must be on the site, or the URL's outcome is ``invalid``
  (redirected outside the site), as for a plain redirect;
- a download is refused (the context does not accept downloads): the URL's outcome is
  ``invalid`` (a download, not a page).

A page that fails is one line in the log: scrapy-playwright's traceback for it is left out
(``OneLine``), as for a plain fetch that fails.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import weakref
from collections import Counter
from typing import Any
from urllib.parse import urlparse

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.http import Response

from news_crawler.crawl.counts import Counts
from news_crawler.errors import UserError
from news_crawler.outcomes.failures import NotAPage, RedirectedOutside
from news_crawler.printable import short_url

HANDLER = "news_crawler.middlewares.browser.BrowserHandler"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
PLAIN_SUFFIXES = (".xml", ".rss", ".atom", ".gz", ".txt", ".json")
NOT_FOR_TEXT = {"image", "media", "font", "stylesheet"}

try:
    from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler
except ImportError:  # the browser extra is not installed: a browser site says so when it starts
    ScrapyPlaywrightDownloadHandler = object


class BrowserMissing(UserError):
    """No Chromium where ``BROWSER_PATH`` says, or on PATH."""


def browser_path(settings: Any) -> str:
    """The Chromium to launch; ``BrowserMissing`` (one line) when there is none."""
    given = settings.get("BROWSER_PATH") or ""
    if given:
        found = shutil.which(given)  # a name on PATH, or a path to an executable
        if not found:
            raise BrowserMissing(
                f"BROWSER_PATH={given}: no browser there; install chromium or point BROWSER_PATH at it"
            )
        return found
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    raise BrowserMissing(
        'a site has render = "browser" but no chromium is on PATH: install chromium (apt install chromium) '
        "or set BROWSER_PATH"
    )


def require(settings: Any) -> None:
    """One line, before a crawl starts, when a browser site cannot have its browser."""
    if ScrapyPlaywrightDownloadHandler is object:
        raise BrowserMissing("render = \"browser\" needs Playwright: pip install 'news-crawler[browser]'")
    browser_path(settings)


def launch_options(settings: Any, domains: list[str]) -> dict[str, Any]:
    """How Playwright starts the machine's Chromium (never its own download) for a site on
    ``domains``: every other host, however the page reaches for it (a redirect, a script, a
    frame, a prefetch), does not resolve, so the browser cannot contact it."""
    only = ", ".join(f"EXCLUDE {d}, EXCLUDE *.{d}" for d in domains)
    args = [
        f"--host-resolver-rules=MAP * ~NOTFOUND, {only}",
        "--disable-dev-shm-usage",  # containers give /dev/shm 64 MB: too little for a renderer
        # text is all we read: no GPU, no extensions, no background traffic, and a page's
        # frames in its own renderer process (site isolation would start one more process
        # for each frame from elsewhere, an ad's included, and a spare one). Each page keeps
        # a renderer of its own: a page whose script never returns stalls no other page.
        "--disable-gpu",
        "--in-process-gpu",  # what is left of the GPU's work in the browser process: one process fewer
        "--disable-extensions",
        "--disable-background-networking",
        "--disable-site-isolation-trials",
        "--disable-features=site-per-process,IsolateOrigins,SpareRendererForSitePerProcess",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")  # Chromium's sandbox refuses to run as root
    return {"executable_path": browser_path(settings), "headless": True, "args": args}


def install(settings: Any) -> None:
    """A browser site's settings: its http(s) pages through ``BrowserHandler``."""
    handlers = dict(settings.getdict("DOWNLOAD_HANDLERS"))
    handlers.update(http=HANDLER, https=HANDLER)
    settings.set("DOWNLOAD_HANDLERS", handlers, priority="spider")
    settings.set("PLAYWRIGHT_MAX_PAGES_PER_CONTEXT", settings.getint("BROWSER_PAGES"), priority="spider")
    settings.set("PLAYWRIGHT_DEFAULT_NAVIGATION_TIMEOUT", settings.getfloat("DOWNLOAD_TIMEOUT") * 1000, "spider")


def rendered(request: Request) -> bool:
    """Whether the browser fetches ``request`` (robots.txt, feeds and sitemaps it does not)."""
    path = urlparse(request.url).path.lower()
    return not request.meta.get("dont_obey_robotstxt") and not path.endswith(PLAIN_SUFFIXES)


def refused(url: str, resource_type: str, on_site: Any) -> bool:
    """Whether a page being rendered must not load ``url``: not http(s), off the site, or a
    resource text does not need."""
    return urlparse(url).scheme not in ("http", "https") or resource_type in NOT_FOR_TEXT or not on_site(url)


class OneLine(logging.Filter):
    """scrapy-playwright logs a page that failed with its traceback: a page's failure is not
    a bug of the crawler, so the line stays and the traceback goes."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.ERROR and record.exc_info:
            record.exc_info, record.exc_text = None, None
        return True


class BrowserHandler(ScrapyPlaywrightDownloadHandler):
    """scrapy-playwright's handler for a browser site, bounded (see the module's text)."""

    lazy = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> BrowserHandler:
        """One handler (one browser) for both http and https of a crawler."""
        handler = _HANDLERS.get(crawler)
        if handler is None:
            handler = _HANDLERS[crawler] = cls(crawler)
        return handler

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        playwright_log = logging.getLogger("scrapy-playwright")
        if not any(isinstance(f, OneLine) for f in playwright_log.filters):
            playwright_log.addFilter(OneLine())
        settings = crawler.settings
        spider = crawler.spider
        self.config.launch_options = launch_options(settings, list(getattr(spider, "domains", [])))
        self.counts = Counts.of(crawler.stats)
        self.open_pages = asyncio.Semaphore(max(1, settings.getint("BROWSER_PAGES")))
        self.context_pages = max(1, settings.getint("BROWSER_CONTEXT_PAGES"))
        self.served = 0
        self.in_flight: Counter[str] = Counter()
        self.abort_request = self._abort
        self.closed = False

    def _on_site(self, url: str) -> bool:
        spider = self._crawler.spider
        return bool(spider is not None and spider.on_site(url))

    def _abort(self, request: Any) -> bool:
        if refused(request.url, request.resource_type, self._on_site):
            self.counts.add("browser", "aborted")
            return True
        return False

    async def close(self) -> None:
        if not self.closed:  # registered for http and https: closed once
            self.closed = True
            await super().close()

    async def download_request(self, request: Request) -> Response:
        if rendered(request):
            request.meta["playwright"] = True
            request.meta.pop("playwright_include_page", None)  # pages are ours to close
        return await super().download_request(request)

    async def _download_request(self, request: Request, spider: Any = None) -> Response:
        left: list[str] = []  # where the page's own navigation went off the site (a redirect, a script)

        def navigated(page_request: Any) -> None:
            if page_request.is_navigation_request() and page_request.frame.parent_frame is None:
                if not self._on_site(page_request.url):
                    left.append(page_request.url)

        async with self.open_pages:
            context = f"pages-{self.served // self.context_pages}"
            self.served += 1
            request.meta["playwright_context"] = context
            request.meta["playwright_context_kwargs"] = {"accept_downloads": False}
            request.meta["playwright_page_event_handlers"] = {"request": navigated}
            self.in_flight[context] += 1
            try:
                response: Response | None = await super()._download_request(request, spider)
                failure: Exception | None = None
            except Exception as e:  # noqa: BLE001 - said below in the crawl's words, or raised as it is
                response, failure = None, e
            finally:
                # the request may go back to the queue (a failure retried next run): only data stays
                request.meta.pop("playwright_page_event_handlers", None)
                self.in_flight[context] -= 1
                await self._retire(context)
        if left or (response is not None and not self._on_site(response.url)):
            to = left[0] if left else response.url if response is not None else ""
            raise RedirectedOutside(f"{RedirectedOutside.reason}: {short_url(request.url)} -> {short_url(to)}")
        if failure is not None:
            if isinstance(failure, RuntimeError) and str(failure).startswith("Failed to download"):
                self.counts.add("browser", "refused_download")  # scrapy-playwright's word for a refused download
                raise NotAPage(f"{NotAPage.reason}: {short_url(request.url)}") from None
            raise failure
        assert response is not None
        self.counts.add("browser", "pages")
        return response

    async def _retire(self, context: str) -> None:
        """Close ``context`` once a newer one serves and its last page is done."""
        current = f"pages-{self.served // self.context_pages}"
        wrapper = self.context_wrappers.get(context)
        if context != current and self.in_flight[context] == 0 and wrapper is not None:
            del self.in_flight[context]
            await wrapper.context.close()
            self.counts.add("browser", "contexts_closed")


_HANDLERS: weakref.WeakKeyDictionary[Crawler, BrowserHandler] = weakref.WeakKeyDictionary()
