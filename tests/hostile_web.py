"""A hostile web server for the tests: list pages and feeds that link local files, other
services and other hosts; articles that redirect off the site or serve binary bytes; a list
page of a quarter of a million links. Real article texts sit on the same pages, so a test
sees both that the attack failed and that the site's articles were still kept.

It listens on 127.0.0.1 (a start URL with a port) and answers every host name the crawl
asks for (``localhost`` is "another host" on the same server); it records each request's
host and path, so a test can assert what was never fetched.
"""

from __future__ import annotations

import html
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Body = bytes | Callable[[], bytes]


@dataclass
class Page:
    body: Body
    content_type: str = "text/html; charset=utf-8"
    status: int = 200
    location: str = ""  # a redirect's target
    delay: float = 0.0  # seconds before the answer: a slow page


class HostileWeb:
    def __init__(self) -> None:
        self.pages: dict[str, Page] = {}
        self.prefixes: dict[str, Callable[[str], Page]] = {}  # a path prefix -> the page of each path under it
        self.requests: list[tuple[str, str]] = []  # (host header, path), in order
        self._lock = threading.Lock()
        web = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                with web._lock:
                    web.requests.append((self.headers.get("Host", ""), self.path))
                page = web.pages.get(self.path) or next(
                    (make(self.path) for prefix, make in web.prefixes.items() if self.path.startswith(prefix)), None
                )
                if page is None:
                    self.send_error(404)
                    return
                if page.delay:
                    time.sleep(page.delay)
                body = page.body() if callable(page.body) else page.body
                self.send_response(page.status)
                self.send_header("Content-Type", page.content_type)
                if page.location:
                    self.send_header("Location", page.location)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def add(self, path: str, body: Body, content_type: str = "text/html; charset=utf-8", **kwargs: object) -> str:
        """Serve ``body`` at ``path``; returns the page's URL."""
        self.pages[path] = Page(body, content_type, **kwargs)  # type: ignore[arg-type]
        return self.url + path

    def redirect(self, path: str, location: str, status: int = 302) -> str:
        return self.add(path, b"", status=status, location=location)

    def asked(self, path: str) -> bool:
        with self._lock:
            return any(p == path for _, p in self.requests)

    def hosts(self) -> set[str]:
        with self._lock:
            return {h for h, _ in self.requests}

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def article(title: str, text: str, before: str = "", after: str = "", head: str = "") -> bytes:
    """An article page, with markup ``before`` the story, ``after`` it and in the ``head``."""
    paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in text.splitlines() if p.strip())
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>{head}</head><body>"
        f"<h1>{html.escape(title)}</h1><div class='time'>2024-05-06 10:20</div>{before}"
        f"<div class='article'>{paragraphs}</div>{after}</body></html>"
    ).encode()


def list_page(links: list[str], more: str = "") -> bytes:
    items = "".join(f"<li><a href='{html.escape(u, quote=True)}'>标题{n}</a></li>" for n, u in enumerate(links))
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'></head><body><ul>{items}</ul>{more}</body></html>".encode()
    )


def flood_page(count: int, more: str = "") -> bytes:
    """A list page of ``count`` article links, /news/f<n>.html."""
    links = "".join(f"<a href='/news/f{n}.html'>第{n}条</a>\n" for n in range(count))
    return f"<html><head><meta charset='utf-8'></head><body>{links}{more}</body></html>".encode()
