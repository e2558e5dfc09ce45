"""A news site that needs a browser: its list pages build their links with script, and each
article page inserts its title, byline and paragraphs by script. Fetched plainly, the list has
no links and the articles no text. How an article fills its story depends on ``fill``:
``mixed`` (the default) rotates between a JSON blob in the page read at once, the same blob
read 300 ms after the load event, ``/api/<n>.json`` fetched after load (as pages that fetch
their story do), and the blob's paragraphs added one every 100 ms from 600 ms after load;
``slow`` fills every story two seconds after load, with no request to wait for (only a
site's ``wait_for`` selector tells when it is in).

``/list/<n>.html`` lists ``per_list`` articles and, by script too, a link to the next list
page; ``/a/<n>.html`` is article ``n`` (real articles of the sina2018 corpus). Each page also
asks for what a browser site must never load: an image, a script and a frame on another
host, and a ``file:`` URL. With ``hostile``, the first list page also links
``/a/away.html`` (a redirect to the same server under another host name, ``localhost``),
``/a/leave.html`` (a script that sends the browser to that host), ``/a/file.html`` (a
download), ``/a/stall.html`` (an answer that never ends), ``/a/spin.html`` (a script that
never returns), ``/a/hog.html`` (a script that takes memory until it is stopped),
``/a/huge.html`` (a gzip bomb: 12 MB of HTML in a few kB) and ``/a/built.html`` (a script that
writes 12 million characters into its page); and every article page opens windows in a loop
(``window.open``, and a link with a target it clicks) and asks ``alert``, ``confirm`` and
``prompt`` before it fills its story. Every request is logged in ``requests`` as its host and
path.
"""

from __future__ import annotations

import gzip
import html
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOSTILE = (
    '<img src="http://elsewhere.invalid/pixel.gif">'
    '<script src="http://elsewhere.invalid/tracker.js"></script>'
    '<iframe src="http://elsewhere.invalid/ad.html"></iframe>'
    '<img src="file:///etc/passwd">'
    '<a href="/files/report.zip" download>附件</a>'
)


HOSTILE_PAGES = ("away", "leave", "file", "stall", "spin", "hog", "huge", "built")
# Before an article fills its story: windows opened in a loop, and every kind of dialog.
WINDOWS_AND_DIALOGS = """
for (var w = 0; w < 20; w++) { window.open("/popup/" + w + ".html"); }
var t = document.createElement("a"); t.href = "/popup/target.html"; t.target = "_blank";
document.body.appendChild(t); t.click();
alert("提示"); confirm("确定吗？"); prompt("请输入");
"""
_HOG = """<html><body><p>加载中</p><script>
var hoard = [];  // memory outside the script heap: only the renderer's resident bound stops it
function grow() { var b = new Uint8Array(64 << 20); b.fill(1); hoard.push(b); setTimeout(grow, 10); }
grow();
</script></body></html>"""
_BUILT = """<html><body><p>加载中</p><script>
var hidden = document.createElement("div"); hidden.style.display = "none";
hidden.appendChild(document.createTextNode("x".repeat(12000000))); document.body.appendChild(hidden);
</script></body></html>"""


def _blob(data: Any) -> str:
    """JSON safe inside a <script> element."""
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/")


class ScriptedSite:
    def __init__(
        self, articles: list[dict[str, str]], per_list: int = 50, hostile: bool = False, fill: str = "mixed"
    ) -> None:
        self.articles = articles
        self.per_list = per_list
        self.hostile = hostile
        self.fill = fill
        self.requests: list[tuple[str, str]] = []  # (Host header, path)

    def published(self, n: int) -> str:
        return f"2026-11-{1 + n % 27:02d} {8 + n % 12:02d}:{n % 60:02d}"

    def author(self, n: int) -> str:
        return ("王芳", "李强", "张伟", "刘洋")[n % 4]

    def list_page(self, page: int) -> str | None:
        first = page * self.per_list
        if first >= len(self.articles) or page < 0:
            return None
        shown = range(first, min(first + self.per_list, len(self.articles)))
        links = [{"href": f"/a/{n}.html", "title": self.articles[n]["title"]} for n in shown]
        if self.hostile and page == 0:
            links += [{"href": f"/a/{name}.html", "title": name} for name in HOSTILE_PAGES]
        following = f"/list/{page + 1}.html" if first + self.per_list < len(self.articles) else ""
        return f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>要闻 第{page + 1}页</title></head>
