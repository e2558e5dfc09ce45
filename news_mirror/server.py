"""Serve a catalog over HTTP: ``/<host><path>`` is the page at ``http(s)://<host><path>``."""

from __future__ import annotations

import html
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from news_crawler.spiders.sites import load_sites
from news_mirror.catalog import Catalog
from news_mirror.handler import mirror_path

REQUESTS_PATH = "_mirror/requests"  # GET /_mirror/requests: the paths asked for, in order (JSON)


class Mirror:
    """The catalog as a site: its pages, and list pages and feeds at the spiders' start URLs."""

    def __init__(self, catalog: Catalog, day: int = 1) -> None:
        self.catalog = catalog
        self.day = day
        self.requests: list[str] = []  # every path asked for, in order
        self.answered = 0  # how many of them have their response
        self._pages = {mirror_path(u): p for u, p in catalog.pages.items()}
        self.lists = {mirror_path(url): site.name for site in load_sites().values() for url in site.start_urls}
        self._lock = threading.Lock()
        # Faults a test can set: seconds before each article response (a slow site), a
        # status for some paths, list pages' too (404, 410, 503), robots.txt text per host.
        self.delay = 0.0
        self.statuses: dict[str, int] = {}
        self.robots: dict[str, str] = {}
        # Pages a test adds by real URL: (body, content type), served before anything else.
        self.extra: dict[str, tuple[bytes, str]] = {}
        # A test's hold on the crawl: the articles after the first ``gate_after`` wait until
        # ``gate`` is set (at most two minutes), so a fault can be caused between the two.
        self.gate: threading.Event | None = None
        self.gate_after = 0
        self._through_gate = 0

    def list_page(self, site: str, key: str) -> tuple[bytes, str]:
        pages = sorted(self.catalog.visible(site, self.day), key=lambda p: p.url)
        if key.endswith(".xml"):
            items = "".join(
                f"<item><title>{html.escape(p.title)}</title><link>{html.escape(p.url)}</link></item>" for p in pages
            )
            return (
                f'<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>{site}</title>'
                f"{items}</channel></rss>"
            ).encode(), "application/rss+xml; charset=utf-8"
        links = "\n".join(f'<li><a href="{html.escape(p.url)}">{html.escape(p.title)}</a></li>' for p in pages)
        nav = '<a href="/">首页</a> <a href="/about.html">关于我们</a> <a href="/video/">视频</a>'
        return (
            f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{site} 新闻</title></head><body>'
            f'<div class="nav">{nav}</div><ul class="news-list">{links}</ul></body></html>'
        ).encode(), "text/html; charset=utf-8"

    def add(self, url: str, body: bytes, content_type: str = "text/html; charset=utf-8") -> None:
        """Serve ``body`` at the real URL ``url``."""
        self.extra[mirror_path(url)] = (body, content_type)

    def article_requests(self, since: int = 0) -> list[str]:
        """Paths of the article pages asked for since request number ``since``, in order."""
        with self._lock:
            return [r for r in self.requests[since:] if r not in self.lists and not r.endswith("/robots.txt")]

    def idle(self) -> bool:
        """Every request asked for so far has its response."""
        with self._lock:
            return self.answered == len(self.requests)

    def respond(self, path: str) -> tuple[int, bytes, str]:
        try:
            return self._respond(path)
        finally:
            if path.lstrip("/") != REQUESTS_PATH:  # (not recorded as asked for)
                with self._lock:
                    self.answered += 1

    def _respond(self, path: str) -> tuple[int, bytes, str]:
        key = path.lstrip("/")
        if key == REQUESTS_PATH:  # what was asked so far (for a test outside this process): not recorded
            with self._lock:
                return 200, json.dumps(self.requests).encode(), "application/json"
        with self._lock:
            self.requests.append(key)
        if key in self.extra:
            body, ctype = self.extra[key]
            return 200, body, ctype
        if key in self.lists and key not in self.statuses:
            body, ctype = self.list_page(self.lists[key], key)
            return 200, body, ctype
        host, _, rest = key.partition("/")
        if rest == "robots.txt" and host in self.robots:
            return 200, self.robots[host].encode(), "text/plain"
        if self.delay and key not in self.lists:
            time.sleep(self.delay)
        if self.gate is not None and key not in self.lists and rest != "robots.txt":
            with self._lock:
                self._through_gate += 1
                held = self._through_gate > self.gate_after
            if held:
                self.gate.wait(120)
        if key in self.statuses:
            return self.statuses[key], b"<html><body>error</body></html>", "text/html"
        page = self._pages.get(key)
        if page is None or page.day > self.day:
            return 404, b"<html><body>404 Not Found</body></html>", "text/html"
        return 200, page.body, page.content_type


class _Handler(BaseHTTPRequestHandler):
    mirror: Mirror
    # Persistent connections, as real sites keep them: with HTTP/1.0 every response closes
    # its connection, and a crawler reusing one from its pool fails and asks again.
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - the http.server API
        status, body, ctype = self.mirror.respond(self.path)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the crawler went away (a test killed it): nothing to tell

    def log_message(self, format: str, *args: object) -> None:
        pass


def serve(mirror: Mirror, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
    """Start serving in a daemon thread; ``server.server_address`` says where."""
    handler = type("MirrorHandler", (_Handler,), {"mirror": mirror})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="mirror", daemon=True).start()
    return server


def start(
    day: int = 1, port: int = 0, host: str = "127.0.0.1", delay: float = 0.0
) -> tuple[Mirror, ThreadingHTTPServer, str]:
    """Serve every saved page (plus the planted bad pages) on ``host`` (loopback by default;
    a container's mirror listens on its network), each article ``delay`` seconds late;
    returns the mirror, its server and its base URL."""
    from news_mirror.catalog import add_bad_pages, build_catalog

    catalog = build_catalog()
    add_bad_pages(catalog)
    mirror = Mirror(catalog, day)
    mirror.delay = delay
    server = serve(mirror, host, port)
    return mirror, server, f"http://{host}:{server.server_address[1]}"
