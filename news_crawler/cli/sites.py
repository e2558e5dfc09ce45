"""``news-crawler sites``: the configured sites; ``sites check``: try one before scheduling it.

    news-crawler sites
    news-crawler sites check NAME
    news-crawler sites check URL[,URL...] --allow REGEX [--follow REGEX] [--deny REGEX]

``check`` fetches the start pages and the first articles directly (nothing goes through the
dupefilter, the queue or the index; a ``render = "browser"`` site's pages through Chromium,
as a crawl reads them), says how many links match ``allow``, ``follow`` and
``deny`` with a few of each and of the links that matched nothing, then extracts one or two
articles. It exits 1 when no article link matched or no article could be extracted.
"""

from __future__ import annotations

import argparse
import time
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urldefrag

from news_crawler.cli import options
from news_crawler.errors import UserError
from news_crawler.printable import printable

EXAMPLES = 5
ARTICLES = 2


def cmd_sites(args: argparse.Namespace) -> int:
    from news_crawler.spiders.sites import active_sites, sites_files

    settings = options.settings(args)
    active = active_sites(sites_files(settings.get("SITES_FILE")))
    sites = active.sites
    for site in sites.values():
        print(f"{site.name}  ({site.source})")
        for key in ("start_urls", "allow", "follow", "deny", "allowed_domains"):
            for value in getattr(site, key):
                print(f"  {key:<16}{value}")
        for key, value in site.settings.items():
            print(f"  {key:<16}{value}")
    print(f"{len(sites)} sites: {active.why}")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from news_crawler.spiders.news import NewsSpider
    from news_crawler.spiders.sites import load_sites, sites_files

    settings = options.settings(args)
    sites = load_sites(sites_files(settings.get("SITES_FILE")))
    target = args.target
    if target in sites:
        site = sites[target]
        spider = NewsSpider(
            start_urls=list(site.start_urls),
            allow=list(site.allow),
            deny=list(site.deny),
            follow=list(site.follow),
            allowed_domains=list(site.allowed_domains),
            site=site.name,
        )
    elif "://" in target:
        if not args.allow:
            raise UserError("sites check URL needs --allow REGEX (the article URL pattern to try)")
        try:
            spider = NewsSpider(start_urls=target, allow=args.allow, follow=args.follow, deny=args.deny)
        except ValueError as e:
            raise UserError(str(e)) from None
    else:
        raise UserError(f"no site named {target!r} (news-crawler sites lists them); or give a start URL with --allow")
    if target in sites and sites[target].render == "browser":
        with BrowserFetcher(spider, settings) as browser_fetcher:
            return check_site(browser_fetcher, spider, settings, sites[target].strip_params)
    own = sites[target].strip_params if target in sites else None
    return check_site(Fetcher(spider, settings), spider, settings, own)


def check_site(fetcher: Any, spider: Any, settings: Any, own: str | None) -> int:
    """Check the start pages, then the first articles they link; the command's exit code."""
    from news_crawler.spiders.news import tracking_pattern

    tracking = tracking_pattern(own if own is not None else settings.get("URL_TRACKING_PARAMS"))
    articles: list[str] = []
    for url in spider.start_urls:
        articles += check_start_page(fetcher, spider, url, tracking)
    articles = list(dict.fromkeys(articles))
    if not articles:
        print("\nno article link matched allow: widen the pattern, or check the start pages above")
        return 1
    extracted = sum(check_article(fetcher, url) for url in articles[:ARTICLES])
    if not extracted:
        print(
            "\nno article could be extracted from the pages allow matched: is the pattern taking list or video pages?"
        )
        return 1
    print(f"\nok: {len(articles)} article links, {extracted} of {min(len(articles), ARTICLES)} extracted")
    return 0


