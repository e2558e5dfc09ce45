"""A crawl killed with SIGKILL, or its Redis killed and restarted, loses nothing: every
article ends kept (in a feed), dropped as a near-duplicate, or invalid."""

import json
import signal
from dataclasses import dataclass
from pathlib import Path

import pytest

from news_crawler.outcomes.store import OutcomeStore
from news_mirror.server import Mirror, serve
from tests.crawl_helpers import crawl, wait_for
from tests.redis_server import TestServer

SPIDERS = ["sina", "163", "thepaper", "qq", "ifeng"]


def children(pid: int) -> list[int]:
    """Every process whose parent is ``pid`` (Linux /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_bytes()
            except OSError:
                continue
            if int(stat[stat.rindex(b")") + 2 :].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rindex(b")") + 2 :].split()[0] != b"Z"


def describe(pid: int) -> str:
    try:
        return f"{pid} " + Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:120]
    except OSError:
        return f"{pid} (gone)"


def recorded_outcomes(client) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for spider in SPIDERS:
        out.update(OutcomeStore(client, f"{spider}:outcomes", f"{spider}:attempts").latest())
    return out


def feed_urls(directory: Path) -> set[str]:
    """URLs of every line in the feeds under ``directory``; each line must be whole JSON."""
    return {json.loads(line)["url"] for f in directory.rglob("*.jsonl") for line in f.read_text().splitlines()}


@dataclass
class SlowSite:
    """The mirror at day 1, answering each article after a delay, so faults land mid-crawl."""

    mirror: Mirror
    url: str
    articles: set[str]  # day-1 article URLs of SPIDERS

    @property
    def paths(self) -> set[str]:
        return {u.split("://")[1] for u in self.articles}

    def requested(self, share: float) -> bool:
        return len(set(self.mirror.article_requests()) & self.paths) >= share * len(self.paths)

    def assert_nothing_lost(self, outcomes: dict[str, dict], *feed_dirs: Path) -> None:
        """Every article fetched, each with an outcome, every kept one in a feed."""
        assert self.paths <= set(self.mirror.article_requests())
        missing = sorted(self.articles - set(outcomes))
        assert not missing, f"{len(missing)} articles without an outcome: {missing[:3]}"
        assert {outcomes[u]["outcome"] for u in self.articles} <= {"kept", "duplicate", "invalid"}
        kept = {u for u in self.articles if outcomes[u]["outcome"] == "kept"}
        in_feeds = set().union(*(feed_urls(d) for d in feed_dirs))
        assert kept and kept <= in_feeds, sorted(kept - in_feeds)[:3]


@pytest.fixture
def site(catalog):
    mirror = Mirror(catalog, day=1)
    mirror.delay = 0.25
    http = serve(mirror)
    yield SlowSite(
        mirror,
        f"http://127.0.0.1:{http.server_address[1]}",
        {u for u, p in catalog.pages.items() if p.day == 1 and p.site in SPIDERS},
    )
    http.shutdown()


@pytest.fixture
def durable_redis(tmp_path):
    server = TestServer(tmp_path / "redis", durable=True)
    yield server
    server.stop()


@pytest.mark.parametrize("kill_at", [0.4, 0.9])
def test_sigkill_mid_crawl_then_rerun_loses_no_article(tmp_path, redis_server, redis_client, site, kill_at):
    # The default process pool, so the kill also shows its workers do not outlive the crawl.
    proc = crawl(
        tmp_path,
        redis_server.url,
        site.url,
        SPIDERS,
        name="killed",
        wait=False,
        settings={"DEDUP_PROCESSES": "1", "CONCURRENT_REQUESTS_PER_DOMAIN": "2"},
    )
    wait_for(lambda: site.requested(kill_at), 120, f"{kill_at:.0%} of the article pages to be requested")
    wait_for(
        lambda: any("multiprocessing.spawn" in describe(p) for p in children(proc.pid)),
        120,
        "the crawl to start its fingerprinting pool",
    )
    pool = children(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    wait_for(
        lambda: not any(alive(p) for p in pool),
        30,
        f"the pool workers to die with their parent: {[describe(p) for p in pool if alive(p)]}",
    )
    assert len(recorded_outcomes(redis_client)) < len(site.articles)  # the kill left work undone

    crawl(tmp_path, redis_server.url, site.url, SPIDERS, name="rerun")
    site.assert_nothing_lost(recorded_outcomes(redis_client), tmp_path / "killed", tmp_path / "rerun")
    for spider in SPIDERS:  # nothing left in flight or queued
        assert redis_client.zcard(f"{spider}:requests") == 0 and redis_client.zcard(f"{spider}:requests:inflight") == 0


def test_redis_killed_mid_crawl_and_restarted_the_crawl_carries_on(tmp_path, site, durable_redis):
    log = tmp_path / "crawl.log"
    proc = crawl(
        tmp_path,
        durable_redis.url,
        site.url,
        SPIDERS,
        name="crawl",
        wait=False,
        settings={"CONCURRENT_REQUESTS_PER_DOMAIN": "2"},
    )
    wait_for(lambda: site.requested(0.3), 120, "30% of the article pages to be requested")
    durable_redis.kill()
    wait_for(lambda: "Redis does not answer" in log.read_text(), 60, "the crawl to notice the outage")
    # The pages in flight answered: what they gave waits on Redis (the crawl takes no new one).
    wait_for(site.mirror.idle, 60, "every page asked for to be answered")
    durable_redis.start()
    assert proc.wait(300) == 0, log.read_text()[-3000:]
    text = log.read_text()
    assert "Redis answers again" in text and "Traceback" not in text and "Unhandled error" not in text
    site.assert_nothing_lost(recorded_outcomes(durable_redis.client()), tmp_path / "crawl")


def test_redis_away_past_the_limit_stops_the_crawl_and_the_rerun_completes(tmp_path, site, durable_redis):
    proc = crawl(
        tmp_path,
        durable_redis.url,
        site.url,
        SPIDERS,
        name="stopped",
        wait=False,
        settings={"CONCURRENT_REQUESTS_PER_DOMAIN": "2", "REDIS_OUTAGE_LIMIT": "3"},
    )
    wait_for(lambda: site.requested(0.3), 120, "30% of the article pages to be requested")
    durable_redis.kill()
    assert proc.wait(300) == 1  # stopped, and says so with its exit code
    text = (tmp_path / "stopped.log").read_text()
    assert text.count("ERROR: Redis did not answer for 3 s: stopping") == len(SPIDERS)  # one line per spider
    assert "Traceback" not in text and "Unhandled error" not in text

    durable_redis.start()
    crawl(tmp_path, durable_redis.url, site.url, SPIDERS, name="rerun")
    site.assert_nothing_lost(recorded_outcomes(durable_redis.client()), tmp_path / "stopped", tmp_path / "rerun")


def test_scrapy_crawl_stopped_by_an_absent_redis_exits_1(tmp_path, site, durable_redis):
    """Scrapy's own crawl command exits 0 whatever the finish reason; a cron job running
    ``scrapy crawl sina`` must see that Redis stopped it."""
    import subprocess
    import sys

    from tests.crawl_helpers import ROOT, mirror_env

    site.mirror.delay = 1.0  # pages slow enough that Redis goes away while sina still has some to fetch
    log = open(tmp_path / "scrapy.log", "w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "scrapy",
            "crawl",
            "sina",
            "-s",
            f"REDIS_URL={durable_redis.url}",
            "-s",
            f"FEED_DIR={tmp_path / 'out'}",
            "-s",
            "REDIS_OUTAGE_LIMIT=3",
            "-s",
            "CONCURRENT_REQUESTS_PER_DOMAIN=1",
        ],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=mirror_env(site.url),
    )
    wait_for(lambda: site.requested(0.05), 120, "the first article pages to be requested")
    durable_redis.kill()
    assert proc.wait(300) == 1
    text = (tmp_path / "scrapy.log").read_text()
    assert "sina: stopped, Redis unavailable (finish reason redis_unavailable)" in text
    durable_redis.start()
