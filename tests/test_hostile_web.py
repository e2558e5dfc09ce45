"""The generic spider against a hostile web (``hostile_web.py``), crawled as a user would,
with an unanchored pattern as the README writes it: ``-a allow='/news/\\d+\\.html'``.

One crawl of a site full of attacks, each test asserting on one of them (nothing read,
nothing kept outside the site, a counted reason), and on the real articles of the same pages
still kept; then crawls of their own for the flood of links, SIGTERM and a feed that cannot
be written."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import zlib
from pathlib import Path

import pytest

from news_crawler.outcomes.store import parse_outcome
from tests.crawl_helpers import ROOT, wait_for
from tests.hostile_web import HostileWeb, Page, article, flood_page, list_page

ALLOW = r"/news/\d+\.html"
SECRET = "hostile-test-secret-7f3a"  # in the crawl's environment: /proc/self/environ would show it
SITE = "127.0.0.1"
pytestmark = pytest.mark.xdist_group("hostile")  # the one attacked crawl, shared by its tests


def run_crawl(
    tmp: Path,
    redis_url: str,
    name: str,
    start_urls: list[str],
    allow: str = ALLOW,
    args: dict[str, str] | None = None,
    wait: bool = True,
    **settings: object,
):
    cmd = [
        sys.executable,
        "-m",
        "scrapy",
        "crawl",
        "news",
        "-a",
        f"start_urls={','.join(start_urls)}",
        "-a",
        f"allow={allow}",
        "-s",
        f"REDIS_URL={redis_url}",
        "-s",
        f"DEDUP_NAMESPACE={name}",
        "-s",
        f"FEED_DIR={tmp / name}",
        "-s",
        "AUTOTHROTTLE_ENABLED=False",
        "-s",
        "LOG_LEVEL=INFO",
    ]
    for k, v in (args or {}).items():
        cmd += ["-a", f"{k}={v}"]
    for k, v in settings.items():
        cmd += ["-s", f"{k}={v}"]
    env = {k: v for k, v in os.environ.items() if k != "SCRAPY_SETTINGS_MODULE"}
    log = open(tmp / f"{name}.log", "w")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**env, "HOSTILE_SECRET": SECRET})
    if not wait:
        return proc
    try:
        proc.wait(300)
    finally:
        proc.kill()  # a crawl that hangs must not outlive its test
    return proc.returncode, (tmp / f"{name}.log").read_text()


def feed_items(out: Path) -> list[dict]:
    return [json.loads(line) for f in sorted(out.glob("*/*.jsonl")) for line in f.read_text().splitlines() if line]


def stat(log: str, key: str) -> int:
    m = re.search(rf"'{re.escape(key)}': (\d+)", log)
    return int(m.group(1)) if m else 0


def outcomes(client, spider: str = "news") -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for key in client.keys(f"{spider}:outcomes:*"):
        if b":counts" not in key and b":titles" not in key:
            out.update({k.decode(): parse_outcome(v) for k, v in client.hgetall(key).items()})
    return out


class Listener:
    """A TCP port that records whether anything connected (an ftp:// link must not)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()


@pytest.fixture(scope="module")
def texts(sina_articles) -> list[dict]:
    """Real articles far apart in the corpus (no two near-duplicates)."""
    return [a for a in sina_articles if len(a["body"]) > 600][::20][:12]


@pytest.fixture(scope="module")
def attacked(tmp_path_factory, redis_server, texts):
    """One crawl of a site whose start pages carry every attack below, and real articles."""
    tmp = tmp_path_factory.mktemp("hostile")
    web, ftp = HostileWeb(), Listener()
    other = f"http://localhost:{web.port}"  # another host, on the same server
    real = {n: web.add(f"/news/{n}.html", article(texts[n]["title"], texts[n]["body"])) for n in (1, 2, 6, 9, 10, 11)}
    # links no request can be made of (a broken IPv6 host, a port out of range): on its page,
    # the base, an image and the next page's link; the story is kept all the same
    page = article(
        texts[7]["title"],
        texts[7]["body"],
        after="<a href='http://[::1/news/26_2.html'>下一页</a>",
        head="<base href='http://[::1/'>",
    )
    images = b"<img src='//[::1/a.jpg'><img src='/photo/a.jpg'>"
    real[26] = web.add("/news/26.html", page.replace(b"<div class='article'><p>", b"<div class='article'><p>" + images))
    long_url = "/news/8.html?" + "a" * 1_000_000
    web.redirect("/news/3.html", f"{other}/news/30.html")  # to another host
    web.redirect("/news/4.html", "/about.html")  # on the site, to a page that is no article
    web.add("/about.html", article("关于我们", texts[4]["body"]))
    web.add(
        "/news/5.html",
        f"<html><head><meta http-equiv='refresh' content='0;url={other}/news/31.html'>"
        "</head><body>moved</body></html>".encode(),
    )
    web.redirect("/news/7.html", "/news/6.html", status=301)  # on the site, to an article: kept there
    web.redirect("/news/28.html", "http://[::1/news/29.html")  # to a URL no request can be made of
    web.add("/news/21.html", zlib.compress(os.urandom(20000)) + b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    web.add("/news/22.html", os.urandom(30000))
    for path in ("/news/30.html", "/news/31.html", "/list_elsewhere.html"):
        web.add(
            path,
            article("别处", texts[5]["body"]),
        )
    web.add(
        "/list.html",
        list_page(
            [
                f"http://{SITE}:99999/news/23.html",  # before the real links: a bad one loses none of them
                "http://[::1/news/24.html",
                "/news/1.html",
                "/news/2.html",
                "/news/26.html",
                "file:///etc/passwd?/news/12.html",
                "file:///proc/self/environ#/news/17.html",
                f"ftp://127.0.0.1:{ftp.port}/news/13.html",
                "data:text/html,<p>x</p>#/news/14.html",
                f"{other}/news/15.html",
                "/news/3.html",
                "/news/4.html",
                "/news/5.html",
                "/news/7.html",
                "/news/28.html",
                "/news/21.html",
                "/news/22.html",
                long_url,
            ],
            "<a href='/list_2.html'>下一页</a>",
        ),
    )
    web.add("/list_2.html", list_page(["/news/9.html"]).replace(b"<ul>", b"<base href='http://[::1/'><ul>"))
    web.add(
        "/feed.xml",
        (
            f"<?xml version='1.0'?>\n<!DOCTYPE rss SYSTEM '{web.url}/evil.dtd' [\n"
            '<!ENTITY c "&#169;">\n<!ENTITY xxe SYSTEM "file:///etc/passwd">\n]>\n'
            "<rss><channel><title>&c;</title>"
            f"<item><link>{real[10]}</link></item><item><link>&xxe;</link></item>"
            "<item><link>file:///etc/passwd?/news/19.html</link></item>"
            "</channel></rss>"
        ).encode(),
        "application/rss+xml",
    )
    web.add(
        "/sitemap.xml",
        (
            "<?xml version='1.0'?><urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>"
            f"<url><loc>http://{SITE}:99999/news/25.html</loc></url><url><loc>//[::1/news/27.html</loc></url>"
            f"<url><loc>{real[11]}</loc></url><url><loc>file:///etc/hostname?/news/20.html</loc></url>"
            "</urlset>"
        ).encode(),
        "application/xml",
    )
    web.add("/api.json", b'{"news": ["/news/1.html"]}', "application/json")
    web.redirect("/moved-list.html", f"{other}/list_elsewhere.html")
    starts = [f"{web.url}{p}" for p in ("/list.html", "/feed.xml", "/sitemap.xml", "/api.json", "/moved-list.html")]
    code, log = run_crawl(tmp, redis_server.url, "attacked", starts)
    client = redis_server.client()
    result = {
        "code": code,
        "log": log,
        "items": feed_items(tmp / "attacked"),
        "web": web,
        "ftp": ftp,
        "real": real,
        "outcomes": outcomes(client),
        "url": web.url,
    }
    client.delete(*client.keys("news:*") or ["none"])
    yield result
    web.stop()


def test_the_real_articles_on_hostile_pages_are_kept(attacked):
    assert attacked["code"] == 0, attacked["log"][-3000:]
    assert {i["url"] for i in attacked["items"]} == set(attacked["real"].values())


def test_a_link_no_request_can_be_made_of_is_refused_and_its_page_read(attacked):
    kept = next(i for i in attacked["items"] if i["url"].endswith("/news/26.html"))
    # its <base> cannot be joined: the image is read against the page's own URL
    assert [image["url"] for image in kept["images"]] == [f"{attacked['url']}/photo/a.jpg"]


def test_links_that_are_not_http_are_refused_counted_and_never_read(attacked):
    dumped = json.dumps(attacked["items"], ensure_ascii=False) + attacked["log"]
    assert "root:" not in dumped and SECRET not in dumped  # /etc/passwd, /proc/self/environ
    assert all(i["url"].startswith(attacked["url"]) for i in attacked["items"])
    assert attacked["ftp"].connections == 0  # ftp:// never connected
    # list: file:, file:, ftp:, data:, a port out of range, a broken IPv6 host; feed: file:;
    # sitemap: file:, a port out of range, a broken IPv6 host
    assert stat(attacked["log"], f"links/refused_scheme/{SITE}") == 10


def test_a_redirect_off_the_site_is_invalid_and_the_other_host_never_fetched(attacked):
    out, url = attacked["outcomes"], attacked["url"]
    # another host; the site's page that is no article; a meta refresh to another host; a broken URL
    for n in (3, 4, 5, 28):
        assert out[f"{url}/news/{n}.html"]["outcome"] == "invalid"
        assert out[f"{url}/news/{n}.html"]["reason"] == "redirected outside the site"
    assert out[f"{url}/moved-list.html"] == {**out[f"{url}/moved-list.html"], "outcome": "invalid"}  # a list page too
    assert not [h for h in attacked["web"].hosts() if h.startswith("localhost")]  # not one request to it
    assert not attacked["web"].asked("/about.html")
    assert stat(attacked["log"], "articles/invalid_reason/redirected_outside") == 5
    assert stat(attacked["log"], f"links/refused_redirect/{SITE}") == 1  # the redirect to a broken URL
    assert f"{url}/news/6.html" in out and out[f"{url}/news/6.html"]["outcome"] == "kept"  # via /news/7.html


def test_a_link_to_another_host_is_not_followed(attacked):
    assert stat(attacked["log"], f"links/refused_offsite/{SITE}") == 1
    assert not attacked["web"].asked("/news/15.html")


def test_binary_bytes_served_as_html_are_invalid_never_kept(attacked):
    out, url = attacked["outcomes"], attacked["url"]
    for n in (21, 22):
        assert out[f"{url}/news/{n}.html"]["outcome"] == "invalid"
        assert "not text" in out[f"{url}/news/{n}.html"]["reason"]
    assert stat(attacked["log"], "articles/invalid_reason/not_text") == 2


def test_a_feed_with_an_internal_dtd_subset_is_read_and_no_entity_resolved(attacked):
    assert attacked["real"][10] in {i["url"] for i in attacked["items"]}
    assert not attacked["web"].asked("/evil.dtd")  # no external DTD fetched


def test_a_start_page_that_is_neither_a_list_nor_a_feed_is_logged_and_counted(attacked):
    assert stat(attacked["log"], f"pages/list_unrecognised/{SITE}") == 1
    assert re.search(r"list page \S+/api\.json is neither an HTML page nor a feed", attacked["log"])


def test_a_next_page_link_is_followed_when_the_start_url_has_a_port(attacked):
    assert attacked["web"].asked("/list_2.html")
    assert attacked["real"][9] in {i["url"] for i in attacked["items"]}


def test_a_megabyte_url_is_cut_in_log_lines_and_never_fetched(attacked):
    assert max(len(line) for line in attacked["log"].splitlines()) < 5000
    assert not [p for _, p in attacked["web"].requests if p.startswith("/news/8.html")]


def test_remote_control_and_telnet_are_off(attacked):
    assert "Remote control HTTP server" not in attacked["log"]
    assert "remote_control" not in attacked["log"] and "Telnet console listening" not in attacked["log"]


def test_scrapys_remote_control_is_loaded_only_when_asked_for():
    """Off, a news spider's crawl leaves it out (never imported: aiohttp's server is a tenth of a
    second of every start); asked for, it runs."""
    program = """if True:
        import sys
        from scrapy.crawler import Crawler
        from news_crawler.config import build_settings
        from news_crawler.spiders.news import NewsSpider
        from scrapy.utils.reactor import install_reactor
        settings = build_settings(dict(a.split("=") for a in sys.argv[1:]))
        install_reactor(settings["TWISTED_REACTOR"])
        crawler = Crawler(NewsSpider, settings)
        crawler._apply_settings()  # Scrapy builds the extensions here
        print(sorted(type(e).__name__ for e in crawler.extensions.middlewares))
        print("scrapy.extensions.remote_control" in sys.modules)
    """

    def extensions(*settings: str) -> tuple[str, str]:
        run = subprocess.run([sys.executable, "-c", program, *settings], cwd=ROOT, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr[-3000:]
        listed, imported = run.stdout.splitlines()
        return listed, imported

    listed, imported = extensions()
    assert "RemoteControl" not in listed and "CrawlSummary" in listed and imported == "False"
    assert "RemoteControl" in extensions("REMOTE_CONTROL_ENABLED=True")[0]


def test_file_start_pages_only_with_the_setting_and_their_file_links_never(tmp_path, redis_server, redis_client, texts):
    web = HostileWeb()
    try:
        real = web.add("/news/1.html", article(texts[0]["title"], texts[0]["body"]))
        listing = tmp_path / "list.html"
        listing.write_bytes(list_page([real, "file:///etc/passwd?/news/12.html"]))
        code, log = run_crawl(tmp_path, redis_server.url, "file-refused", [listing.as_uri()])
        assert code == 2 and "START_URLS_ALLOW_FILE" in log and "Traceback" not in log
        code, log = run_crawl(
            tmp_path,
            redis_server.url,
            "file-allowed",
            [listing.as_uri()],
            args={"allowed_domains": SITE},
            START_URLS_ALLOW_FILE="True",
        )
        assert code == 0, log[-3000:]
        assert [i["url"] for i in feed_items(tmp_path / "file-allowed")] == [real]
        assert "root:" not in log and stat(log, "links/refused_scheme/news") == 1  # a file: page's file: link
    finally:
        web.stop()


def test_a_flood_of_links_is_capped_stops_on_sigterm_and_loses_nothing(tmp_path, redis_server, redis_client, texts):
    """250,000 article links on one page: LIST_LINKS_MAX new ones queued a run, the rest counted
    and taken by the next run; SIGTERM mid-crawl ends it, and every queued URL is either done
    or still in the queue for the next run."""
    web = HostileWeb()
    cap = 50
    try:
        web.prefixes["/news/f"] = lambda path: Page(
            article(f"第{path}条", texts[int(path[7:-5]) % 12]["body"]), delay=0.3
        )
        start = web.add("/flood.html", flood_page(250_000))
        proc = run_crawl(
            tmp_path, redis_server.url, "flood", [start], allow=r"/news/f\d+\.html", wait=False, LIST_LINKS_MAX=cap
        )
        try:
            wait_for(lambda: sum(p.startswith("/news/f") for _, p in list(web.requests)) >= 20, 120, "articles fetched")
            queued = redis_client.zcard("news:requests") + redis_client.zcard("news:requests:inflight")
            assert 0 < queued <= cap
            proc.send_signal(signal.SIGTERM)
            proc.wait(60)  # a clean stop, not the queueing of a quarter of a million links
        finally:
            proc.kill()
        log = (tmp_path / "flood.log").read_text()
        assert stat(log, f"links/over_limit/{SITE}") == 250_000 - cap
        assert stat(log, "memusage/max") < 400 * 2**20  # the page's links never all held at once
        first = {f"{web.url}/news/f{n}.html" for n in range(cap)}
        left = (
            {
                json.loads(r)["url"]
                for key in ("news:requests", "news:requests:inflight", "news:requests:later")
                for r in redis_client.zrange(key, 0, -1)
            }
            if redis_client.type("news:requests") == b"zset"
            else set()
        )
        done = set(outcomes(redis_client))
        assert first <= done | left  # each of the queued links is done, or queued for the next run

        web.prefixes["/news/f"] = lambda path: Page(article(f"第{path}条", texts[int(path[7:-5]) % 12]["body"]))
        code, log = run_crawl(
            tmp_path, redis_server.url, "flood", [start], allow=r"/news/f\d+\.html", LIST_LINKS_MAX=cap
        )
        assert code == 0, log[-3000:]
        done = outcomes(redis_client)
        assert {f"{web.url}/news/f{n}.html" for n in range(2 * cap)} <= set(done)  # and the next cap's worth
        assert f"{web.url}/news/f{2 * cap}.html" not in done
    finally:
        web.stop()


def test_an_article_whose_feed_line_cannot_be_written_is_not_kept(tmp_path, redis_server, redis_client, texts):
    web = HostileWeb()
    try:
        real = [web.add(f"/news/{n}.html", article(texts[n]["title"], texts[n]["body"])) for n in (1, 2)]
        start = web.add("/list.html", list_page(real))
        (tmp_path / "not-a-dir").write_text("a file where FEED_DIR's folder should be")
        code, log = run_crawl(
            tmp_path, redis_server.url, "unwritable", [start], FEED_DIR=tmp_path / "not-a-dir" / "out"
        )
        assert code == 1
        assert "2 pages met an error" in log and "could not be written" in log
        assert {u: o["outcome"] for u, o in outcomes(redis_client).items() if u in real} == dict.fromkeys(real, "error")
        assert stat(log, "feed/write_failed") == 2
        code, log = run_crawl(tmp_path, redis_server.url, "writable", [start])  # the next run keeps them
        assert code == 0, log[-3000:]
        assert sorted(i["url"] for i in feed_items(tmp_path / "writable")) == sorted(real)
        assert {u: o["outcome"] for u, o in outcomes(redis_client).items() if u in real} == dict.fromkeys(real, "kept")
    finally:
        web.stop()


def test_list_pages_that_link_ever_more_list_pages_are_bounded(tmp_path, redis_server, redis_client, texts):
    """A list page linking 50 'more list pages', each linking 50 more: LIST_PAGE_LIMIT list
    pages a start page in one run, not a tree that grows with every level."""
    web = HostileWeb()
    try:
        real = web.add("/news/1.html", article(texts[0]["title"], texts[0]["body"]))
        web.prefixes["/more/"] = lambda path: Page(list_page([real] + [f"{path}{n}/" for n in range(50)]))
        start = web.add("/more/", list_page([real] + [f"/more/{n}/" for n in range(50)]))
        code, log = run_crawl(tmp_path, redis_server.url, "tree", [start], args={"follow": "/more/"}, LIST_PAGE_LIMIT=5)
        assert code == 0, log[-3000:]
        lists = [p for _, p in web.requests if p.startswith("/more/")]
        assert len(lists) == 1 + 5  # the start page and five more
        assert stat(log, f"links/list_pages_over_limit/{SITE}") > 0
        assert [i["url"] for i in feed_items(tmp_path / "tree")] == [real]
    finally:
        web.stop()