def check_start_page(fetcher: Any, spider: Any, url: str, tracking: Any) -> list[str]:
    """Print what the start page's links match; return its article links."""
    from news_crawler.extraction.decode import decode_html
    from news_crawler.spiders.listing import feed_links, html_links, is_feed, request_url, without_tracking

    print(f"\nstart page {printable(url, 500)}")
    page = fetcher.get(url)
    if page is None:
        return []
    body, final, content_type = page
    text, encoding = decode_html(body, content_type or None)
    links = ((u, "") for u in feed_links(body, final)) if is_feed(body) else html_links(text, final)
    groups: dict[str, list[str]] = {"allow": [], "follow": [], "deny": [], "elsewhere": [], "nothing": []}
    for link, _ in links:
        quoted = request_url(link, encoding)
        if quoted is None:
            continue
        link = without_tracking(urldefrag(quoted)[0], tracking)
        if any(p.search(link) for p in spider._deny):
            group = "deny"
        elif any(p.search(link) for p in spider._allow):
            group = "allow" if spider.on_site(link) else "elsewhere"
        elif any(p.search(link) for p in spider.follow_patterns):
            group = "follow"
        else:
            group = "nothing"
        if link not in groups[group]:
            groups[group].append(link)
    print(f"  {'feed' if is_feed(body) else 'HTML page'}, {sum(map(len, groups.values()))} distinct links")
    labels = {
        "allow": "match allow (articles)",
        "follow": "match follow (more list pages)",
        "deny": "match deny (left out)",
        "elsewhere": "match allow, off the site's domains (left out)",
        "nothing": "match nothing",
    }
    for group, found in groups.items():
        if found or group in ("allow", "nothing"):
            print(f"  {len(found):>5} {labels[group]}")
            for link in found[:EXAMPLES]:
                print(f"          {printable(link, 500)}")
    return groups["allow"]


def check_article(fetcher: Any, url: str) -> bool:
    """Print the fields extracted from one article page; whether it holds an article."""
    from news_crawler.extraction.page import page_fields

    print(f"\narticle {printable(url, 500)}")
    page = fetcher.get(url)
    if page is None:
        return False
    body, final, content_type = page
    fields = page_fields(body, content_type, final)
    if fields.get("invalid_reason") or not fields.get("body"):
        print(f"  no article: {printable(fields.get('invalid_reason') or 'no article text found on the page')}")
        return False
    for key in ("title", "author", "published_at", "source", "editor", "contributors", "description", "updated_at"):
        print(f"  {key:<13}{printable(fields.get(key) or '-')}")
    print(f"  {'tags':<13}{printable(', '.join(fields.get('tags') or []) or '-')}")
    images = fields.get("images") or []
    print(f"  {'images':<13}{len(images)}" + (f" (first {printable(images[0]['url'], 200)})" if images else ""))
    lines = [line for line in fields["body"].splitlines() if line.strip()]
    for line in lines[:3]:
        print(f"  {'body' if line is lines[0] else '':<13}{printable(line, 70)}")
    print(f"  {'length':<13}{len(fields['body'])} characters, {len(lines)} paragraphs")
    return True


