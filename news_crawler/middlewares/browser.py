"""Pages that need a browser: a site with ``render = "browser"`` (sites file) is fetched
through scrapy-playwright with the machine's Chromium (``BROWSER_PATH``; else ``chromium``
on PATH), its pages read as the browser built them once their story is in: after the
``load`` event, once the network is idle and the page's text has stopped growing, or, for a
site whose sites-file table names a ``wait_for`` CSS selector, once that element exists (its
article pages; its list pages settle as any page) (at most ``DOWNLOAD_TIMEOUT`` seconds; then
what is there is read). A story a script fills
in after load, or fetches, is read whole.

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
- a page's navigation has ``DOWNLOAD_TIMEOUT`` seconds, its wait for the story as long again,
  and the whole page, its reading included, at most twice that and a few seconds more: a
  script that never returns ends as a failed fetch;
- a renderer may hold ``BROWSER_MEMORY_MAX`` MiB (the script heap's bound, and its resident
  memory checked four times a second): past it the renderer is ended, the page is
  ``invalid``, the next page gets a new renderer;
- a document larger than ``DOWNLOAD_MAXSIZE`` (as it arrived unpacked, or as its script built
  it) is ``invalid`` and never read out of the browser;
- ``window.open`` opens nothing, a click on a link or a submit of a form with a target is
  cancelled, any other new window is closed as it opens (counted in
  ``browser/popups_closed``), and dialogs (``alert``,
  ``confirm``, ``prompt``) are dismissed, as Playwright does with no one to answer them;
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
import contextlib
import logging
import os
import shutil
import signal
import weakref
from collections import Counter
from typing import Any
from urllib.parse import urlparse

from scrapy import Request
from scrapy.crawler import Crawler
from scrapy.http import Response

from news_crawler.crawl.counts import Counts
from news_crawler.crawl.meta import is_list_page
from news_crawler.errors import UserError
from news_crawler.outcomes.failures import NotAPage, PageTooBig, RedirectedOutside, RendererCrashed
from news_crawler.printable import short_url

HANDLER = "news_crawler.middlewares.browser.BrowserHandler"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "chrome")
PLAIN_SUFFIXES = (".xml", ".rss", ".atom", ".gz", ".txt", ".json")
NOT_FOR_TEXT = {"image", "media", "font", "stylesheet"}

try:
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import TimeoutError as PlaywrightTimeout
    from scrapy_playwright.handler import ScrapyPlaywrightDownloadHandler
    from scrapy_playwright.page import PageMethod
except ImportError:  # the browser extra is not installed: a browser site says so when it starts
    ScrapyPlaywrightDownloadHandler = object

# Run before any script of a page: a page opens no window of its own, neither by
# window.open nor by a link or a form with a target (their clicks and submits are cancelled
# before they open one; what still opens is closed at once).
NO_WINDOWS = """window.open = function () { return null; };
window.addEventListener("click", function (e) {
  var a = e.target && e.target.closest ? e.target.closest("a[target], area[target]") : null;
  if (a && a.target && a.target !== "_self") { e.preventDefault(); }
}, true);
window.addEventListener("submit", function (e) {
  if (e.target && e.target.target && e.target.target !== "_self") { e.preventDefault(); }
}, true);"""
# Polled in the page: true once its text (scripts included) has had the same length three
# polls running, that is for half a second.
TEXT_SETTLED = """() => {
  const s = window.__newsCrawlerText || (window.__newsCrawlerText = {last: -1, same: 0});
  const n = document.documentElement ? document.documentElement.textContent.length : 0;
  s.same = n === s.last ? s.same + 1 : 0;
  s.last = n;
  return s.same >= 2;
}"""
POLL_MS = 250
# The document's size: as it arrived (unpacked), or as its script built it, in characters.
DOCUMENT_SIZE = """() => {
  const nav = performance.getEntriesByType("navigation")[0];
  const built = document.documentElement ? document.documentElement.outerHTML.length : 0;
  return Math.max(nav ? nav.decodedBodySize : 0, built);
}"""


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
        # a script's heap cannot outgrow the renderer's bound (the watch below ends the rest)
        f"--js-flags=--max-old-space-size={settings.getint('BROWSER_MEMORY_MAX')}",
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
        self.timeout = settings.getfloat("DOWNLOAD_TIMEOUT")
        self.max_size = settings.getint("DOWNLOAD_MAXSIZE")
        self.memory_max = settings.getint("BROWSER_MEMORY_MAX") * 1024 * 1024
        self.wait_for = str(getattr(spider, "wait_for", "") or "")
        self.watch: asyncio.Task[None] | None = None

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
            if self.watch is not None:
                self.watch.cancel()
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

        pages: list[Any] = []  # the request's page, once scrapy-playwright made it
        crashed: list[Any] = []

        async def guard(page: Any, _request: Request) -> None:
            pages.append(page)
            page.on("crash", lambda crashed_page: crashed.append(crashed_page))
            page.on("popup", self._close_popup)
            await page.add_init_script(NO_WINDOWS)

        if self.watch is None:
            self.watch = asyncio.ensure_future(self._watch_renderers())
        async with self.open_pages:
            context = f"pages-{self.served // self.context_pages}"
            self.served += 1
            request.meta["playwright_context"] = context
            request.meta["playwright_context_kwargs"] = {"accept_downloads": False}
            request.meta["playwright_page_event_handlers"] = {"request": navigated}
            request.meta["playwright_page_init_callback"] = guard
            request.meta["playwright_page_methods"] = [PageMethod(self._settle, is_list_page(request))]
            self.in_flight[context] += 1
            try:
                # the browser's start is the crawl's, not the first page's: not in its time (a
                # loaded machine may take ten seconds to start Chromium)
                await self._maybe_launch_browser()
                # the navigation and the wait each have DOWNLOAD_TIMEOUT; reading a page whose
                # script never returns would wait for ever
                within = 2 * self.timeout + 5
                response: Response | None = await asyncio.wait_for(super()._download_request(request, spider), within)
                failure: Exception | None = None
            except TimeoutError:
                said = f"the browser took more than {within:g} s: {short_url(request.url)}"
                response, failure = None, TimeoutError(said)
            except Exception as e:  # noqa: BLE001 - said below in the crawl's words, or raised as it is
                response, failure = None, e
            finally:
                # the request may go back to the queue (a failure retried next run): only data stays
                for key in ("event_handlers", "init_callback", "methods"):
                    request.meta.pop(f"playwright_page_{key}", None)
                for page in pages:
                    if not page.is_closed():  # a page given up on (its time was up) is closed here
                        with contextlib.suppress(PlaywrightError):  # a crashed page is gone already
                            await page.close()
                self.in_flight[context] -= 1
                await self._retire(context)
        if left or (response is not None and not self._on_site(response.url)):
            to = left[0] if left else response.url if response is not None else ""
            raise RedirectedOutside(f"{RedirectedOutside.reason}: {short_url(request.url)} -> {short_url(to)}")
        if response is not None and len(response.body) > self.max_size:
            failure = PageTooBig(f"{PageTooBig.reason}: {short_url(request.url)}")
        if failure is not None:
            if isinstance(failure, RuntimeError) and str(failure).startswith("Failed to download"):
                self.counts.add("browser", "refused_download")  # scrapy-playwright's word for a refused download
                raise NotAPage(f"{NotAPage.reason}: {short_url(request.url)}") from None
            if crashed or "crashed" in str(failure):
                self.counts.add("browser", "renderers_crashed")
                raise RendererCrashed(f"{RendererCrashed.reason}: {short_url(request.url)}") from None
            if isinstance(failure, PageTooBig):
                self.counts.add("browser", "too_big")
            raise failure
        assert response is not None
        self.counts.add("browser", "pages")
        return response

    async def _settle(self, page: Any, list_page: bool = False) -> None:
        """Wait until the page's story is in (see the module's text); a document past
        ``DOWNLOAD_MAXSIZE`` is refused here, before its text leaves the browser. A list
        page has no story for ``wait_for`` to match: it is read once it settled."""
        deadline = asyncio.get_running_loop().time() + self.timeout

        def left() -> float:  # milliseconds, never 0 (Playwright's "no limit")
            return max(1.0, (deadline - asyncio.get_running_loop().time()) * 1000)

        try:
            if self.wait_for and not list_page:
                await page.wait_for_selector(self.wait_for, state="attached", timeout=left())
            else:
                await page.wait_for_load_state("networkidle", timeout=left())
                await page.wait_for_function(TEXT_SETTLED, polling=POLL_MS, timeout=left())
        except PlaywrightTimeout:
            self.counts.add("browser", "unsettled")  # read as it is at the limit
        if await page.evaluate(DOCUMENT_SIZE) > self.max_size:
            raise PageTooBig(f"{PageTooBig.reason}: {short_url(page.url)}")

    def _close_popup(self, popup: Any) -> None:
        self.counts.add("browser", "popups_closed")
        asyncio.ensure_future(popup.close())

    async def _watch_renderers(self) -> None:
        """End a renderer of this crawler's browser past ``BROWSER_MEMORY_MAX``: its page
        crashes (``invalid``), the browser starts a new renderer for the next one."""
        while not self.closed:
            await asyncio.sleep(POLL_MS / 1000)
            for pid, resident in renderers(os.getpid()):
                if resident > self.memory_max:
                    with contextlib.suppress(OSError):  # it may have ended on its own
                        os.kill(pid, signal.SIGKILL)
                        self.counts.add("browser", "renderers_ended")

    async def _retire(self, context: str) -> None:
        """Close ``context`` once a newer one serves and its last page is done."""
        current = f"pages-{self.served // self.context_pages}"
        wrapper = self.context_wrappers.get(context)
        if context != current and self.in_flight[context] == 0 and wrapper is not None:
            del self.in_flight[context]
            await wrapper.context.close()
            self.counts.add("browser", "contexts_closed")


_HANDLERS: weakref.WeakKeyDictionary[Crawler, BrowserHandler] = weakref.WeakKeyDictionary()
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def renderers(ancestor: int) -> list[tuple[int, int]]:
    """``(pid, resident bytes)`` of each Chromium renderer below process ``ancestor``, read
    from /proc (none where there is no /proc: there the script heap's bound is the only one)."""
    parents: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for entry in entries:
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    parents[int(entry)] = int(f.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue  # ended meanwhile
    found = []
    for pid in parents:
        up, hops = parents.get(pid), 0
        while up is not None and up != ancestor and hops < 8:
            up, hops = parents.get(up), hops + 1
        if up != ancestor:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"--type=renderer" not in f.read():
                    continue
            with open(f"/proc/{pid}/statm", "rb") as f:
                found.append((pid, int(f.read().split()[1]) * _PAGE))
        except (OSError, ValueError, IndexError):
            continue
    return found
