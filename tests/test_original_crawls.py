"""Real crawls of a county site and a portal that reprints its stories hours later: whichever
is crawled first, the county's copy ends up the story's original (``DEDUP_ORIGINAL``
"earliest"), the portal's a copy of it, and the report credits the county."""

from __future__ import annotations

import html
import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from news_mirror.live import articles
from tests.crawl_helpers import ROOT

STORIES = 6


class ReprintWeb:
    """``/county/`` lists the county's stories, published at 0N:00; ``/portal/`` lists the
    same stories reprinted at 1N:00 the same day, each with a 来源 line naming the county
    (whose pages' ``<title>`` names it). ``timed`` False: no page shows a time."""

    def __init__(self, timed: bool = True) -> None:
        self.texts = articles(STORIES, seed=69)
        self.timed = timed

    def page(self, path: str) -> tuple[int, str]:
        parts = path.split("?")[0].strip("/").split("/")
        if parts[0] not in ("county", "portal"):
            return 404, "<html><body>404</body></html>"
        site = parts[0]
        if len(parts) == 1:
            links = "".join(
                f'<li><a href="/{site}/a/{n}.html">{html.escape(t["title"])}</a></li>' for n, t in enumerate(self.texts)
            )
            return (
                200,
                f'<html><head><meta charset="utf-8"><title>{site}</title></head><body><ul>{links}</ul></body></html>',
            )
        n = int(parts[2].removesuffix(".html"))
        text = self.texts[n]
        hour = n if site == "county" else 10 + n
        credit = "<p>来源：城关县融媒体中心</p>" if site == "portal" else ""
        outlet = "城关县融媒体中心" if site == "county" else "某某门户网"
        paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in text["body"].split("\n") if p.strip())
        when = f'<div class="info"><span class="time">2026-12-01 {hour:02d}:00</span></div>' if self.timed else ""
        return 200, (
            f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{html.escape(text["title"])}_{outlet}</title>'
            f"</head><body><h1>{html.escape(text['title'])}</h1>{when}"
            f'<div class="article">{credit}{paragraphs}</div></body></html>'
        )


@pytest.fixture
def web(tmp_path, request):
    site = ReprintWeb(timed=getattr(request, "param", True))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, text = site.page(self.path)
            body = text.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    sites = tmp_path / "sites.toml"
    sites.write_text(
        "".join(
            f"[sites.{name}]\nstart_urls = [\"{base}/{name}/\"]\nallow = '/{name}/a/\\d+\\.html$'\n\n"
            for name in ("county", "portal")
        ),
        encoding="utf-8",
    )
    yield base, sites
    server.shutdown()


def command(tool: str, *args: str, redis_url: str, sites: Path, feed: Path) -> list[str]:
    module = {"crawler": "news_crawler.cli.crawler", "dedup": "news_crawler.cli.dedup"}[tool]
    settings = {"REDIS_URL": redis_url, "SITES_FILE": str(sites), "FEED_DIR": str(feed), "DEDUP_PROCESSES": "1"}
    if tool == "dedup":
        return [sys.executable, "-m", module, *args, *(f"-s{k}={v}" for k, v in settings.items())]
    return [sys.executable, "-m", module, *args, *(x for k, v in settings.items() for x in ("-s", f"{k}={v}"))]


def feed(folder: Path) -> list[dict]:
    return [json.loads(line) for f in sorted(folder.glob("*/*.jsonl")) for line in f.read_text().splitlines() if line]


def check_stories(base: str, redis_client) -> None:
    """Every story's original is the county's copy; the portal's names it."""
    from news_crawler.dedup.index import RedisStore

    store = RedisStore(redis_client, "news")
    for n in range(STORIES):
        county, portal = f"{base}/county/a/{n}.html", f"{base}/portal/a/{n}.html"
        assert store.lookup(county).kept, n
        assert store.lookup(portal).duplicate_of == county, n


