"""The Prometheus exporter, scraped over HTTP after a real crawl of the mirror: its names,
labels and values against the crawl's own summary."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.request

import pytest

from news_mirror.server import Mirror, serve
from tests.crawl_helpers import ROOT, crawl, superseded, wait_for
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
def crawled(tmp_path, catalog):
    """A Redis of its own after a crawl of the mirror by every portal spider (day 1)."""
    server, mirror = TestServer(tmp_path / "redis"), Mirror(catalog, day=1)
    http = serve(mirror)
    try:
        summary, items = crawl(tmp_path, server.url, f"http://127.0.0.1:{http.server_address[1]}")
        env = {
            **{k: v for k, v in os.environ.items() if k != "SCRAPY_SETTINGS_MODULE"},
            "REDIS_URL": server.url,
            "DAILY_DIR": str(tmp_path / "daily"),
        }
        yield env, summary, items
    finally:
        http.shutdown()
        server.stop()


def test_the_exporter_shows_the_crawl(crawled):
    env, summary, items = crawled
    port = free_port()
    exporter = subprocess.Popen(
        [*CRAWLER, "metrics", "--listen", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = f"http://127.0.0.1:{port}/metrics"
        wait_for(lambda: scrapes(url), 60, "the exporter to answer")
        m = scrape(url)
    finally:
        exporter.terminate()
        exporter.wait(30)
    assert m["news_crawler_redis_up"] == 1
    sites = summary["sites"]
    assert len(sites) == 10
    for site, row in sites.items():  # each portal's metrics are its summary row
        assert m.get(f'news_crawler_outcomes_today{{outcome="kept",site="{site}"}}', 0) == row["kept"], site
        assert m.get(f'news_crawler_outcomes_today{{outcome="duplicate",site="{site}"}}', 0) == row["dropped"], site
        assert m.get(f'news_crawler_outcomes_today{{outcome="invalid",site="{site}"}}', 0) == row["invalid"], site
        assert m[f'news_crawler_urls_seen{{site="{site}"}}'] == row["fetched"], site  # every article URL, once
        assert m[f'news_crawler_queue_requests{{site="{site}"}}'] == 0
        assert m[f'news_crawler_leases_in_flight{{site="{site}"}}'] == 0
    kept, dropped = (sum(r[c] for r in sites.values()) for c in ("kept", "dropped"))
    replaced = len(superseded(items))  # kept, then a copy of an earlier one: the index holds them as copies
    assert m["news_crawler_index_kept_total"] == kept - replaced == m["news_crawler_index_fingerprints"]
    by_rule = [m[f'news_crawler_index_dropped_total{{rule="{r}"}}'] for r in ("simhash", "sentences")]
    assert sum(by_rule) == dropped + replaced == m["news_crawler_index_dropped_today"] and dropped > 0
    assert m["news_crawler_redis_memory_bytes"] > 0
    # every kept article whose page states a time of day has its discovery latency counted
    for site in sites:
        timed = [i for i in items if i["site"] == site and "T" in i["published_at"]]
        assert m.get(f'news_crawler_discovery_latency_seconds_count{{site="{site}"}}', 0) == len(timed), site
    assert exporter.returncode in (0, -15)  # SIGTERM ends it


def test_the_exporter_listens_on_loopback_by_default_and_refuses_a_bad_address():
    from news_crawler.cli.crawler import build_parser

    args = build_parser().parse_args(["metrics"])
    assert args.listen == ("127.0.0.1", 9410)
    bad = subprocess.run([*CRAWLER, "metrics", "--listen", "nowhere"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 2 and "expected HOST:PORT" in bad.stderr


def test_the_exporter_refuses_an_index_of_another_format_in_one_line(redis_server, redis_client):
    redis_client.set("oldmetrics:held", 1)  # index keys from before formats were recorded
    env = {**os.environ, "REDIS_URL": redis_server.url, "DEDUP_NAMESPACE": "oldmetrics"}
    out = subprocess.run(
        [*CRAWLER, "metrics", "--listen", f"127.0.0.1:{free_port()}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.returncode == 2 and len(lines) == 1 and "Traceback" not in out.stderr
    assert "namespace 'oldmetrics' holds index keys with no format version" in lines[0]
