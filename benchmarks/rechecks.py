"""Rechecks on real pages: edits, deletions and page chrome that changes on every fetch.

    python benchmarks/rechecks.py [--pages gne|cwced|all]

The real saved article pages of ``NEWS_DATA`` (the shipped excerpt when it is absent) are
served on a local server under their own templates and crawled once (``news-crawler crawl``).
Then each kept page becomes one of: unchanged but for its chrome (every ``<ul>`` list of links
shuffled, a view count added, the digits of its scripts changed, and all again on every
fetch); a body edit (a sentence added inside the article's longest line, where the markup
holds it as written); a correction note after its last line; a title edit (the headline
wherever the page writes it); deleted by a 404, a 410, a redirect to the home page, or a 200
page with the same title and chrome (its first lists of links) around 该内容已被删除; or a
503 once, then unchanged. An edit whose text the markup does not hold as written (split by
tags) is left unchanged and counted so. ``news-crawler recheck`` runs twice
(``RECHECK_AFTER=0s,0s``). Printed: edits found (bodies, titles), false edits, deletions found
by kind, false deletions, version-2 lines with the new text.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from news_mirror.data import NEWS_DATA, SHIPPED, Data  # noqa: E402

KINDS = ("unchanged", "body", "note", "title", "404", "410", "home", "notice", "flaky")
_LIST = re.compile(r"(<ul[^>]*>)(.*?)(</ul>)", re.S | re.I)
_ITEM = re.compile(r"<li\b.*?</li>", re.S | re.I)
_SCRIPT = re.compile(r"(<script\b.*?</script>)", re.S | re.I)
_P = re.compile(r"(<p\b[^>]*>)(.*?)(</p>)", re.S | re.I)
_TAG = re.compile(r"<[^>]+>")


def churn(page: str, rng: random.Random) -> str:
    """The page with its chrome changed: lists of links shuffled, a view count, script digits."""
    page = _LIST.sub(
        lambda m: (
            m.group(1) + "".join(rng.sample(_ITEM.findall(m.group(2)), len(_ITEM.findall(m.group(2))))) + m.group(3)
        ),
        page,
    )
    page = _SCRIPT.sub(lambda m: re.sub(r"\d", lambda _: str(rng.randint(0, 9)), m.group(1)), page)
    return re.sub(
        r"(<body[^>]*>)",
        lambda m: m.group(1) + f"<span class='views'>阅读 {rng.randint(1, 99999)}</span>",
        page,
        count=1,
        flags=re.I,
    )


def mutate(page: str, kind: str, kept: dict) -> str | None:
    """The page after a ``kind`` of edit of the article as it was kept (its feed line), or None
    when the article's text cannot be found in the markup as written (then left unchanged)."""
    if kind == "title":
        title = kept["title"]
        return page.replace(title, "【更新】" + title) if title and title in page else None
    lines = [line for line in kept["body"].splitlines() if len(line) >= 20]
    if not lines:
        return None
    if kind == "note":  # a correction note after the last line
        tail = lines[-1][-12:]
        at = page.find(tail)
        return (
            None
            if at < 0
            else page[: at + len(tail)] + "（更正：本文此前所述时间有误，现已改正。）" + page[at + len(tail) :]
        )
    line = max(lines, key=len)  # a sentence added inside the longest line
    at = page.find(line[:15])
    if at < 0:
        return None
    stop = page.find("。", at, at + 3 * len(line))
    at = stop + 1 if stop >= 0 else at + 15
    return page[:at] + "记者随后核实了上述情况，相关部门表示将尽快公布进展。" + page[at:]


def notice(page: str) -> str:
    """The page's title and chrome (its first lists of links) around a removal notice, the
    article gone, as sites serve a deleted article; the title stays the article's."""
    title = re.search(r"<title\b.*?</title>", page, re.S | re.I)
    lists = [m.group(0) for m in _LIST.finditer(page) if len(_TAG.sub("", m.group(0))) < 1000]  # not a layout's
    chrome = "".join(lists[:2])
    return (
        f"<html><head><meta charset='utf-8'>{title.group(0) if title else ''}</head><body>{chrome}"
        "<div class='tip'><p>抱歉，该内容已被删除。</p><p><a href='/'>返回首页</a></p></div></body></html>"
    )


class Web:
    def __init__(self, pages: list[bytes]) -> None:
        from news_crawler.extraction.decode import decode_html

        # served as UTF-8, as the header says (which wins over the page's own <meta charset>)
        self.pages = {f"/p/{n}.html": decode_html(page)[0] for n, page in enumerate(pages)}
        self.kept: dict[str, dict] = {}
        self.kind: dict[str, str] = {}
        self.fetches: Counter[str] = Counter()
        self.rng = random.Random(1)
        self.lock = threading.Lock()

    def respond(self, path: str, base: str) -> tuple[int, bytes, dict[str, str]]:
        if path in ("/", "/index.html"):
            links = "".join(f'<li><a href="{base}{p}">文章 {p}</a></li>' for p in self.pages)
            return 200, f"<html><body><ul>{links}</ul></body></html>".encode(), {}
        if path not in self.pages:
            return 404, b"not found", {}
        with self.lock:
            self.fetches[path] += 1
            kind = self.kind.get(path, "")
            if kind == "flaky":
                self.kind[path] = "unchanged"
        page = self.pages[path]
        if kind in ("404", "410"):
            return int(kind), b"<html><body><h1>404 Not Found</h1></body></html>", {}
        if kind == "home":
            return 302, b"", {"Location": f"{base}/"}
        if kind == "flaky":
            return 503, b"busy", {}
        if kind == "notice":
            return 200, notice(page).encode(), {}
        return 200, (churn(page, self.rng) if kind else page).encode(), {}


