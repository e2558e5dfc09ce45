"""The Prometheus exporter, scraped over HTTP after a real crawl: its names, labels and
values against the crawl's own summary."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import urllib.request

import pytest

from tests.crawl_helpers import ROOT, wait_for
from tests.hostile_web import HostileWeb, article, list_page
from tests.redis_server import TestServer, free_port

CRAWLER = [sys.executable, "-m", "news_crawler.cli.crawler"]


def scrape(url: str) -> dict[str, float]:
    """``{'name{labels}': value}`` of a Prometheus text page."""
    text = urllib.request.urlopen(url, timeout=10).read().decode()
    return {m.group(1): float(m.group(2)) for m in re.finditer(r"^(news_crawler_\S+) (\S+)$", text, re.M)}


def scrapes(url: str) -> bool:
    try:
        urllib.request.urlopen(url, timeout=1)
        return True
    except OSError:
        return False


@pytest.fixture
def crawled(tmp_path, sina_articles):
    """A Redis of its own after one crawl: 2 articles kept, 1 reprint dropped, 1 invalid."""
    server, web = TestServer(tmp_path / "redis"), HostileWeb()
    env = {**{k: v for k, v in os.environ.items() if k != "SCRAPY_SETTINGS_MODULE"}, "REDIS_URL": server.url,
           "DAILY_DIR": str(tmp_path / "daily")}
    try:
        a, b = sina_articles[7], sina_articles[70]
        urls = [web.add("/news/1.html", article(a["title"], a["body"])),
                web.add("/news/2.html", article(b["title"], b["body"])),
                web.add("/news/3.html", article("转载：" + a["title"], a["body"])),  # a reprint
                web.add("/news/4.html", os.urandom(3000))]  # not text
        start = web.add("/list.html", list_page(urls))
        result = subprocess.run([*CRAWLER, "crawl", "news", "-a", f"start_urls={start}", "-a", r"allow=/news/\d+",
                                 "-s", f"FEED_DIR={tmp_path / 'out'}", "--summary", str(tmp_path / "summary.json")],
                                cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr[-3000:]
        yield env, json.loads((tmp_path / "summary.json").read_text())
    finally:
        web.stop()
        server.stop()


def test_the_exporter_shows_the_crawl(crawled):
    env, summary = crawled
    port = free_port()
    exporter = subprocess.Popen([*CRAWLER, "metrics", "--listen", f"127.0.0.1:{port}"], cwd=ROOT, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = f"http://127.0.0.1:{port}/metrics"
        wait_for(lambda: scrapes(url), 60, "the exporter to answer")
        m = scrape(url)
    finally:
        exporter.terminate()
        exporter.wait(30)
    row = summary["sites"]["127.0.0.1"]
    assert m["news_crawler_redis_up"] == 1
    assert m['news_crawler_outcomes_today{outcome="kept",site="news"}'] == row["kept"] == 2
    assert m['news_crawler_outcomes_today{outcome="duplicate",site="news"}'] == row["dropped"] == 1
    assert m['news_crawler_outcomes_today{outcome="invalid",site="news"}'] == row["invalid"] == 1
    assert m['news_crawler_urls_seen{site="news"}'] == 4  # the article URLs in the dupefilter
    assert m['news_crawler_queue_requests{site="news"}'] == 0 and m['news_crawler_leases_in_flight{site="news"}'] == 0
    assert m["news_crawler_index_kept_total"] == 2 and m["news_crawler_index_fingerprints"] == 2
    assert m['news_crawler_index_dropped_total{rule="simhash"}'] + m['news_crawler_index_dropped_total{rule="sentences"}'] == 1
    assert m["news_crawler_index_dropped_today"] == 1 and m["news_crawler_redis_memory_bytes"] > 0
    assert exporter.returncode in (0, -15)  # SIGTERM ends it


def test_the_exporter_listens_on_loopback_by_default_and_refuses_a_bad_address():
    from news_crawler.cli.crawler import build_parser

    args = build_parser().parse_args(["metrics"])
    assert args.listen == ("127.0.0.1", 9410)
    bad = subprocess.run([*CRAWLER, "metrics", "--listen", "nowhere"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2 and "expected HOST:PORT" in bad.stderr