def test_the_county_original_crawled_after_the_portal_reprint_is_the_story_original(
    tmp_path, redis_server, redis_client, web
):
    base, sites = web
    out = tmp_path / "feed"

    def run(*args: str, tool: str = "crawler") -> subprocess.CompletedProcess:
        return subprocess.run(
            command(tool, *args, redis_url=redis_server.url, sites=sites, feed=out),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )

    for site in ("portal", "county"):  # the reprint first
        done = run("crawl", site)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    items = {i["url"]: i for i in feed(out)}
    assert len(items) == 2 * STORIES  # both kept when crawled; the county's replaced the portal's
    for n in range(STORIES):
        county = items[f"{base}/county/a/{n}.html"]
        assert county["supersedes"] == [f"{base}/portal/a/{n}.html"]
        assert "supersedes" not in items[f"{base}/portal/a/{n}.html"]
    check_stories(base, redis_client)

    changes = [json.loads(line) for line in run("changes", "--json").stdout.splitlines()]
    assert sorted(e["url"] for e in changes) == sorted(f"{base}/portal/a/{n}.html" for n in range(STORIES))
    assert all(e["event"] == "superseded" and e["site"] == "portal" for e in changes)
    assert all(e["reason"].startswith(f"an earlier copy is the story's original: {base}/county/a/") for e in changes)

    story = [json.loads(line) for line in run("story", f"{base}/portal/a/2.html", tool="dedup").stdout.splitlines()]
    assert story[0] == {"id": f"{base}/county/a/2.html", "role": "original", "site": "county", "copies": 1}
    assert [s["id"] for s in story[1:]] == [f"{base}/portal/a/2.html"]

    report = tmp_path / "report.html"
    assert run("report", "--out", str(report)).returncode == 0
    page = report.read_text()
    credited = page[page.index('<table id="reprinted">') :]
    credited = credited[: credited.index("</table>")]
    assert f'<tr data-site="county"><td>county</td><td>{STORIES}</td></tr>' in credited
    assert "portal" not in credited

    # a second run of both: nothing new, nothing superseded again
    for site in ("county", "portal"):
        assert run("crawl", site).returncode == 0
    assert len(feed(out)) == 2 * STORIES
    assert len(run("changes", "--json").stdout.splitlines()) == STORIES


def test_two_crawls_of_the_two_sites_at_once_end_with_every_county_copy_the_original(
    tmp_path, redis_server, redis_client, web
):
    base, sites = web
    procs = [
        subprocess.Popen(
            command("crawler", "crawl", site, redis_url=redis_server.url, sites=sites, feed=tmp_path / site),
            cwd=ROOT,
            stdout=open(tmp_path / f"{site}.log", "w"),
            stderr=subprocess.STDOUT,
        )
        for site in ("portal", "county")
    ]
    for site, proc in zip(("portal", "county"), procs):
        assert proc.wait(300) == 0, (tmp_path / f"{site}.log").read_text()[-3000:]
    check_stories(base, redis_client)
    county = {i["url"]: i for i in feed(tmp_path / "county")}
    portal = {i["url"]: i for i in feed(tmp_path / "portal")}
    assert len(county) == STORIES  # every original kept and written
    for n in range(STORIES):  # a reprint kept before its original came is superseded by it
        reprint = f"{base}/portal/a/{n}.html"
        assert county[f"{base}/county/a/{n}.html"].get("supersedes", []) == ([reprint] if reprint in portal else [])


@pytest.mark.parametrize("web", [False], indirect=True)
def test_without_times_the_county_the_reprints_name_as_their_source_is_the_story_original(
    tmp_path, redis_server, redis_client, web
):
    base, sites = web
    for site in ("portal", "county"):  # the reprints first, no page showing a time
        done = subprocess.run(
            command("crawler", "crawl", site, redis_url=redis_server.url, sites=sites, feed=tmp_path / "feed"),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    items = {i["url"]: i for i in feed(tmp_path / "feed")}
    assert len(items) == 2 * STORIES
    for n in range(STORIES):
        assert items[f"{base}/county/a/{n}.html"]["supersedes"] == [f"{base}/portal/a/{n}.html"]
    check_stories(base, redis_client)
