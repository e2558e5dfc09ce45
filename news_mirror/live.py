"""A live news web: sites whose articles appear over time, for ``news-crawler watch``.

Each site publishes real articles (the sina2018 corpus) at times given in advance: the
seconds after the web starts (negative: already there). ``/<site>/`` is its list page (HTML,
or RSS with ``feed``) of the newest ``list_size`` articles, with an ETag and a Last-Modified
when the site gives ``validators`` (and a 304 for a revisit that sends them back unchanged);
``/<site>/a/<n>.html`` an article page that states its publication time to the second. Every
list page fetch is logged with its time, status and whether the list changed since the same
site's fetch before, so a benchmark or a test can measure the schedule from outside.
"""

from __future__ import annotations

import gzip
import hashlib
import html
import json
import random
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import formatdate, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from news_mirror.data import SHIPPED


@dataclass
class LiveSite:
    name: str
    times: list[float]  # each article's publication, seconds after the web's start (inf: not yet)
    feed: bool = False  # an RSS feed instead of an HTML list page
    validators: bool = True  # ETag and Last-Modified on the list page, and 304s
    etag: bool = True  # with validators: False gives Last-Modified alone (a 304 only for If-Modified-Since)
    list_size: int = 30
    sitemap: bool = False  # the start page is a sitemap index of one sitemap (sitemap.xml), which lists the articles


@dataclass
class ListFetch:
    site: str
    at: float  # seconds after the web's start
    status: int
    changed: bool  # the list differs from the one this site's previous fetch was shown
    shown: list[int] = field(default_factory=list)  # article numbers on the page (200 only)


def articles(count: int, seed: int = 1, corpus: Path | None = None) -> list[dict[str, str]]:
    """``count`` real articles (title, body) of which the near-duplicate engine keeps every
    one (the corpus holds reprints of its own: a watch must not be judged by them)."""
    from news_crawler.dedup.fingerprint.fingerprinter import Fingerprinter, UnusableText
    from news_crawler.dedup.index import MemoryStore, SentenceRule

    root = corpus or SHIPPED / "sina2018"
    rows = [json.loads(line) for line in gzip.decompress((root / "articles.jsonl.gz").read_bytes()).splitlines()]
    rows = [r for r in rows if len(r["body"]) >= 200]
    random.Random(seed).shuffle(rows)
    fingerprinter, store, out = Fingerprinter(), MemoryStore(3, SentenceRule()), []
    for row in rows:
        try:
            f = fingerprinter.fingerprint(row["body"])
        except UnusableText:
            continue
        if store.decide(str(row["id"]), f.value, f.sentences, f.length).kept:
            out.append({"title": row["title"], "body": row["body"]})
            if len(out) == count:
                return out
    raise ValueError(f"the corpus holds {len(out)} distinct articles, {count} asked for")


