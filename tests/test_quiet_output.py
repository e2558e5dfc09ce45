"""A crawl speaks in its own words: Scrapy's log to a file under DATA_DIR (its path said), a
progress line on a terminal, the per-site table and every sink with what it took; ``-v`` or
LOG_LEVEL for the whole log on the terminal."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys

from tests.alert_web import RunWeb, serve_web
from tests.crawl_helpers import ROOT


def sites_file(tmp, base: str):
    path = tmp / "sites.toml"
    path.write_text(
        f"[sites.alpha]\nstart_urls = [\"{base}/alpha/\"]\nallow = '/alpha/a/\\d+\\.html$'\n", encoding="utf-8"
    )
    return path


def crawl_cmd(tmp, redis_url: str, sites, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "news_crawler.cli.crawler",
        "crawl",
        "alpha",
        *extra,
        "-s",
        f"REDIS_URL={redis_url}",
        "-s",
        f"SITES_FILE={sites}",
        "-s",
        f"DATA_DIR={tmp / 'data'}",
        "-s",
        "DEDUP_PROCESSES=1",
        "-s",
        "ITEMS_REDIS_STREAM=%(spider)s:articles",
    ]


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("LOG_LEVEL", "LOG_FILE")}


def test_a_crawl_prints_its_table_and_sinks_and_logs_to_a_file(tmp_path, redis_server, redis_client):
    web = RunWeb(["alpha"], per_run=3, runs=2)
    web.publish(3)
    server, base = serve_web(web)
    sites = sites_file(tmp_path, base)
    try:
        done = subprocess.run(
            crawl_cmd(tmp_path, redis_server.url, sites),
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            env=clean_env(),
        )
        assert done.returncode == 0, done.stderr
        (log,) = (tmp_path / "data" / "logs").glob("crawl-*.log")
        assert re.fullmatch(r"crawl-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-\d+\.log", log.name)
        assert "Spider opened" in log.read_text() and "Spider opened" not in done.stdout + done.stderr
        assert done.stderr == ""  # no progress line off a terminal, for a crawl under a minute
        first, *lines = done.stdout.splitlines()
        assert first == f"crawl: alpha; Scrapy's log: {log} (-v shows it here)"
        assert lines[0].split() == [
            "site",
            "fetched",
            "lists",
            "kept",
            "dropped",
            "invalid",
            "gone",
            "robots",
            "failed",
            "errors",
        ]
        assert lines[1].split()[:4] == ["alpha", "3", "1", "3"]
        assert lines[3:] == [
            f"      3 articles to {tmp_path / 'data' / 'output'}/<site>/ (FEED_DIR)",
            "      3 entries to Redis stream <site>:articles",
            f"log: {log}",
        ]
        # on a terminal, a progress line; -v: Scrapy's log on the terminal as before
        web.publish(3)
        leader, follower = pty.openpty()
        proc = subprocess.Popen(
            crawl_cmd(tmp_path, redis_server.url, sites),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=follower,
            text=True,
            env=clean_env(),
        )
        os.close(follower)
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the other end closed
                break
            if not chunk:
                break
            shown += chunk
        assert proc.wait(300) == 0
        os.close(leader)
        assert re.search(rb"\r\d+:\d\d  \d+ pages fetched; 3 kept\s*\r?\n", shown), shown
        loud = subprocess.run(
            crawl_cmd(tmp_path, redis_server.url, sites, "-v"), cwd=ROOT, capture_output=True, text=True, timeout=300
        )
        assert (
            loud.returncode == 0
            and "Spider opened" in loud.stderr
            and len(list((tmp_path / "data" / "logs").glob("*.log"))) == 2
        )
    finally:
        server.shutdown()
