"""The daily HTML report, rendered in a real browser: headless Chromium loads the file
offline; the DOM holds one row per site with the crawl's numbers and a chart per site; a
screenshot is not blank. Skipped, saying why, where Chromium is not installed."""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import sys
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.crawl_helpers import ROOT
from tests.hostile_web import HostileWeb, article, list_page
from tests.redis_server import TestServer

CRAWLER = [sys.executable, "-m", "news_crawler.cli.crawler"]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
browser = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium)")


def chromium(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def png_pixels(path: Path) -> bytes:
    """The raw scanlines of a PNG (no image library needed to tell blank from drawn)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8 : pos + 8 + length]
        pos += 12 + length
    return zlib.decompress(idat)


@pytest.fixture
def report(tmp_path, sina_articles):
    """A crawl (2 kept, 1 reprint dropped, 1 invalid) and yesterday's counts, then the report."""
    from news_crawler import connection
    from news_crawler.config import plain_settings
    from news_crawler.outcomes.store import OutcomeStore

    server, web = TestServer(tmp_path / "redis"), HostileWeb()
    env = {
        **{k: v for k, v in os.environ.items() if k != "SCRAPY_SETTINGS_MODULE"},
        "REDIS_URL": server.url,
        "TIMEZONE": "UTC",  # the days the test's own records are written in
    }
    try:
        a, b = sina_articles[7], sina_articles[70]
        urls = [
            web.add("/news/1.html", article(a["title"], a["body"])),
            web.add("/news/2.html", article(b["title"], b["body"])),
            web.add("/news/3.html", article("转载：" + a["title"], a["body"])),
            web.add("/news/4.html", os.urandom(3000)),
        ]
        start = web.add("/list.html", list_page(urls))
        crawl = subprocess.run(
            [
                *CRAWLER,
                "crawl",
                "news",
                "-a",
                f"start_urls={start}",
                "-a",
                r"allow=/news/\d+",
                "-s",
                f"FEED_DIR={tmp_path / 'out'}",
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert crawl.returncode == 0, crawl.stderr[-3000:]
        yesterday = datetime.now(UTC) - timedelta(days=1)
        client = connection.from_settings(plain_settings({"REDIS_URL": server.url}))
        store = OutcomeStore(client, "sina:outcomes", "sina:attempts", clock=lambda: yesterday)
        for n in range(3):  # sina kept 3 yesterday and nothing today: flagged
            store.record(f"https://news.sina.com.cn/c/{n}.shtml", "kept")
        path = tmp_path / "report.html"
        made = subprocess.run(
            [*CRAWLER, "report", "--out", str(path)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )
        assert made.returncode == 0, made.stderr
        yield path, urls
    finally:
        web.stop()
        server.stop()


def test_the_report_is_one_file_that_needs_nothing_from_outside(report):
    path, _ = report
    page = path.read_text()  # links to the articles, but nothing loaded: no script, image, font or stylesheet
    assert not re.search(r"<script|<link|<img|src=|@import|url\(", page)
    assert "Days are days of UTC (TIMEZONE)." in page


@browser
def test_the_report_in_a_browser_has_a_row_and_a_chart_per_site_and_is_not_blank(report, tmp_path, sina_articles):
    path, urls = report
    dom = chromium("--dump-dom", path.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    rows = dict(re.findall(r'<tr class="site[^"]*" data-site="([^"]+)">(.*?)</tr>', dom.stdout, re.S))
    assert set(rows) == {"news", "sina"}
    cells = dict(re.findall(r'<td data-col="(\w+)">(\d+)', rows["news"]))
    assert cells == {
        "fetched": "4",
        "kept": "2",
        "dropped": "1",
        "invalid": "1",
        "gone": "0",
        "robots": "0",
        "failed": "0",
        "errors": "0",
    }
    assert re.search(r'<svg class="chart" data-site="news"', rows["news"])
    assert re.search(r'<svg class="chart" data-site="sina"', rows["sina"])
    assert "kept nothing today" in rows["sina"] and "kept nothing today" not in rows["news"]
    assert "29 of 30 days without data" in rows["news"]  # no data is said, not drawn as zero
    assert urls[2] in dom.stdout.split('id="drops"')[1]  # the reprint, and what it copies
    a = sina_articles[7]
    drops = dom.stdout.split('id="drops"')[1].split("</table>")[0]  # each by its headline, linked
    assert f'title="{urls[2]}">转载：{a["title"]}</a>' in drops and f'title="{urls[0]}">{a["title"]}</a>' in drops
    # the site's first day: its numbers, not a column of "no data"
    assert "its first day" in rows["news"] and "no data" not in rows["news"].split("<svg")[0]
    shot = tmp_path / "report.png"
    result = chromium(f"--screenshot={shot}", "--window-size=1200,900", path.as_uri())
    assert result.returncode == 0 and shot.exists(), result.stderr[-2000:]
    pixels = png_pixels(shot)
    assert len(set(pixels)) > 16  # drawn: text and bars, not one blank colour


def test_the_report_command_writes_the_dated_file_and_latest(tmp_path):
    from datetime import date

    from news_crawler.cli.report import KEEP_DAYS, prune

    folder = tmp_path / "reports"
    folder.mkdir()
    old = date.today() - timedelta(days=KEEP_DAYS + 1)
    (folder / f"{old.isoformat()}.html").write_text("old")
    (folder / "latest.html").write_text("x")
    prune(folder, date.today())
    assert [p.name for p in folder.iterdir()] == ["latest.html"]  # bounded: old dated reports go
