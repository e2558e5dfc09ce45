"""A local web of sites crawled run after run, each run with new real articles, whose sites a
test can break (a template that hides the story, pages still 200; a start page answering 503)
and heal; a webhook receiver and a real SMTP server (aiosmtpd) that record what they got."""

from __future__ import annotations

import html
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from news_mirror.live import articles


@dataclass
class Site:
    name: str
    published: list[dict[str, str]] = field(default_factory=list)  # title, body, author, time
    hidden: bool = False  # the article template shows no story (an app-only page), still 200
    down: bool = False  # the start page answers 503


class RunWeb:
    """``publish(k)`` puts ``k`` new articles on every site (a new day's news)."""

    def __init__(self, names: list[str], per_run: int, runs: int) -> None:
        self.sites = {n: Site(n) for n in names}
        self.texts = iter(articles(per_run * runs * len(names), seed=72))
        self.lock = threading.Lock()

    def publish(self, k: int) -> None:
        with self.lock:
            for site in self.sites.values():
                for _ in range(k):
                    n = len(site.published)
                    text = next(self.texts)
                    site.published.append(
                        {
                            **text,
                            "author": "记者 " + "张王李赵"[n % 4] + "明",
                            "time": f"2026-12-0{1 + n % 2} 0{n % 10}:30",
                        }
                    )

    def respond(self, path: str) -> tuple[int, str]:
        parts = path.split("?")[0].strip("/").split("/")
        site = self.sites.get(parts[0])
        if site is None:
            return 404, "<html><body>not found</body></html>"
        if len(parts) == 1:
            if site.down:
                return 503, "<html><body>Service Unavailable</body></html>"
            links = "".join(
                f'<li><a href="/{site.name}/a/{n}.html">{html.escape(a["title"])}</a></li>'
                for n, a in reversed(list(enumerate(site.published)))
            )
            return (
                200,
                f'<html><head><meta charset="utf-8"><title>{site.name}</title></head>'
                f"<body><ul>{links}</ul></body></html>",
            )
        if len(parts) == 3 and parts[1] == "a" and parts[2].removesuffix(".html").isdigit():
            n = int(parts[2].removesuffix(".html"))
            if n < len(site.published):
                return 200, self.article(site, site.published[n])
        return 404, "<html><body>404</body></html>"

    @staticmethod
    def article(site: Site, a: dict[str, str]) -> str:
        nav = '<div class="nav"><a href="/">首页</a> <a href="/news/">新闻</a> <a href="/about/">关于我们</a></div>'
        if site.hidden:  # the new template: the story comes from an app, the page says so
            story = '<div id="app"></div><p class="tip">打开客户端阅读全文</p>'
        else:
            paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in a["body"].split("\n") if p.strip())
            story = (
                f'<div class="info"><span class="time">{a["time"]}</span> '
                f'<span class="author">{a["author"]}</span></div>'
                f'<div class="article">{paragraphs}</div>'
            )
        return (
            f'<!DOCTYPE html><html><head><meta charset="utf-8">'
            f"<title>{html.escape(a['title'])}_{site.name}</title></head>"
            f"<body>{nav}<h1>{html.escape(a['title'])}</h1>{story}"
            '<div class="footer">版权所有 本网站 联系电话 010-12345678</div></body></html>'
        )


def serve_web(web: RunWeb) -> tuple[ThreadingHTTPServer, str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, text = web.respond(self.path)
            body = text.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    return _start(Handler)


class Receiver:
    """A webhook receiver: every POST's JSON, answered with ``status`` (a 3xx names a new place)."""

    def __init__(self) -> None:
        self.got: list[dict[str, Any]] = []
        self.status = 204
        self.arrived = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                payload = json.loads(self.rfile.read(length))
                with receiver.arrived:
                    receiver.got.append(payload)
                    receiver.arrived.notify_all()
                self.send_response(receiver.status)
                if 300 <= receiver.status < 400:  # moved: to where only a GET would be answered
                    self.send_header("Location", receiver.url + "/moved")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server, self.url = _start(Handler)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Mailbox:
    """A real SMTP server (aiosmtpd) on a free port; ``messages`` as parsed mail."""

    def __init__(self) -> None:
        import socket
        from email import message_from_bytes, policy

        from aiosmtpd.controller import Controller

        self.messages: list[Any] = []
        box = self

        class Handler:
            async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
                box.messages.append(message_from_bytes(envelope.original_content, policy=policy.default))
                return "250 OK"

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.controller = Controller(Handler(), hostname="127.0.0.1", port=port)
        self.controller.start()
        self.url = f"smtp://127.0.0.1:{port}"

    def close(self) -> None:
        self.controller.stop()


def _start(handler: type) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"
