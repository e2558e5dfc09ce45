"""``news-crawler watch`` for real: subprocesses on a real Redis, against a live web of real
articles served over HTTP (``news_mirror/live.py``) that publishes when the test says."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from news_crawler.cli.metrics import RedisCollector
from news_crawler.config import build_settings
from news_mirror.live import LiveSite, LiveWeb, articles, serve, sites_file
from tests.crawl_helpers import ROOT, wait_for

INF = math.inf


@pytest.fixture
def web(tmp_path):
    sites = [
        LiveSite("busy", [-30.0, -20.0] + [INF] * 4),  # publishes when a test says
        LiveSite("never", [-100.0, -90.0], feed=True),  # never changes; gives validators
        LiveSite("dated", [-80.0], etag=False),  # never changes; gives Last-Modified alone
        LiveSite("plain", [-10.0] + [INF] * 2, validators=False),  # no ETag, no Last-Modified
        LiveSite("indexed", [-40.0] + [INF] * 2, sitemap=True),  # a sitemap index: new links on its sitemap
    ]
    live = LiveWeb(sites, articles(sum(len(s.times) for s in sites), seed=5))
    server, base = serve(live)
    live.base = base  # type: ignore[attr-defined]
    live.sites_path = sites_file(live, base, tmp_path / "sites.toml")  # type: ignore[attr-defined]
    yield live
    server.shutdown()


def watch(tmp: Path, web: LiveWeb, redis_url: str, name: str, *args: str, **settings: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "news_crawler.cli.crawler", "watch", *args]
    for key, value in {
        "REDIS_URL": redis_url,
        "SITES_FILE": str(web.sites_path),  # type: ignore[attr-defined]
        "FEED_DIR": str(tmp / name),
        "DAILY_DIR": str(tmp / "daily"),
        "DEDUP_PROCESSES": "1",
        "REVISIT_MIN": "0.5",
        "REVISIT_MAX": "2",
        "DOWNLOAD_TIMEOUT": "1",  # a claim lasts 2 x 1 + 10 s
        "LOG_LEVEL": "INFO",
        **settings,
    }.items():
        cmd += ["-s", f"{key}={value}"]
    log = open(tmp / f"{name}.log", "w")
    return subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy())


def feed(tmp: Path, *names: str) -> list[dict]:
    return [
        json.loads(line)
        for name in names
        for f in sorted((tmp / name).glob("*/*.jsonl"))
        for line in f.read_text(encoding="utf-8").splitlines()
        if line
    ]


def in_feed(tmp: Path, url: str, *names: str) -> bool:
    return any(item["url"] == url for item in feed(tmp, *names))


def status(redis_url: str, web: LiveWeb) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "news_crawler.cli.crawler", "status", "--json", "-s", f"REDIS_URL={redis_url}"],
        cwd=ROOT,
        env={**os.environ, "SITES_FILE": str(web.sites_path)},  # type: ignore[attr-defined]
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def fetched(web: LiveWeb, site: str) -> list:
    return [f for f in web.fetches if f.site == site]


def test_watch_finds_new_articles_backs_off_answers_304s_and_stops_on_sigterm(
    tmp_path, redis_server, redis_client, web
):
    url, web_ = redis_server.url, web
    proc = watch(tmp_path, web_, url, "w", RECHECK_AFTER="1s,2s")  # kept articles rechecked as they fall due
    try:
        wait_for(lambda: all(fetched(web_, s) for s in web_.sites), 60, "the first visit of every start page")
        for n in (2, 3):  # each published while the watch runs reaches the feed
            web_.publish("busy", n)
            wait_for(lambda n=n: in_feed(tmp_path, web_.url(web_.base, "busy", n), "w"), 60, f"busy article {n}")
        web_.publish("plain", 1)
        wait_for(lambda: in_feed(tmp_path, web_.url(web_.base, "plain", 1), "w"), 60, "plain article 1")
        web_.publish("indexed", 1)
        wait_for(lambda: in_feed(tmp_path, web_.url(web_.base, "indexed", 1), "w"), 60, "indexed article 1")
        # the never-changing page backs off to REVISIT_MAX, and is answered 304 once it gave validators
        wait_for(lambda: len(fetched(web_, "never")) >= 5, 60, "five visits of the quiet page")
        wait_for(lambda: len(fetched(web_, "dated")) >= 3, 60, "three visits of the page without an ETag")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0, (tmp_path / "w.log").read_text()[-3000:]
    finally:
        proc.kill()
    log = (tmp_path / "w.log").read_text()
    assert "Spider closed (shutdown)" in log
    assert "'rechecks/unchanged/busy'" in log  # rechecked while watching; the changing chrome no edit
    never = fetched(web_, "never")
    assert never[0].status == 200 and {f.status for f in never[1:]} == {304}
    dated = fetched(web_, "dated")  # If-Modified-Since alone, sent back and answered
    assert dated[0].status == 200 and {f.status for f in dated[1:]} == {304}
    assert {f.status for f in fetched(web_, "plain")} == {200}  # nothing to send back, nothing to answer 304
    items = feed(tmp_path, "w")
    urls = [item["url"] for item in items]
    assert len(urls) == len(set(urls))  # each article once
    published = {web_.url(web_.base, s.name, n) for s in web_.sites.values() for n, t in enumerate(s.times) if t < INF}
    assert set(urls) == published
    report = status(url, web_)["spiders"]
    (quiet,) = report["never"]["watched"]
    assert quiet["interval"] == 2.0  # REVISIT_MAX
    assert quiet["visits"]["not_modified"] >= 4
    (busy,) = report["busy"]["watched"]
    assert busy["visits"]["new_links"] >= 1 and busy["new_links_per_day"] > 0
    (indexed,) = report["indexed"]["watched"]  # its new links were on its sitemap, and are its own
    assert indexed["new_links_per_day"] > 0 and "new_links" not in indexed["visits"]
    # every kept article's discovery latency counted, and exported with the revisits
    assert sum(report[s]["latency"]["articles"] for s in web_.sites) == len(urls)
    families = {
        f.name: f
        for f in RedisCollector(build_settings({"REDIS_URL": url, "SITES_FILE": str(web_.sites_path)})).collect()
    }
    samples = {(s.name, tuple(sorted(s.labels.items()))): s.value for f in families.values() for s in f.samples}
    assert samples["news_crawler_revisits_total", (("result", "not_modified"), ("site", "never"))] >= 4
    assert samples["news_crawler_revisit_interval_seconds", (("page", f"{web_.base}/never/"), ("site", "never"))] == 2
    assert samples["news_crawler_discovery_latency_seconds_count", (("site", "busy"),)] == 4
    # a page was never fetched twice within REVISIT_MIN (server-side times)
    for site in ("busy", "never", "plain"):
        times = [f.at for f in fetched(web_, site)]
        assert all(b - a >= 0.5 for a, b in zip(times, times[1:])), (site, times)


def test_two_watchers_share_the_schedule_and_watch_for_exits_0(tmp_path, redis_server, redis_client, web):
    url = redis_server.url
    procs = [watch(tmp_path, web, url, name) for name in ("a", "b")]
    try:
        wait_for(lambda: len(fetched(web, "busy")) >= 2, 60, "the busy page visited twice")
        web.publish("busy", 2)
        wait_for(lambda: in_feed(tmp_path, web.url(web.base, "busy", 2), "a", "b"), 60, "the new article")
        wait_for(lambda: len(feed(tmp_path, "a", "b")) >= 8, 60, "every article")
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for name, proc in zip("ab", procs):
            assert proc.wait(120) == 0, (tmp_path / f"{name}.log").read_text()[-3000:]
    finally:
        for proc in procs:
            proc.kill()
    for name in "ab":
        assert "Spider closed (shutdown)" in (tmp_path / f"{name}.log").read_text()
    urls = [item["url"] for item in feed(tmp_path, "a", "b")]
    assert len(urls) == len(set(urls)) == 8  # seven there from the start, one published: each once
    for site in ("busy", "never", "plain"):  # never two fetches of a page at once, nor within REVISIT_MIN
        times = [f.at for f in fetched(web, site)]
        assert all(b - a >= 0.5 for a, b in zip(times, times[1:])), (site, times)
    # --for: a watcher that ends by itself exits 0 as a stopped one, even when its time is up
    # before its engine has started (Scrapy's stop does nothing to an engine still starting)
    timed = watch(tmp_path, web, url, "c", "--for", "0.001")
    try:
        assert timed.wait(120) == 0, (tmp_path / "c.log").read_text()[-3000:]
    finally:
        timed.kill()
    assert "Spider closed (shutdown)" in (tmp_path / "c.log").read_text()


def test_a_watcher_killed_with_sigkill_loses_nothing(tmp_path, redis_server, redis_client, web):
    url = redis_server.url
    first = watch(tmp_path, web, url, "a")
    try:
        wait_for(lambda: len(feed(tmp_path, "a")) >= 1, 60, "the first watcher at work")
        web.publish("busy", 2)  # the killed watcher may have claimed, fetched or queued it, or not
        first.kill()
        first.wait(30)
        second = watch(tmp_path, web, url, "b")
        try:
            for n in (2, 3):
                if n == 3:
                    web.publish("busy", 3)
                wait_for(lambda n=n: in_feed(tmp_path, web.url(web.base, "busy", n), "a", "b"), 90, f"article {n}")
            wait_for(lambda: len(feed(tmp_path, "a", "b")) >= 9, 90, "every article")
            second.send_signal(signal.SIGTERM)
            assert second.wait(60) == 0, (tmp_path / "b.log").read_text()[-3000:]
        finally:
            second.kill()
    finally:
        first.kill()
    first_lines, second_lines = feed(tmp_path, "a"), feed(tmp_path, "b")
    assert len({item["url"] for item in first_lines + second_lines}) == 9  # nothing lost
    for lines in (first_lines, second_lines):
        assert len(lines) == len({item["url"] for item in lines})  # each watcher wrote each article once
    # A line the killed watcher wrote before its outcome was recorded comes again from the
    # second (pipelines/delivery.py: a file holds it twice), the same version: a consumer
    # keying on url and version sees it once.
    versions = {(item["url"], item["version"]) for item in first_lines + second_lines}
    assert len(versions) == 9


class ListSpider:
    """A site's rules for ``ListPage`` (the ``ListingSpider`` it asks for), with a dupefilter
    that has seen the URLs given."""

    def __init__(self, seen: set[str]) -> None:
        from scrapy.utils.test import get_crawler

        self.crawler = get_crawler()
        self.crawler.crawling = True
        self.site, self.domains, self.hosts = "a", ["a.cn"], {"www.a.cn"}
        self.tracking, self.follow_patterns = None, [re.compile(r"/list_\d+\.html$")]
        self.lists_requested: set[str] = set()
        self.links_max, self.list_page_limit, self.list_pages_left = 100, 10, 10
        self.list_stop_at_seen, self.list_follow_next = False, True
        self.logger = logging.LoggerAdapter(logging.getLogger("test"), {})
        self._seen = seen

    @property
    def counts(self):
        from news_crawler.crawl.counts import Counts

        return Counts.of(self.crawler.stats)

    def is_article(self, url: str) -> bool:
        return "/a/" in url

    def on_site(self, url: str) -> bool:
        return "a.cn" in url

    def seen(self, requests):
        return [r.url in self._seen for r in requests]

    def parse(self, response, **kwargs): ...

    def parse_article(self, response): ...

    def failed(self, failure): ...


@pytest.mark.parametrize(
    "revisit,seen,follows",
    [
        (True, set(), True),  # every article new: the list may have moved past the last visit
        (True, {"https://www.a.cn/a/2.html"}, False),  # one seen: the rest of the list was read before
        (False, {"https://www.a.cn/a/2.html"}, True),  # a crawl reads the next pages (LIST_STOP_AT_SEEN off)
    ],
)
def test_a_revisit_reads_a_lists_next_page_only_when_every_article_on_it_was_new(revisit, seen, follows):
    from scrapy.http import HtmlResponse, Request

    from news_crawler.crawl.meta import REVISIT_OF
    from news_crawler.spiders.list_page import ListPage

    url = "https://www.a.cn/list.html"
    meta = {REVISIT_OF: url} if revisit else {}
    page = HtmlResponse(url, body=b"<html></html>", request=Request(url, meta=meta))
    links = [("https://www.a.cn/a/1.html", ""), ("https://www.a.cn/a/2.html", ""), ("https://www.a.cn/list_2.html", "")]

    async def read():
        return [r.url async for r in ListPage(ListSpider(seen), page).read(iter(links), html=True)]

    urls = asyncio.run(read())
    assert ("https://www.a.cn/list_2.html" in urls) == follows
    assert "https://www.a.cn/a/1.html" in urls


def test_a_start_page_that_cannot_be_fetched_keeps_its_interval_and_counts_each_failure(
    tmp_path, redis_server, redis_client
):
    """A watched start page whose host refuses every connection: each revisit is recorded as
    failed (no evidence of its rate), so it keeps the shortest interval instead of backing off,
    and the watch goes on until told to stop, then exits 1: its one site never answered."""
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sites = tmp_path / "sites.toml"
    sites.write_text(f"[sites.down]\nstart_urls = ['http://127.0.0.1:{port}/list/']\nallow = '/a/'\n")
    web = SimpleNamespace(sites_path=sites)  # watch() and status() read only its sites file
    proc = watch(tmp_path, web, redis_server.url, "w", RETRY_TIMES="0")

    def failures() -> int:
        pages = status(redis_server.url, web)["spiders"].get("down", {}).get("watched", [])
        return pages[0]["visits"].get("failed", 0) if pages else 0

    try:
        wait_for(lambda: failures() >= 3, 90, "three failed visits of the start page")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 1, (tmp_path / "w.log").read_text()[-3000:]  # its one site never answered
    finally:
        proc.kill()
    (page,) = status(redis_server.url, web)["spiders"]["down"]["watched"]
    assert set(page["visits"]) == {"failed"} and page["interval"] == 0.5  # REVISIT_MIN, not backed off
    log = (tmp_path / "w.log").read_text()
    assert "Traceback" not in log and f"'revisits/failed/down': {page['visits']['failed']}" in log
    assert "down: every request failed" in log
