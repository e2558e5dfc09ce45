"""Hostile pages, part two, crawled for real over HTTP by ``scrapy crawl news``: pages built
to stall extraction, control characters meant for the operator's terminal, a lone surrogate
meant to break the feed, session ids that make every visit a new URL, and a stop that must
come within seconds of SIGTERM. Each page also carries a real story, kept."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import uuid

import pytest

from tests.crawl_helpers import ROOT, wait_for
from tests.hostile_web import HostileWeb, Page, article, flood_page, list_page
from tests.stuck_spider import STUCK_PATH
from tests.test_hostile_web import feed_items, outcomes, run_crawl, stat

ALLOW = r"/news/\d+\.html"
pytestmark = pytest.mark.xdist_group("hostile-pages")
CRAWLER = [sys.executable, "-m", "news_crawler.cli.crawler"]
TERMINAL = re.compile("[\x1b\x07\x08\x9b\x9d]")  # what would act on a terminal, raw


@pytest.fixture(scope="module")
def texts(sina_articles) -> list[dict]:
    return [a for a in sina_articles if len(a["body"]) > 600][1::17][:14]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory, redis_server, texts):
    tmp = tmp_path_factory.mktemp("hostile-pages")
    web = HostileWeb()
    t = texts
    stall = {
        40: article(t[0]["title"], t[0]["body"], "<p>作者：" + "\u2002" * 100_000 + "</p>"),
        41: article(t[1]["title"], t[1]["body"], after="<p>相关阅读</p><p>" + "字，" * 50_000 + "</p>"),
        42: article(
            t[2]["title"], t[2]["body"], after="<a href='/x'>" * 30_000 + "<a href='/news/42_2.html'>下一页</a>"
        ),
        43: article(t[3]["title"], t[3]["body"], "<!-- " + "<script type='application/ld+json'>" * 30_000 + " -->"),
        44: article(t[4]["title"], t[4]["body"], "<p>原创 张三 2026-11-25" + "\u2002" * 600 + "x</p>"),
        45: b"<html><head><title>"
        + t[5]["title"].encode()
        + b"</title></head><body>"
        + b"<div>" * 200_000
        + article(t[5]["title"], t[5]["body"]).split(b"<body>", 1)[1]
        + b"</div>" * 200_000,
    }
    urls = {n: web.add(f"/news/{n}.html", body) for n, body in stall.items()}
    # A page slow by construction: the stuck spider's work on it waits for an event that never
    # comes, so EXTRACT_TIMEOUT ends it (the pages above take well under a second each).
    urls[46] = web.add(STUCK_PATH, article(t[9]["title"], t[9]["body"]))
    urls[47] = web.add("/news/47.html", b"%PDF-1.4 ...", "application/x-pwn\x1b[2J\x1b[3J\x1b[H\x1bc\x07\x08\x9b31m")
    title48 = t[6]["title"] + "\x1b]0;owned\x07\x1b[2J"
    author = json.dumps({"@type": "NewsArticle", "headline": title48, "author": {"name": "王\ud800芳"}})
    urls[48] = web.add(
        "/news/48.html", article(title48, t[6]["body"], head=f"<script type='application/ld+json'>{author}</script>")
    )
    urls[49] = web.add("/news/49.html", article(t[7]["title"], t[7]["body"]))
    urls[50] = web.add("/news/50.html", article(t[8]["title"], t[8]["body"]))
    web.prefixes["/news/49.html;"] = lambda path: Page(article(t[7]["title"], t[7]["body"]))
    web.prefixes["/news/50.html?"] = lambda path: Page(article(t[8]["title"], t[8]["body"]))

    def listing() -> bytes:  # every visit, new session ids in the links
        visit = uuid.uuid4().hex
        links = [f"/news/{n}.html" for n in range(40, 49)]
        links += [f"/news/49.html;jsessionid={visit.upper()}", f"/news/50.html?sid={visit}&from=list"]
        return list_page(links)

    start = web.add("/list.html", listing)
    run = {"EXTRACT_TIMEOUT": 10, "SPIDER_MODULES": "tests.stuck_spider"}
    code, log = run_crawl(tmp, redis_server.url, "pages", [start], **run)
    client = redis_server.client()
    seen_after_one = client.scard("news:dupefilter")
    code2, log2 = run_crawl(tmp, redis_server.url, "pages2", [start], **run)
    result = {
        "code": (code, code2),
        "log": log,
        "log2": log2,
        "items": feed_items(tmp / "pages"),
        "feed_bytes": b"".join(f.read_bytes() for f in sorted((tmp / "pages").glob("*/*.jsonl"))),
        "urls": urls,
        "web": web,
        "outcomes": outcomes(client),
        "seen": (seen_after_one, client.scard("news:dupefilter")),
        "redis": redis_server.url,
    }
    yield result
    client.delete(*client.keys("news:*") or ["none"])
    web.stop()


def test_pages_built_to_stall_extraction_keep_their_story_and_the_crawl_goes_on(hostile, texts):
    assert hostile["code"] == (0, 0), hostile["log"][-3000:]
    kept = {i["url"]: i for i in hostile["items"]}
    for n, story in zip(range(40, 46), texts):
        item = kept.get(hostile["urls"][n])
        assert item is not None, (n, hostile["outcomes"].get(hostile["urls"][n]))
        first = next(line for line in story["body"].splitlines() if len(line.strip()) > 20).strip()[:20]
        assert first in item["body"], n  # 200,000 nested divs too: the story is there


def test_a_page_past_the_time_limit_is_invalid_and_its_worker_replaced(hostile):
    outcome = hostile["outcomes"][hostile["urls"][46]]
    assert outcome["outcome"] == "invalid" and "extraction took too long" in outcome["reason"]
    assert stat(hostile["log"], "pool/restarted") >= 1
    assert stat(hostile["log"], "articles/invalid_reason/too_slow") == 1


def test_nothing_from_a_page_reaches_the_terminal_raw(hostile):
    bad = hostile["outcomes"][hostile["urls"][47]]
    assert bad["outcome"] == "invalid" and "\\x1b[2J" in bad["reason"] and not TERMINAL.search(bad["reason"])
    assert not TERMINAL.search(hostile["log"]) and not TERMINAL.search(hostile["log2"])
    env = {k: v for k, v in os.environ.items() if k != "SCRAPY_SETTINGS_MODULE"}
    for args in (["outcomes"], ["outcomes", "--json"], ["status"], ["status", "--json"]):
        shown = subprocess.run(
            [*CRAWLER, *args, "-s", f"REDIS_URL={hostile['redis']}"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=env,
            timeout=120,
        )
        assert shown.returncode == 0, shown.stderr
        assert not TERMINAL.search(shown.stdout + shown.stderr), args
    listed = subprocess.run(
        [*CRAWLER, "outcomes", "--json", "-s", f"REDIS_URL={hostile['redis']}"], capture_output=True, cwd=ROOT, env=env
    )
    rows = [json.loads(line) for line in listed.stdout.decode().splitlines()]
    assert any("\\x1b[2J" in r["reason"] for r in rows)


def test_a_lone_surrogate_never_breaks_the_feed(hostile):
    hostile["feed_bytes"].decode("utf-8")  # valid UTF-8, every line
    item = next(i for i in hostile["items"] if i["url"] == hostile["urls"][48])
    assert item["author"] == "王\ufffd芳"  # the JSON-LD author, its lone surrogate replaced
    assert stat(hostile["log"], "feed/write_failed") == 0


def test_session_ids_in_links_do_not_make_every_visit_a_new_article(hostile):
    fetched = [p for _, p in hostile["web"].requests if p.startswith(("/news/49.html", "/news/50.html"))]
    assert sorted(fetched) == ["/news/49.html", "/news/50.html?from=list"]  # once each, over two runs
    assert hostile["urls"][49] in {i["url"] for i in hostile["items"]}
    assert hostile["urls"][50] + "?from=list" in {i["url"] for i in hostile["items"]}
    seen_after_one, seen_after_two = hostile["seen"]
    assert seen_after_two == seen_after_one  # the second visit's new ids added nothing


def test_a_sigterm_gives_back_what_is_not_fetched_at_once_and_the_next_run_fetches_it(
    tmp_path, redis_server, redis_client, texts
):
    """A thousand articles that answer in 2 s each: after SIGTERM no new fetch starts, the
    queued ones are back in Redis at once, and the next run fetches what the first did not."""
    web = HostileWeb()
    try:
        web.prefixes["/news/f"] = lambda path: Page(
            article(f"第{path}条", texts[int(path[7:-5]) % 14]["body"]), delay=2
        )
        start = web.add("/flood.html", flood_page(1000))
        proc = run_crawl(tmp_path, redis_server.url, "stop", [start], allow=r"/news/f\d+\.html", wait=False)
        try:
            wait_for(
                lambda: sum(p.startswith("/news/f") for _, p in list(web.requests)) >= 8, 120, "articles asked for"
            )
            proc.send_signal(signal.SIGTERM)
            wait_for(lambda: redis_client.zcard("news:requests:inflight") <= 8, 30, "leases given back")
            asked_at_signal = sum(p.startswith("/news/f") for _, p in list(web.requests))
            proc.wait(120)
        finally:
            proc.kill()
        log = (tmp_path / "stop.log").read_text()
        assert "went back to the queue" in log
        asked = sum(p.startswith("/news/f") for _, p in list(web.requests))
        assert asked - asked_at_signal <= 8  # nothing new started after the signal (what was mid-transfer aside)
        assert redis_client.zcard("news:requests:inflight") == 0
        done = set(outcomes(redis_client))
        queued = {json.loads(r)["url"] for r in redis_client.zrange("news:requests", 0, -1)}
        assert len(done) + len(queued) == 1000 and not done & queued  # every link done or queued, none lost
    finally:
        web.stop()


def test_at_sigterm_every_request_the_downloader_holds_unstarted_goes_back_not_one_a_slot(
    tmp_path, redis_server, redis_client, texts
):
    """Articles that answer only when the test says: at the signal the site's four fetches are
    under way and the rest of what the downloader took waits in its slot; all of those go
    back at once (the leases fall to the four), long before STOP_TIMEOUT, and none is fetched."""
    import threading

    gate = threading.Event()
    web = HostileWeb()

    def answer(path: str) -> Page:
        n = int(path[7:-5])
        return Page(lambda: gate.wait(300) and article(f"第{n}条", texts[n % 14]["body"]))

    try:
        web.prefixes["/news/f"] = answer
        start = web.add("/flood.html", flood_page(100))
        proc = run_crawl(
            tmp_path, redis_server.url, "gate", [start], allow=r"/news/f\d+\.html", wait=False, STOP_TIMEOUT=600
        )
        try:
            articles_asked = lambda: sum(p.startswith("/news/f") for _, p in list(web.requests))  # noqa: E731
            # the site's four at once (CONCURRENT_REQUESTS_PER_DOMAIN), the rest of what the
            # downloader took waiting in the site's slot
            wait_for(
                lambda: redis_client.zcard("news:requests:inflight") > 8 and articles_asked() >= 4, 120, "a full slot"
            )
            proc.send_signal(signal.SIGTERM)
            wait_for(lambda: redis_client.zcard("news:requests:inflight") == 4, 60, "the unstarted given back")
            gate.set()  # the four under way may finish now
            assert proc.wait(120) == 1  # stopped, not finished: it says so
        finally:
            gate.set()
            proc.kill()
        assert articles_asked() == 4  # never more than the site's four, and nothing started after the signal
        assert redis_client.zcard("news:requests:inflight") == 0
        queued = {json.loads(r)["url"] for r in redis_client.zrange("news:requests", 0, -1)}
        assert len(set(outcomes(redis_client))) + len(queued) == 100
    finally:
        web.stop()


def test_a_crawl_that_finds_its_work_held_by_a_running_crawl_says_so(tmp_path, redis_server, redis_client, texts):
    import threading

    gate = threading.Event()
    web = HostileWeb()
    try:
        web.prefixes["/news/f"] = lambda path: Page(lambda: gate.wait(300) and article(path, texts[0]["body"]))
        start = web.add("/flood.html", flood_page(12))  # fewer than CONCURRENT_REQUESTS: all leased at once
        allow = r"/news/f\d+\.html"
        first = run_crawl(tmp_path, redis_server.url, "first", [start], allow=allow, wait=False)
        try:
            wait_for(lambda: redis_client.zcard("news:requests:inflight") == 12, 120, "every article leased")
            code, second = run_crawl(tmp_path, redis_server.url, "second", [start], allow=allow)
        finally:
            gate.set()
            first.kill()
    finally:
        web.stop()
    assert code == 0, second[-3000:]
    assert "news: finished here, the queue empty, while 12 of its requests are held by another worker" in second


def test_a_fetch_that_outlives_stop_timeout_goes_back_to_the_queue(tmp_path, redis_server, redis_client, texts):
    web = HostileWeb()
    try:
        slow = web.add("/news/1.html", article(texts[0]["title"], texts[0]["body"]), delay=600)
        start = web.add("/list.html", list_page(["/news/1.html"]))
        proc = run_crawl(tmp_path, redis_server.url, "slow", [start], wait=False, STOP_TIMEOUT=1, DOWNLOAD_TIMEOUT=900)
        try:
            wait_for(lambda: web.asked("/news/1.html"), 120, "the slow article asked for")
            proc.send_signal(signal.SIGTERM)
            proc.wait(120)  # not the article's ten minutes
        finally:
            proc.kill()
        assert "STOP_TIMEOUT" in (tmp_path / "slow.log").read_text()
        assert redis_client.zcard("news:requests:inflight") == 0
        assert [json.loads(r)["url"] for r in redis_client.zrange("news:requests", 0, -1)] == [slow]
    finally:
        web.stop()


# Guards a planted bug would slip past: each pinned by what it must refuse or bound exactly.


def test_a_look_alike_host_is_off_the_site():
    from news_crawler.spiders.news import on_domains

    assert on_domains("https://news.sina.com.cn/c/1.shtml", ["sina.com.cn"])
    assert on_domains("https://sina.com.cn./c/1.shtml", ["sina.com.cn"])
    for url in ("https://news.evilsina.com.cn/c/1.shtml", "https://sina.com.cn.evil.cn/", "https://xsina.com.cn/"):
        assert not on_domains(url, ["sina.com.cn"]), url


def test_with_file_start_pages_on_the_downloader_still_refuses_every_other_file_request(tmp_path, redis_server):
    from scrapy import Request

    from news_crawler.crawl.meta import START_PAGE
    from news_crawler.middlewares.safety import SafeRequests
    from news_crawler.outcomes.failures import RefusedScheme
    from news_crawler.spiders.news import NewsSpider
    from tests.crawl_helpers import project_crawler

    crawler = project_crawler(NewsSpider, {"START_URLS_ALLOW_FILE": True, "REDIS_URL": redis_server.url})
    crawler.spider = NewsSpider.from_crawler(
        crawler, start_urls=(tmp_path / "list.html").as_uri(), allow=ALLOW, allowed_domains="a.cn"
    )
    safe = SafeRequests.from_crawler(crawler)
    start = Request((tmp_path / "list.html").as_uri(), meta={START_PAGE: True})
    assert safe.process_request(start) is None  # the start page itself
    for request in (
        Request("file:///etc/passwd"),  # a file: link, not a start page
        Request("file:///etc/passwd", meta={START_PAGE: True, "redirect_urls": ["https://a.cn/news/1.html"]}),
        Request("file:///etc/passwd", meta={"redirect_urls": [(tmp_path / "list.html").as_uri()]}),
    ):
        with pytest.raises(RefusedScheme):
            safe.process_request(request)


def test_links_past_list_links_max_wait_for_the_next_run_exactly(tmp_path, redis_server, redis_client, texts):
    web = HostileWeb()
    try:
        links = [web.add(f"/news/{n}.html", article(texts[n]["title"], texts[n]["body"])) for n in range(10)]
        start = web.add("/list.html", list_page(links))
        code, log = run_crawl(tmp_path, redis_server.url, "cap", [start], LIST_LINKS_MAX=5)
        assert code == 0, log[-3000:]
        assert len([p for _, p in web.requests if p.startswith("/news/")]) == 5
        assert stat(log, "links/over_limit/127.0.0.1") == 5
        code, log = run_crawl(tmp_path, redis_server.url, "cap2", [start], LIST_LINKS_MAX=5)
        assert sorted(p for _, p in web.requests if p.startswith("/news/")) == sorted(
            f"/news/{n}.html" for n in range(10)
        )
    finally:
        web.stop()


def test_a_list_pages_article_links_are_asked_of_the_dupefilter_in_one_round_trip(
    tmp_path, redis_server, redis_client, texts
):
    """Fewer links than a batch (SEEN_BATCH): one question for the whole list, not one a link."""
    web = HostileWeb()
    try:
        links = [web.add(f"/news/{n}.html", article(texts[n]["title"], texts[n]["body"])) for n in range(5)]
        start = web.add("/list.html", list_page(links))
        redis_client.config_resetstat()
        code, log = run_crawl(tmp_path, redis_server.url, "batched", [start])
        assert code == 0, log[-3000:]
        calls = redis_client.info("commandstats").get("cmdstat_smismember", {}).get("calls", 0)
        assert calls == 1 and len(feed_items(tmp_path / "batched")) == 5
    finally:
        web.stop()


def test_a_gbk_list_pages_link_is_asked_for_with_its_query_in_gbk_and_crawled_at_is_to_the_millisecond(
    tmp_path, redis_server, texts
):
    """As a browser and Scrapy's link extractor send it: the query's non-ASCII text in the page's
    encoding (新闻 is %D0%C2%CE%C5 in GBK, %E6%96%B0%E9%97%BB in UTF-8)."""
    web = HostileWeb()
    try:
        web.add("/news/1.html?kw=%D0%C2%CE%C5", article(texts[1]["title"], texts[1]["body"]))
        page = list_page(["/news/1.html?kw=新闻"]).decode().replace("charset='utf-8'", "charset='gbk'")
        start = web.add("/list.html", page.encode("gbk"), "text/html; charset=gbk")
        code, log = run_crawl(tmp_path, redis_server.url, "gbk", [start])
        assert code == 0, log[-3000:]
        assert "/news/1.html?kw=%D0%C2%CE%C5" in [p for _, p in web.requests], web.requests
        (item,) = feed_items(tmp_path / "gbk")
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", item["crawled_at"])
    finally:
        web.stop()


def test_an_article_over_many_pages_joins_exactly_article_max_pages(tmp_path, redis_server, texts):
    web = HostileWeb()
    try:
        for n in range(1, 6):
            path = "/news/7.html" if n == 1 else f"/news/7_{n}.html"
            more = f"<a href='/news/7_{n + 1}.html'>下一页</a>" if n < 5 else ""
            web.add(path, article(texts[9]["title"], f"第{n}页：{texts[n]['body']}", after=more))
        start = web.add("/list.html", list_page(["/news/7.html"]))
        code, log = run_crawl(tmp_path, redis_server.url, "paged", [start], ARTICLE_MAX_PAGES=3)
        assert code == 0, log[-3000:]
        (item,) = feed_items(tmp_path / "paged")
        assert [f"第{n}页" in item["body"] for n in range(1, 6)] == [True, True, True, False, False]
        assert not web.asked("/news/7_4.html")
    finally:
        web.stop()


def test_a_later_page_that_fails_ends_the_article_at_the_pages_before_it(tmp_path, redis_server, texts):
    """Page 2 of an article answers 500 (no retry): the article is kept with its first page,
    the failure counted and named in one line; a later page is never an outcome of its own."""
    web = HostileWeb()
    try:
        more = "<a href='/news/1_2.html'>下一页</a>"
        web.add("/news/1.html", article(texts[1]["title"], texts[1]["body"], after=more))
        web.add("/news/1_2.html", b"<html><body>error</body></html>", status=500)
        start = web.add("/list.html", list_page(["/news/1.html"]))
        code, log = run_crawl(tmp_path, redis_server.url, "cut", [start], RETRY_TIMES=0)
        assert code == 0, log[-3000:]
        (item,) = feed_items(tmp_path / "cut")
        assert item["url"].endswith("/news/1.html") and texts[1]["body"][:20] in item["body"]
        assert web.asked("/news/1_2.html") and stat(log, "pages/article_page_failed/127.0.0.1") == 1
        assert re.search(r"page http://\S+/news/1_2.html of an article could not be fetched", log)
        assert stat(log, "outcomes/failed/127.0.0.1") == 0
    finally:
        web.stop()


def test_the_report_escapes_every_link_and_text_a_page_controls():
    from datetime import date

    from news_crawler.ops.report import ReportData, render

    hostile = 'https://a.cn/x?a=1&b="><script>alert(1)</script>'
    data = ReportData(
        "UTC",
        date(2026, 11, 27),
        [date(2026, 11, 27)],
        [],
        [
            {
                "id": hostile,
                "duplicate_of": hostile + "&c",
                "distance": 1,
                "rule": "simhash<b>",
                "time": "",
                "site": "<i>copier</i>",  # a site's name is the user's, yet shown escaped too
                "original_site": "<i>original</i>",
            }
        ],
        [{"site": "<i>s</i>", "url": hostile, "outcome": "failed", "reason": 'HTTP 503 "<&>"', "time": ""}],
    )
    out = render(data)
    assert "<script>" not in out and "<i>" not in out and "<b>" not in out and '"<&>"' not in out
    assert 'href="https://a.cn/x?a=1&amp;b=&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"' in out
    # drops and the most reprinted stories: an href, a title and a text (no headline known) a
    # link, three links; failures: an href and a text
    assert out.count("&amp;b=&quot;&gt;&lt;script&gt;") == 11


@pytest.mark.parametrize("timeout,on", [("0", False), ("-1", False), ("0.5", True)])
def test_stop_timeout_zero_leaves_the_stop_to_scrapy(make_crawler, timeout, on):
    """``STOP_TIMEOUT = 0`` (docs/configuration.md): Scrapy's own stop, no quick stop at all;
    any positive time turns it on with that time."""
    from scrapy import Spider
    from scrapy.exceptions import NotConfigured

    from news_crawler.crawl.quickstop import QuickStop

    class Site(Spider):
        name = "stopping"

    crawler = make_crawler(Site, {"STOP_TIMEOUT": timeout})
    if on:
        assert QuickStop.from_crawler(crawler).timeout == float(timeout)
    else:
        with pytest.raises(NotConfigured):
            QuickStop.from_crawler(crawler)