def serve(web: Web) -> tuple[ThreadingHTTPServer, str]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:  # noqa: N802
            status, body, headers = web.respond(self.path, f"http://{self.headers['Host']}")
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", choices=("gne", "cwced", "all"), default="all")
    ap.add_argument("--verbose", action="store_true", help="each edit or notice that was missed")
    args = ap.parse_args()
    data = Data(NEWS_DATA) if Data(NEWS_DATA).exists() else Data(SHIPPED)
    folders = {"gne": [data.gne], "cwced": [data.cwced], "all": [data.gne, data.cwced]}[args.pages]
    pages = [body for folder in folders for _, body in data.pages(folder)]
    web = Web(pages)
    server, base = serve(web)
    tmp = Path(tempfile.mkdtemp(prefix="rechecks-bench-"))
    (tmp / "sites.toml").write_text(f"[sites.real]\nstart_urls = [\"{base}/\"]\nallow = '/p/\\d+\\.html$'\n")
    env = {**os.environ, "SITES_FILE": str(tmp / "sites.toml"), "DATA_DIR": str(tmp / "data"), "RECHECK_AFTER": "0s,0s"}
    cli = [sys.executable, "-m", "news_crawler.cli.crawler"]

    def run(*cmd: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*cli, *cmd], env=env, cwd=ROOT, capture_output=True, text=True)

    assert run("crawl", "real").returncode == 0
    feed = tmp / "data" / "output"
    for f in feed.rglob("*.jsonl"):
        for line in f.read_text().splitlines():
            item = json.loads(line)
            web.kept[item["url"].replace(base, "")] = item
    kept = set(web.kept)
    rng = random.Random(7)
    order = sorted(kept)
    rng.shuffle(order)
    expected: dict[str, str] = {}
    for n, path in enumerate(order):
        kind = KINDS[n % len(KINDS)]
        if kind in ("body", "note", "title"):
            edited = mutate(web.pages[path], kind, web.kept[path])
            if edited is None:
                kind = "unchanged"
            else:
                web.pages[path] = edited
        web.kind[path] = kind
        expected[path] = kind
    before = Counter(web.fetches)
    for _ in range(2):
        result = run("recheck", "real")
        assert result.returncode == 0, result.stderr[-2000:]
    events = [json.loads(line) for line in run("changes", "--json").stdout.splitlines()]
    run("stop-server")  # the run's embedded Redis would keep running between commands, as a user's does
    found = {e["url"].replace(base, ""): e for e in events}
    lines = [json.loads(line) for f in feed.rglob("*.jsonl") for line in f.read_text().splitlines()]
    v2 = {i["url"].replace(base, ""): i for i in lines if i.get("version", 1) >= 2}
    by_kind: dict[str, list[str]] = {}
    for path, kind in expected.items():
        by_kind.setdefault(kind, []).append(path)
    print(f"{len(pages)} real pages served, {len(kept)} kept by the crawl, then rechecked twice")
    for kind in KINDS:
        paths = by_kind.get(kind, [])
        want = (
            "edited"
            if kind in ("body", "note", "title")
            else "deleted"
            if kind in ("404", "410", "home", "notice")
            else ""
        )
        hits = sum(1 for p in paths if found.get(p, {}).get("event") == want) if want else 0
        wrong = sum(1 for p in paths if p in found and found[p]["event"] != want)
        line = f"  {kind:<9} {len(paths):>3} pages: "
        line += f"{hits} found as {want}" if want else "nothing to find"
        print(line + f", {wrong} found as something else")
    edits = [p for k in ("body", "note", "title") for p in by_kind.get(k, [])]
    marks = ("【更新】", "更正：本文", "记者随后核实")
    with_text = sum(1 for p in edits if p in v2 and any(m in v2[p]["title"] + v2[p]["body"] for m in marks))
    print(
        f"version-2 lines with the new text: {with_text} of {len(edits)} edits; "
        f"version 1 lines: {sum(1 for i in lines if i.get('version', 1) == 1)} of {len(kept)} kept"
    )
    gone = [p for k in ("404", "410", "home", "notice") for p in by_kind.get(k, [])]
    print(f"deleted pages fetched again after their deletion: {sum(1 for p in gone if web.fetches[p] - before[p] > 1)}")
    if args.verbose:
        first = web.kept
        for kind in ("body", "note", "title", "notice"):
            for path in by_kind.get(kind, []):
                event = found.get(path, {})
                new_text = path in v2 and any(m in v2[path]["title"] + v2[path]["body"] for m in marks)
                if event.get("event") != ("deleted" if kind == "notice" else "edited") or (
                    kind != "notice" and not new_text
                ):
                    print(
                        f"  missed {kind} {path}: {event.get('event')} {event.get('reason')} v2={path in v2} "
                        f"title={first[path]['title'][:30]!r} body={first[path]['body'][:60]!r}"
                    )
    server.shutdown()


if __name__ == "__main__":
    main()