class Fetcher:
    """Plain HTTP(S) GETs with the crawler's user agent, timeout and size limit; a redirect
    is followed only on the site (``NewsSpider.on_site``), as in a crawl."""

    def __init__(self, spider: Any, settings: Any) -> None:
        self.timeout = settings.getfloat("DOWNLOAD_TIMEOUT")
        self.max_size = settings.getint("DOWNLOAD_MAXSIZE")
        self.headers = {"User-Agent": settings.get("USER_AGENT") or "news-crawler"}

        class OnSite(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
                if not spider.on_site(newurl):
                    raise urllib.error.URLError(f"redirected outside the site, to {newurl}")
                return super().redirect_request(req, fp, code, msg, headers, newurl)

        self.opener = urllib.request.build_opener(OnSite)

    def get(self, url: str) -> tuple[bytes, str, str] | None:
        """``(body, final URL, content type)``, or None after printing why not."""
        try:
            with self.opener.open(urllib.request.Request(url, headers=self.headers), timeout=self.timeout) as r:
                body = r.read(self.max_size + 1 if self.max_size else -1)
                if self.max_size and len(body) > self.max_size:
                    print(f"  not read: larger than DOWNLOAD_MAXSIZE ({self.max_size} bytes)")
                    return None
                return body, r.geturl(), r.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            print(f"  not fetched: HTTP {e.code}")
        except (urllib.error.URLError, OSError, ValueError) as e:
            print(f"  not fetched: {printable(getattr(e, 'reason', e))}")
        return None


class BrowserFetcher(Fetcher):
    """A browser site's pages as a crawl reads them: rendered by the machine's Chromium with
    the crawl's rules (``middlewares/browser.py``); its feeds and sitemaps fetched plainly."""

    def __init__(self, spider: Any, settings: Any) -> None:
        from news_crawler.middlewares.browser import launch_options

        super().__init__(spider, settings)
        self.spider = spider
        self.options = launch_options(settings, spider.domains)  # no browser: one line, before anything starts

    def __enter__(self) -> BrowserFetcher:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            raise UserError("render = \"browser\" needs Playwright: pip install 'news-crawler[browser]'") from None
        from playwright.sync_api import Error as PlaywrightError

        self.playwright = sync_playwright().start()
        for attempt in (1, 2):  # a browser that crashes as it starts (a loaded machine) is tried once more
            try:
                self.browser = self.playwright.chromium.launch(**self.options)
                return self
            except PlaywrightError as e:
                if attempt == 2:
                    self.playwright.stop()
                    first = printable(str(e).strip().splitlines()[0], 200)
                    raise UserError(f"the browser did not start ({first}): check BROWSER_PATH and try again") from None
        return self

    def __exit__(self, *exc: Any) -> None:
        self.browser.close()
        self.playwright.stop()

    def _route(self, route: Any) -> None:
        from news_crawler.middlewares.browser import refused

        if refused(route.request.url, route.request.resource_type, self.spider.on_site):
            route.abort()
        else:
            route.continue_()

    def _settled(self, page: Any) -> bool:
        """Wait for the page's story as a crawl does (``BrowserHandler._settle``); False for a
        document past DOWNLOAD_MAXSIZE."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        from news_crawler.middlewares.browser import DOCUMENT_SIZE, POLL_MS, TEXT_SETTLED

        deadline = time.monotonic() + self.timeout

        def left() -> float:
            return max(1.0, (deadline - time.monotonic()) * 1000)

        try:
            if self.spider.wait_for:
                page.wait_for_selector(self.spider.wait_for, state="attached", timeout=left())
            else:
                page.wait_for_load_state("networkidle", timeout=left())
                page.wait_for_function(TEXT_SETTLED, polling=POLL_MS, timeout=left())
        except PlaywrightTimeout:
            print("  the page had not settled when its time was up: read as it was")
        return bool(page.evaluate(DOCUMENT_SIZE) <= self.max_size)

    def get(self, url: str) -> tuple[bytes, str, str] | None:
        from scrapy import Request

        from news_crawler.middlewares.browser import NO_WINDOWS, rendered

        if not rendered(Request(url)):
            return super().get(url)
        context = self.browser.new_context(accept_downloads=False, user_agent=self.headers["User-Agent"])
        try:
            page = context.new_page()
            page.add_init_script(NO_WINDOWS)
            page.on("popup", lambda popup: popup.close())
            page.route("**", self._route)
            try:
                response = page.goto(url, timeout=self.timeout * 1000)
            except Exception as e:  # noqa: BLE001 - a timeout, a refused navigation, a download: said in one line
                print(f"  not fetched: {printable(str(e).splitlines()[0], 200)}")
                return None
            if response is not None and response.status >= 400:
                print(f"  not fetched: HTTP {response.status}")
                return None
            if not self.spider.on_site(page.url):
                print(f"  not fetched: redirected outside the site, to {printable(page.url, 200)}")
                return None
            if not self._settled(page):
                print(f"  not read: larger than DOWNLOAD_MAXSIZE ({self.max_size} bytes)")
                return None
            return page.content().encode("utf-8"), page.url, "text/html; charset=utf-8"
        finally:
            context.close()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sites", help="list the configured sites; sites check: try one without crawling it")
    options.add_settings_option(p)
    p.set_defaults(func=cmd_sites)
    checks = p.add_subparsers(dest="sites_command", help="check: try one site")
    c = checks.add_parser("check", help="fetch a site's start pages, show what its patterns match, extract articles")
    c.add_argument("target", help="a site's name, or start URLs (comma-separated) with --allow")
    c.add_argument("--allow", help="article URL pattern (with a start URL)")
    c.add_argument("--follow", help="more list pages' URL pattern (with a start URL)")
    c.add_argument("--deny", help="URLs to leave out (with a start URL)")
    options.add_settings_option(c)
    c.set_defaults(func=cmd_check)
