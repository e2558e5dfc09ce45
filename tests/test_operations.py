"""Operators' paths: the daily cron command, the status report, and a cluster of workers."""

import fcntl
import json
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime

from news_crawler.dedup.fingerprint import distance, from_hex
from news_mirror.server import Mirror, serve
from tests.crawl_helpers import ROOT, load, mirror_env, originals, superseded
from tests.redis_server import TestServer


def cli(*args, mirror="", timeout=300):
    return subprocess.run(
        [sys.executable, "-m", "news_crawler.cli.crawler", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=mirror_env(mirror) if mirror else None,
    )


def test_daily_runs_lock_summaries_and_exit_codes(tmp_path, redis_server, redis_client, catalog):
    mirror = Mirror(catalog, day=1)
    server = serve(mirror)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    daily = tmp_path / "daily"
    common = [
        "-s",
        f"REDIS_URL={redis_server.url}",
        "-s",
        f"DAILY_DIR={daily}",
        "-s",
        "DEDUP_PROCESSES=0",
        "-s",
        f"FEED_DIR={tmp_path / 'out'}",
    ]

    first = cli("daily", *common, mirror=url)
    assert first.returncode == 0, first.stderr[-2000:]
    (summary1,) = [json.loads(p.read_text()) for p in (daily / "summaries").glob("*.json")]
    day1_pages = sum(1 for p in catalog.pages.values() if p.day == 1)
    assert sum(r["fetched"] for r in summary1["sites"].values()) == day1_pages
    assert sum(r["kept"] for r in summary1["sites"].values()) > 0 and summary1["failed"] == []
    assert set(summary1["sites"]) == {p.site for p in catalog.pages.values()}
    (log,) = (daily / "logs").glob("*.log")
    assert "crawl summary for sina" in log.read_text()

    # An overlapping start while a run holds the lock does nothing and says so.
    with open(daily / "daily.lock", "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        skipped = cli("daily", *common, mirror=url)
    assert skipped.returncode == 75 and "another daily run" in skipped.stderr
    assert len(list((daily / "summaries").glob("*.json"))) == 1
    assert "skipped" in log.read_text()

    # The next day: new articles on the list pages; only they are fetched.
    mirror.day = 2
    before = len(mirror.requests)
    second = cli("daily", *common, mirror=url)
    assert second.returncode == 0, second.stderr[-2000:]
    summary2 = json.loads(sorted((daily / "summaries").glob("*.json"))[-1].read_text())
    day2_pages = sum(1 for p in catalog.pages.values() if p.day == 2)
    assert sum(r["fetched"] for r in summary2["sites"].values()) == day2_pages
    fetched = Counter(mirror.article_requests(before))
    assert len(fetched) == day2_pages and max(fetched.values()) == 1

    status = cli("status", "--json", *common)
    report = json.loads(status.stdout)
    kept = sum(r["kept"] for s in (summary1, summary2) for r in s["sites"].values())
    items = [json.loads(x) for f in (tmp_path / "out").glob("*/*.jsonl") for x in f.read_text().splitlines() if x]
    assert report["dedup"]["kept"] == kept - len(superseded(items))  # the index holds those as copies
    assert report["spiders"]["sina"]["seen_urls"] >= 1 and report["spiders"]["sina"]["queued"] == 0
    assert report["last_daily_run"]["failed"] == []
    day1 = datetime.fromisoformat(summary1["started"]).astimezone(UTC).date()
    if day1 == datetime.now(UTC).date():  # both runs on today's UTC day, as the outcomes are
        assert sum(row["outcomes_today"].get("kept", 0) for row in report["spiders"].values()) == kept
    human = cli("status", *common)
    assert "fingerprints" in human.stdout and "sina" in human.stdout and " kept" in human.stdout

    # Portals unreachable: the run fails, and says which.
    server.shutdown()
    server.server_close()
    failed = cli("daily", *common, "-s", "RETRY_TIMES=0", mirror=url)
    assert failed.returncode == 1 and "failed: " in failed.stderr


def test_three_workers_crawl_the_mirror_together(tmp_path, catalog):
    redis = TestServer(tmp_path / "redis", password="s3cret")
    mirror = Mirror(catalog, day=1)
    server = serve(mirror)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        common = ["-s", f"REDIS_URL={redis.url}", "-s", "DEDUP_PROCESSES=0"]
        # A polite delay per site makes the crawl last long enough for all three to take part.
        polite = ["-s", "DOWNLOAD_DELAY=0.3", "-s", "CONCURRENT_REQUESTS_PER_DOMAIN=1"]
        workers = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "news_crawler.cli.crawler",
                    "worker",
                    "--idle",
                    "8",
                    "--summary",
                    str(tmp_path / f"w{i}" / "summary.json"),
                    *common,
                    *polite,
                    "-s",
                    f"FEED_DIR={tmp_path / f'w{i}'}",
                    "-s",
                    "LOG_LEVEL=INFO",
                ],
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=open(tmp_path / f"w{i}.log", "w"),
                env=mirror_env(url),
            )
            for i in range(3)
        ]
        deadline = time.monotonic() + 120
        while not all("Spider opened" in (tmp_path / f"w{i}.log").read_text() for i in range(3)):
            assert time.monotonic() < deadline
            time.sleep(0.2)
        seeded = cli("seed", *common)  # the seeder's daily push
        assert seeded.returncode == 0 and "seeded" in seeded.stdout
        for w in workers:
            assert w.wait(300) == 0  # each stops by itself once the shared queue stays empty
        lists = Counter(r for r in mirror.requests if r in mirror.lists)
        articles = Counter(mirror.article_requests())
        assert set(lists) == set(mirror.lists) and max(lists.values()) == 1  # each seed popped once
        day1 = {u.split("://")[1] for u, p in catalog.pages.items() if p.day == 1}
        assert set(articles) == day1 and max(articles.values()) == 1  # each article once across workers
        items = [i for n in range(3) for i in load(tmp_path / f"w{n}")[1]]
        assert len({i["url"] for i in items}) == len(items)
        fps = [from_hex(i["simhash"]) for i in originals(items)]  # a copy kept before its original came: superseded
        assert all(distance(a, b) > 3 for n, a in enumerate(fps) for b in fps[n + 1 :])
        busy = [n for n in range(3) if load(tmp_path / f"w{n}")[0]["sites"]]
        assert len(busy) >= 2  # the work was actually shared
        for n in range(3):  # no password in any log; no telnet console (it logs its own)
            log = (tmp_path / f"w{n}.log").read_text()
            assert "Spider closed" in log and "s3cret" not in log and "Telnet" not in log
    finally:
        server.shutdown()
        redis.stop()