<body><h1>要闻</h1><ul id="list"></ul><div id="pages"></div>{HOSTILE}
<script type="application/json" id="links">{_blob({"links": links, "next": following})}</script>
<script>
var data = JSON.parse(document.getElementById("links").textContent);
var list = document.getElementById("list");
data.links.forEach(function (l) {{
  var li = document.createElement("li"), a = document.createElement("a");
  a.href = l.href; a.textContent = l.title; li.appendChild(a); list.appendChild(li);
}});
if (data.next) {{
  var n = document.createElement("a"); n.href = data.next; n.textContent = "下一页";
  document.getElementById("pages").appendChild(n);
}}
</script></body></html>"""

    def story(self, n: int) -> dict[str, Any]:
        a = self.articles[n]
        return {
            "title": a["title"],
            "time": self.published(n),
            "author": self.author(n),
            "paragraphs": [p for p in a["body"].split("\n") if p.strip()],
        }

    def article_page(self, n: int) -> str | None:
        if not 0 <= n < len(self.articles):
            return None
        a = self.articles[n]
        if self.fill == "slow":
            when = "window.addEventListener('load', function () { setTimeout(function () { fill(blob()); }, 2000); });"
        else:
            when = (
                "fill(blob());",
                "window.addEventListener('load', function () { setTimeout(function () { fill(blob()); }, 300); });",
                f"window.addEventListener('load', function () {{ fetch('/api/{n}.json').then(function (r) {{"
                " return r.json(); }).then(fill); });",
                # paragraph by paragraph, from 600 ms after load: the network is idle long before the end
                "window.addEventListener('load', function () { setTimeout(function () { var d = blob(), all ="
                " d.paragraphs; d.paragraphs = []; fill(d); var body = document.querySelector('.article-content');"
                " var i = 0, next = setInterval(function () { if (i >= all.length) { clearInterval(next); return; }"
                " var p = document.createElement('p'); p.textContent = all[i++]; body.appendChild(p); }, 100);"
                " }, 600); });",
            )[n % 4]
        return f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>{html.escape(a["title"])}_新闻</title></head>
<body><div class="nav"><a href="/list/0.html">首页</a></div><div id="app">正在加载……</div>{HOSTILE}
<script type="application/json" id="article">{_blob(self.story(n))}</script>
<script>
function blob() {{ return JSON.parse(document.getElementById("article").textContent); }}
function fill(d) {{
var app = document.getElementById("app");
app.textContent = "";
var h = document.createElement("h1"); h.textContent = d.title; app.appendChild(h);
var info = document.createElement("div"); info.className = "info";
info.textContent = d.time + " 作者：" + d.author; app.appendChild(info);
var body = document.createElement("div"); body.className = "article-content";
d.paragraphs.forEach(function (t) {{ var p = document.createElement("p"); p.textContent = t; body.appendChild(p); }});
app.appendChild(body);
}}
{WINDOWS_AND_DIALOGS if self.hostile else ""}
{when}
</script></body></html>"""

    def static_article_page(self, n: int) -> str:
        """Article ``n`` as a browser builds it, written out: what a plain page of the same
        article would be (what the browser's reading of the page must extract like)."""
        a = self.articles[n]
        paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in a["body"].split("\n") if p.strip())
        return f"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>{html.escape(a["title"])}_新闻</title></head>
<body><div class="nav"><a href="/list/0.html">首页</a></div><div id="app"><h1>{html.escape(a["title"])}</h1>
<div class="info">{self.published(n)} 作者：{self.author(n)}</div><div class="article-content">{paragraphs}</div>
</div>{HOSTILE}</body></html>"""

    def page(self, path: str) -> str | None:
        name = path.rsplit("/", 1)[-1]
        if not name.endswith(".html") or not name[:-5].isdigit():
            return None
        if path.startswith("/list/"):
            return self.list_page(int(name[:-5]))
        if path.startswith("/a/"):
            return self.article_page(int(name[:-5]))
        return None


def serve(site: ScriptedSite, host: str = "127.0.0.1", port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """Serve ``site`` in a thread; returns the server and its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def answer(self, data: bytes, content_type: str, **headers: str) -> None:
            """A 200 with ``data`` whole (its length said) and ``headers`` (``_`` for ``-``)."""
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            for name, value in headers.items():
                self.send_header(name.replace("_", "-"), value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 - the http.server name
            path = self.path.split("?")[0]
            site.requests.append((self.headers.get("Host", ""), path))
            port = self.server.server_address[1]
            if path == "/a/away.html":
                self.send_response(302)
                self.send_header("Location", f"http://localhost:{port}/a/0.html")
                self.end_headers()
                return
            if path == "/a/file.html":
                data = b"PK\x03\x04" + b"\x00" * 2000
                self.answer(data, "application/zip", Content_Disposition='attachment; filename="report.zip"')
                return
            if path == "/a/stall.html":
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.end_headers()
                self.wfile.write(b"<html><body><p>")
                self.wfile.flush()
                time.sleep(60)  # never finished within any crawl's DOWNLOAD_TIMEOUT
                return
            if path == "/a/huge.html":  # 12 MB of HTML unpacked, a few kB on the wire
                data = gzip.compress(b"<html><body><div style='display:none'>" + b"x" * 12_000_000 + b"</div>", 9)
                self.answer(data, "text/html; charset=utf-8", Content_Encoding="gzip")
                return
            if path.startswith("/api/") and path.endswith(".json") and path[5:-5].isdigit():
                n = int(path[5:-5])
                if 0 <= n < len(site.articles):
                    story = json.dumps(site.story(n), ensure_ascii=False).encode()
                    self.answer(story, "application/json; charset=utf-8")
                    return
            body = site.page(path)
            if path == "/a/hog.html":
                body = _HOG
            if path == "/a/built.html":
                body = _BUILT
            if path == "/a/spin.html":
                body = "<html><body><p>正在加载</p><script>while (true) {}</script></body></html>"
            if path == "/a/leave.html":
                body = f'<html><body><script>location.href = "http://localhost:{port}/a/1.html";</script></body></html>'
            if body is None:
                self.send_error(404)
                return
            self.answer(body.encode("utf-8"), "text/html; charset=utf-8")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="scripted-site", daemon=True).start()
    return server, f"http://{host}:{server.server_address[1]}"
