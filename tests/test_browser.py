"""Sites that need a browser: a real crawl through the machine's Chromium of a local site
whose list pages build their links with script and whose articles insert their text from a
JSON blob, with the hostile pages a browser site can meet."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from news_crawler.extraction import extract_article
from news_mirror.live import articles
from news_mirror.scripted import HOSTILE_PAGES, ScriptedSite, serve
from tests.crawl_helpers import ROOT, crawl

pytest.importorskip("scrapy_playwright", reason="scrapy-playwright is not installed (pip install -e '.[test]')")
pytestmark = [
    pytest.mark.skipif(shutil.which("chromium") is None, reason="no chromium on PATH (apt install chromium)"),
    pytest.mark.xdist_group("browser"),  # one worker: the crawl below is made once
]


def sites_file(tmp, url: str, more: str = "") -> str:
    path = tmp / "sites.toml"
    path.write_text(
        f'[sites.scripted]\nstart_urls = ["{url}/list/0.html"]\n'
        "allow = '/a/[a-z0-9]+\\.html$'\nfollow = '/list/\\d+\\.html$'\nrender = \"browser\"\n" + more,
        encoding="utf-8",
    )
    return str(path)


def stat(log: str, name: str) -> int:
    found = re.findall(rf"'{re.escape(name)}': (\d+)", log)
    return int(found[-1]) if found else 0


@pytest.fixture(scope="module")
def rendered(tmp_path_factory, redis_server):
    tmp = tmp_path_factory.mktemp("browser")
    redis_server.client().flushall()
    texts = [a for a in articles(20) if "\ufffd" not in a["body"]][:8]
    site = ScriptedSite(texts, per_list=4, hostile=True)
    server, url = serve(site)
    try:
        settings = {
            "SITES_FILE": sites_file(tmp, url),
            "BROWSER_PAGES": "3",
            "BROWSER_CONTEXT_PAGES": "4",
            "DOWNLOAD_TIMEOUT": "3",  # the stalling and spinning pages' limit
            "DOWNLOAD_MAXSIZE": str(8 * 1024 * 1024),  # the gzip bomb's 40 MB and the built page's 12 M characters
            "BROWSER_MEMORY_MAX": "256",  # the hog's renderer is ended at 256 MiB
            "RETRY_TIMES": "0",
        }
        summary, items = crawl(tmp, redis_server.url, url, spiders=["scripted"], settings=settings)
    finally:
        server.shutdown()
    return {"site": site, "url": url, "summary": summary, "items": items, "log": (tmp / "run.log").read_text()}


def test_every_article_of_a_scripted_site_is_read_as_the_browser_builds_it(rendered):
    site, items = rendered["site"], rendered["items"]
    assert sorted(i["url"] for i in items) == sorted(f"{rendered['url']}/a/{n}.html" for n in range(8))
    for item in items:
        n = int(item["url"].rsplit("/", 1)[1][:-5])
        plain = extract_article(site.static_article_page(n), url=item["url"])
        assert (item["title"], item["body"], item["author"], item["published_at"]) == (
            plain.title,
            plain.body,
            plain.author,
            plain.published_at,
        )
        assert item["body"] and item["author"] == site.author(n)


def test_a_browser_site_stays_bounded_and_closes_every_page(rendered):
    log = rendered["log"]
    opened = stat(log, "playwright/page_count")
    assert opened >= 15 and stat(log, "playwright/page_count/closed") == opened  # no page left open
    assert stat(log, "playwright/page_count/max_concurrent") <= 3  # BROWSER_PAGES
    assert stat(log, "browser/contexts_closed") >= 2  # a fresh context every 4 pages, the old one closed
    assert stat(log, "playwright/browser_count") == 1
    assert "Traceback" not in log
    assert stat(log, "browser/renderers_ended") >= 1 and stat(log, "browser/renderers_crashed") >= 1  # the hog
    assert stat(log, "browser/too_big") == 2  # the bomb, as it arrived; the built page, as its script made it


def test_a_browser_page_opens_no_window_and_its_dialogs_do_not_stop_it(rendered):
    site, log = rendered["site"], rendered["log"]
    opened = [path for _, path in site.requests if path.startswith("/popup/")]
    assert opened == []  # neither window.open nor a clicked link with a target opened a window
    assert stat(log, "playwright/page_count/max_concurrent") <= 3  # not even for a moment
    # alert, confirm and prompt came before each story: every story was still read (the test above)


def test_a_browser_site_loads_nothing_off_the_site_and_no_download(rendered):
    site, log, summary = rendered["site"], rendered["log"], rendered["summary"]
    assert stat(log, "browser/aborted") >= 3 * 10  # an image, a script and a frame elsewhere, each page
    hosts = {host for host, _ in site.requests}
    assert hosts == {rendered["url"].split("://")[1]}  # never localhost: a redirect or a script leaving the site
    kept = {i["url"].rsplit("/", 1)[1] for i in rendered["items"]}
    assert not kept & {f"{name}.html" for name in HOSTILE_PAGES}
    assert summary["sites"]["scripted"]["kept"] == 8
    # a redirect and a script off the site, a download, the hog, the bomb, the built page: invalid;
    # a stall and a spin: failed in time
    assert summary["sites"]["scripted"]["invalid"] == 6 and summary["sites"]["scripted"]["failed"] == 2


def test_a_site_s_wait_for_selector_reads_a_story_that_comes_long_after_the_page_settled(tmp_path, redis_server):
    """Stories filled two seconds after load, with no request to wait for: the page has long
    looked settled; the sites file's wait_for says when the story is in. The site is named
    localhost: the one host the browser resolves."""
    redis_server.client().flushall()
    texts = [a for a in articles(10) if "\ufffd" not in a["body"]][:3]
    site = ScriptedSite(texts, per_list=3, fill="slow")
    server, url = serve(site)
    # by name, not by address: the browser resolves the site's own host (its rules exclude it)
    url = url.replace("127.0.0.1", "localhost")
    try:
        settings = {"SITES_FILE": sites_file(tmp_path, url, "wait_for = '.article-content p'\n")}
        summary, items = crawl(tmp_path, redis_server.url, url, spiders=["scripted"], settings=settings)
    finally:
        server.shutdown()
    assert sorted(i["url"] for i in items) == sorted(f"{url}/a/{n}.html" for n in range(3))
    for item in items:
        n = int(item["url"].rsplit("/", 1)[1][:-5])
        assert item["body"] == extract_article(site.static_article_page(n), url=item["url"]).body
    # no page waited out its time: the list page, which has no story to match, settled as any page
    assert stat((tmp_path / "run.log").read_text(), "browser/unsettled") == 0


def test_a_browser_site_without_a_browser_is_one_line_and_exit_2(tmp_path, redis_server):
    settings = [
        "-s",
        f"SITES_FILE={sites_file(tmp_path, 'http://127.0.0.1:9')}",
        "-s",
        "BROWSER_PATH=/nowhere/chromium",
    ]
    cmd = [sys.executable, "-m", "news_crawler.cli.crawler", "crawl", "scripted", "-s", f"REDIS_URL={redis_server.url}"]
    run = subprocess.run(cmd + settings, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr[-2000:]
    assert (
        run.stderr.strip()
        .splitlines()[-1]
        .endswith("BROWSER_PATH=/nowhere/chromium: no browser there; install chromium or point BROWSER_PATH at it")
    )
    assert "Traceback" not in run.stderr


def test_sites_check_reads_a_browser_site_as_a_crawl_does(tmp_path):
    texts = [a for a in articles(10) if "\ufffd" not in a["body"]][:6]
    site = ScriptedSite(texts, per_list=5)
    server, url = serve(site)
    try:
        cmd = [sys.executable, "-m", "news_crawler.cli.crawler", "sites", "check", "scripted"]
        cmd += ["-s", f"SITES_FILE={sites_file(tmp_path, url)}"]
        run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    finally:
        server.shutdown()
    assert run.returncode == 0, run.stdout + run.stderr
    assert "5 match allow (articles)" in run.stdout  # links the list page's script built
    assert f"author       {site.author(0)}" in run.stdout and "ok: 5 article links, 2 of 2 extracted" in run.stdout


def test_a_browser_that_crashes_as_it_starts_is_tried_again_then_one_line(tmp_path):
    crashing = tmp_path / "chromium"
    crashing.write_text(f"#!/bin/sh\necho started >> {tmp_path / 'starts'}\nkill -SEGV $$\n")
    crashing.chmod(0o755)
    cmd = [sys.executable, "-m", "news_crawler.cli.crawler", "sites", "check", "scripted"]
    cmd += ["-s", f"SITES_FILE={sites_file(tmp_path, 'http://127.0.0.1:9')}", "-s", f"BROWSER_PATH={crashing}"]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert "the browser did not start (" in run.stderr.strip().splitlines()[-1]
    assert (tmp_path / "starts").read_text().count("started") == 2  # once more after the crash