class LiveWeb:
    def __init__(self, sites: list[LiveSite], texts: list[dict[str, str]], start: float | None = None) -> None:
        self.sites = {s.name: s for s in sites}
        self.start = time.time() if start is None else start
        self.fetches: list[ListFetch] = []
        self.article_fetches: list[tuple[str, int, float]] = []  # (site, number, seconds after start)
        self._last_shown: dict[str, str] = {}
        # After publication: (site, n) -> "404", "410", "home" (a redirect to the list), "away" (a
        # redirect to another site), "notice"
        # (a 200 page saying the content was removed), "flaky" (one 503, then the article again)
        self.gone: dict[tuple[str, int], str] = {}
        self.views = 0  # the view counter every article page shows: changes on every fetch
        self._lock = threading.Lock()
        # article (site, n) -> its text, numbered in publication order within the site
        need = sum(len(s.times) for s in sites)
        if len(texts) < need:
            raise ValueError(f"{need} articles to publish, {len(texts)} texts")
        it = iter(texts)
        self.texts = {(s.name, n): next(it) for s in sites for n in range(len(s.times))}

    def edit(self, site: str, n: int, title: str | None = None, body: str | None = None) -> None:
        """Article ``n`` of ``site`` says something else from now on."""
        text = self.texts[site, n]
        self.texts[site, n] = {
            "title": text["title"] if title is None else title,
            "body": text["body"] if body is None else body,
        }

    def publish(self, site: str, n: int) -> None:
        """Article ``n`` of ``site`` appears now (one whose time is ``math.inf`` waits for this)."""
        self.sites[site].times[n] = time.time() - self.start

    def published(self, site: str, n: int) -> float:
        """When article ``n`` of ``site`` appears (seconds since the epoch)."""
        return self.start + self.sites[site].times[n]

    def visible(self, site: LiveSite, now: float) -> list[int]:
        """The numbers of the articles on the list now, newest first."""
        shown = [n for n, t in enumerate(site.times) if self.start + t <= now]
        return sorted(shown, key=lambda n: site.times[n], reverse=True)[: site.list_size]

    def url(self, base: str, site: str, n: int) -> str:
        return f"{base}/{site}/a/{n}.html"

    def respond(self, path: str, headers: Any, base: str) -> tuple[int, bytes, dict[str, str]]:
        now = time.time()
        parts = path.split("?")[0].strip("/").split("/")
        site = self.sites.get(parts[0]) if parts and parts[0] else None
        if site is None:
            return 404, b"not found", {"Content-Type": "text/plain"}
        if len(parts) == 1:
            return self._list(site, now, headers, base)
        if len(parts) == 2 and parts[1] == "sitemap.xml" and site.sitemap:
            return self._list(site, now, headers, base, child=True)
        if len(parts) == 3 and parts[1] == "a" and parts[2].endswith(".html") and parts[2][:-5].isdigit():
            n = int(parts[2][:-5])
            if n < len(site.times) and self.published(site.name, n) <= now:
                with self._lock:
                    self.article_fetches.append((site.name, n, now - self.start))
                    gone = self.gone.get((site.name, n))
                    if gone == "flaky":
                        del self.gone[site.name, n]
                if gone in ("404", "410"):
                    return int(gone), b"<html><body><h1>Not Found</h1></body></html>", {"Content-Type": "text/html"}
                if gone == "home":
                    return 302, b"", {"Location": f"{base}/{site.name}/"}
                if gone == "away":
                    return 302, b"", {"Location": "http://elsewhere.invalid/"}
                if gone == "flaky":
                    return 503, b"<html><body>busy</body></html>", {"Content-Type": "text/html"}
                html_page = self._article(site.name, n, removed=gone == "notice")
                return 200, html_page, {"Content-Type": "text/html; charset=utf-8"}
        return 404, b"<html><body>404</body></html>", {"Content-Type": "text/html"}

    def _list(
        self, site: LiveSite, now: float, headers: Any, base: str, child: bool = False
    ) -> tuple[int, bytes, dict[str, str]]:
        shown = self.visible(site, now)
        if site.sitemap and not child:  # the index: one sitemap, its lastmod the newest article's
            newest = max((self.published(site.name, n) for n in shown), default=self.start)
            with self._lock:
                self.fetches.append(ListFetch(site.name, now - self.start, 200, True, []))
            body = (
                '<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                f"<sitemap><loc>{base}/{site.name}/sitemap.xml</loc>"
                f"<lastmod>{datetime.fromtimestamp(newest, UTC).isoformat(timespec='seconds')}</lastmod></sitemap>"
                "</sitemapindex>"
            )
            return 200, body.encode(), {"Content-Type": "application/xml"}
        etag = '"' + hashlib.sha1(",".join(map(str, shown)).encode()).hexdigest()[:16] + '"'
        newest = max((self.published(site.name, n) for n in shown), default=self.start - 86400)
        modified = formatdate(int(newest), usegmt=True)
        status = 200
        if site.validators:
            if headers.get("If-None-Match") and site.etag:  # RFC 9110: If-None-Match wins over If-Modified-Since
                status = 304 if headers.get("If-None-Match") == etag else 200
            elif headers.get("If-Modified-Since"):
                try:
                    since = parsedate_to_datetime(headers.get("If-Modified-Since")).timestamp()
                except (TypeError, ValueError):
                    since = 0
                status = 304 if int(newest) <= since else 200
        with self._lock:
            changed = self._last_shown.get(site.name) != etag
            self._last_shown[site.name] = etag
            self.fetches.append(ListFetch(site.name, now - self.start, status, changed, shown if status == 200 else []))
        out = {"ETag": etag, "Last-Modified": modified} if site.validators else {}
        if not site.etag:
            out.pop("ETag", None)
        if status == 304:
            return 304, b"", out
        if child:
            urls = "".join(f"<url><loc>{self.url(base, site.name, n)}</loc></url>" for n in shown)
            body = f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
            return 200, body.encode(), {**out, "Content-Type": "application/xml"}
        if site.feed:
            items = "".join(
                f"<item><title>{html.escape(self.texts[site.name, n]['title'])}</title>"
                f"<link>{self.url(base, site.name, n)}</link></item>"
                for n in shown
            )
            body = f'<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>{site.name}</title>'
            return 200, f"{body}{items}</channel></rss>".encode(), {**out, "Content-Type": "application/rss+xml"}
        links = "".join(
            f'<li><a href="{self.url(base, site.name, n)}">{html.escape(self.texts[site.name, n]["title"])}</a></li>'
            for n in shown
        )
        page = (
            f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{site.name} 滚动新闻</title></head><body>'
            f'<div class="nav"><a href="/{site.name}/">首页</a></div><ul class="list">{links}</ul></body></html>'
        )
        return 200, page.encode(), {**out, "Content-Type": "text/html; charset=utf-8"}

    def _article(self, site: str, n: int, removed: bool = False) -> bytes:
        """The article page, in chrome that changes on every fetch (view counts above and under
        the story, the 热点 list);
        ``removed``: the same chrome around a notice that the content is gone."""
        text = self.texts[site, n]
        when = datetime.fromtimestamp(int(self.published(site, n)), UTC).astimezone()
        stamp = when.isoformat(timespec="seconds")
        with self._lock:
            self.views += 1
            views = self.views
        others = [t["title"] for (s, _), t in self.texts.items() if s == site]
        hot = "".join(
            f"<li><a href='/{site}/'>{html.escape(t)}</a></li>" for t in random.sample(others, min(5, len(others)))
        )
        chrome = f'<div class="nav"><a href="/{site}/">首页</a></div><div class="hot"><h3>热点</h3><ul>{hot}</ul></div>'
        if removed:
            return (
                f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{site} 新闻</title></head><body>{chrome}'
                '<div class="article"><p>抱歉，该内容已被删除。</p><p><a href="/">返回首页</a></p></div></body></html>'
            ).encode()
        paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in text["body"].split("\n") if p.strip())
        return (
            f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{html.escape(text["title"])}_{site}</title>'
            f'<meta property="article:published_time" content="{stamp}"></head><body>{chrome}'
            f"<h1>{html.escape(text['title'])}</h1>"
            f'<div class="info">发布时间：{when.strftime("%Y-%m-%d %H:%M:%S")} 阅读：{views}</div>'
            # counters in the story's own container, glued as a self-media page shows them
            f'<div class="article">{paragraphs}<div class="stats">浏览 {views}点赞 {views % 97}'
            f"</div><div>阅读 {views / 10:.1f}万 在看 {views % 13}</div></div></body></html>"
        ).encode()


class _Handler(BaseHTTPRequestHandler):
    web: LiveWeb
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802 - the http.server API
        host = self.headers.get("Host") or f"{self.server.server_address[0]}:{self.server.server_address[1]}"
        status, body, headers = self.web.respond(self.path, self.headers, f"http://{host}")
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, format: str, *args: object) -> None:
        pass


def serve(web: LiveWeb, host: str = "127.0.0.1", port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """Serve ``web`` from a daemon thread; returns the server and its base URL."""
    handler = type("LiveHandler", (_Handler,), {"web": web})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="live-web", daemon=True).start()
    return server, f"http://{host}:{server.server_address[1]}"


def sites_file(web: LiveWeb, base: str, path: Path) -> Path:
    """A sites file declaring every site of ``web`` at ``base``."""
    lines = []
    for name in web.sites:
        lines += [f"[sites.{name}]", f'start_urls = ["{base}/{name}/"]', f"allow = '/{name}/a/\\d+\\.html$'", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
