"""Outcomes over real crawls of the mirror: gone and robots-denied pages are recorded and
not fetched again; transient failures and errors come back on the next runs, then are
given up with a record."""

import json
import subprocess
import sys
from collections import Counter

import pytest

from news_crawler.outcomes.store import OutcomeStore
from news_mirror.handler import mirror_path
from news_mirror.server import Mirror, serve
from tests.crawl_helpers import ROOT, crawl, mirror_env

FAST = {"RETRY_TIMES": "0", "OUTCOME_RETRY_RUNS": "2"}


@pytest.fixture
def site(catalog):
    mirror = Mirror(catalog, day=1)
    server = serve(mirror)
    yield mirror, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def sina_articles(catalog) -> list[str]:
    return sorted(u for u, p in catalog.pages.items() if p.site == "sina" and p.day == 1 and not p.reprint_of)


def test_gone_robots_and_failed_pages(tmp_path, redis_server, redis_client, catalog, site):
    mirror, url = site
    gone, gone2, denied, broken = sina_articles(catalog)[:4]
    mirror.statuses = {mirror_path(gone): 404, mirror_path(gone2): 410, mirror_path(broken): 503}
    host = mirror_path(denied).split("/")[0]
    mirror.robots = {host: f"User-agent: *\nDisallow: /{mirror_path(denied).split('/', 1)[1]}\n"}
    settings = {**FAST, "ROBOTSTXT_OBEY": "True"}

    summary, _ = crawl(tmp_path, redis_server.url, url, ["sina"], name="run1", settings=settings)
    store = OutcomeStore(redis_client, "sina:outcomes", "sina:attempts")
    outcomes = {u: r["outcome"] for u, r in store.latest().items()}
    assert (outcomes[gone], outcomes[gone2], outcomes[denied], outcomes[broken]) == ("gone", "gone", "robots", "failed")
    row = summary["sites"]["sina"]
    assert (row["gone"], row["robots"], row["failed"], row["errors"]) == (2, 1, 1, 0)
    assert store.get(gone)["reason"] == "HTTP 404"

    before = len(mirror.requests)
    crawl(tmp_path, redis_server.url, url, ["sina"], name="run2", settings=settings)
    again = Counter(mirror.article_requests(before))
    assert again == Counter({mirror_path(broken): 1})  # only the transient failure is tried again
    assert store.get(broken)["outcome"] == "given_up" and "2 runs" in store.get(broken)["reason"]

    before = len(mirror.requests)
    crawl(tmp_path, redis_server.url, url, ["sina"], name="run3", settings=settings)
    assert not mirror.article_requests(before)  # given up: not fetched again


def test_a_pipeline_error_releases_the_url_for_the_next_run(tmp_path, redis_server, redis_client, catalog, site):
    mirror, url = site
    victim = sina_articles(catalog)[0]
    pipelines = {
        "news_crawler.pipelines.validate.ValidationPipeline": 100,
        "news_crawler.pipelines.dedup.NearDuplicatePipeline": 200,
        "tests.failing_pipeline.FailOnURL": 250,
    }
    failing = {**FAST, "FAIL_URL": victim, "ITEM_PIPELINES": json.dumps(pipelines)}
    proc = crawl(tmp_path, redis_server.url, url, ["sina"], name="run1", settings=failing, wait=False)
    assert proc.wait(300) == 1  # the crawl says it met an error
    summary = json.loads((tmp_path / "run1" / "summary.json").read_text())
    assert summary["sites"]["sina"]["errors"] == 1
    store = OutcomeStore(redis_client, "sina:outcomes", "sina:attempts")
    assert store.get(victim)["outcome"] == "error" and "downstream store is broken" in store.get(victim)["reason"]

    before = len(mirror.requests)
    summary2, items = crawl(tmp_path, redis_server.url, url, ["sina"], name="run2", settings=FAST)
    assert mirror.article_requests(before) == [mirror_path(victim)]
    assert store.get(victim)["outcome"] in ("kept", "duplicate")  # decided before the error: a replay
    if store.get(victim)["outcome"] == "kept":
        assert victim in {i["url"] for i in items}  # the feed line the error had kept from it


def test_an_unsettled_drop_leaves_the_url_to_the_next_run(tmp_path, redis_server, redis_client, catalog, site):
    """A pipeline that could not settle an article (Redis or its store stayed away) drops it
    as Unsettled: no outcome is recorded and its lease stays, so the next run fetches it
    again, even though Redis answers throughout."""
    mirror, url = site
    victim, other = sina_articles(catalog)[3:5]
    pipelines = {
        "news_crawler.pipelines.validate.ValidationPipeline": 100,
        "tests.failing_pipeline.UnsettleURL": 150,
    }
    unsettled = {**FAST, "FAIL_URL": victim, "ITEM_PIPELINES": json.dumps(pipelines)}
    crawl(tmp_path, redis_server.url, url, ["sina"], name="run1", settings=unsettled)
    store = OutcomeStore(redis_client, "sina:outcomes", "sina:attempts")
    assert store.get(victim) is None and store.get(other)["outcome"] == "kept"

    before = len(mirror.requests)
    crawl(tmp_path, redis_server.url, url, ["sina"], name="run2", settings=FAST)
    assert mirror.article_requests(before) == [mirror_path(victim)]
    assert store.get(victim)["outcome"] in ("kept", "duplicate")


def test_daily_exits_non_zero_when_a_pipeline_raised(tmp_path, redis_server, redis_client, catalog, site):
    mirror, url = site
    pipelines = {"tests.failing_pipeline.FailOnURL": 250}

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "news_crawler.cli.crawler",
            "daily",
            "-s",
            f"REDIS_URL={redis_server.url}",
            "-s",
            f"DAILY_DIR={tmp_path / 'daily'}",
            "-s",
            "DAILY_SPIDERS=sina",
            "-s",
            "DEDUP_PROCESSES=0",
            "-s",
            f"FEED_DIR={tmp_path / 'out'}",
            "-s",
            f"FAIL_URL={sina_articles(catalog)[1]}",
            "-s",
            f"ITEM_PIPELINES={json.dumps(pipelines)}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=mirror_env(url),
    )
    assert result.returncode == 1 and "failed: sina" in result.stderr


def test_a_callback_error_releases_the_url_for_the_next_run(tmp_path, redis_server, redis_client, catalog, site):
    mirror, url = site
    victim = sina_articles(catalog)[2]

    def scrapy_crawl(name, **settings):
        args = [
            sys.executable,
            "-m",
            "scrapy",
            "crawl",
            "failing_sina",
            "-s",
            f"REDIS_URL={redis_server.url}",
            "-s",
            "SPIDER_MODULES=news_crawler.spiders,tests.failing_spider",
            "-s",
            "DEDUP_PROCESSES=0",
            "-s",
            f"FEED_DIR={tmp_path / name}",
            "-s",
            "RETRY_TIMES=0",
        ]
        for key, value in settings.items():
            args += ["-s", f"{key}={value}"]
        return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300, env=mirror_env(url))

    first = scrapy_crawl("run1", FAIL_URL=victim)
    assert "a bug in the callback" in first.stderr
    store = OutcomeStore(redis_client, "failing_sina:outcomes", "failing_sina:attempts")
    assert store.get(victim)["outcome"] == "error"
    assert redis_client.zcard("failing_sina:requests:later") == 1

    before = len(mirror.requests)
    scrapy_crawl("run2")
    assert mirror.article_requests(before) == [mirror_path(victim)]
    assert store.get(victim)["outcome"] in ("kept", "duplicate")


def test_a_failed_start_page_is_fetched_and_counted_once_a_run_as_the_report_counts_it(
    tmp_path, redis_server, redis_client, catalog, site
):
    from news_crawler.config import build_settings
    from news_crawler.dedup.from_settings import store_from_settings
    from news_crawler.ops.report import gather
    from news_crawler.spiders.sites import load_sites

    mirror, url = site
    start = mirror_path(load_sites()["sina"].start_urls[1])
    mirror.statuses = {start: 503}
    rows = []
    for run in ("run1", "run2"):
        before = len(mirror.requests)
        summary, _ = crawl(tmp_path, redis_server.url, url, ["sina"], name=run, settings=FAST)
        assert mirror.requests[before:].count(start) == 1  # from the start pages only, not postponed as well
        rows.append(summary["sites"]["sina"])
        if run == "run1":  # the report reads the day's outcome counts as the summary read the run's
            settings = build_settings({"REDIS_URL": redis_server.url})
            report = gather(redis_client, settings, ["sina"], store_from_settings(settings, redis_client), days=2)
            (day,) = report.sites
            assert {**day.days[report.today], "lists": 0} == {**rows[0], "lists": 0}
    assert [r["failed"] for r in rows] == [1, 1] and rows[0]["kept"] > 0 and rows[1]["kept"] == 0
    store = OutcomeStore(redis_client, "sina:outcomes", "sina:attempts")
    assert store.get(f"https://{start}")["outcome"] == "failed" and store.counts()["failed"] == 1


def sink_runs(tmp_path, redis_server, url, victim, sinks, failing_by_run):
    """One crawl a run, ``failing_by_run[n]`` the sinks that fail ``victim`` in run n; returns how
    many times the feed and each sink wrote ``victim``."""
    from news_crawler.settings import ITEM_PIPELINES

    pipelines = {**ITEM_PIPELINES, **{f"tests.failing_pipeline.Sink{s.upper()}": 300 + n for n, s in enumerate(sinks)}}
    for run, failing in enumerate(failing_by_run, 1):
        settings = {
            **FAST,
            "OUTCOME_RETRY_RUNS": "5",
            "ITEM_PIPELINES": json.dumps(pipelines),
            "SINK_DIR": str(tmp_path),
            "SINK_FAILS": ",".join(failing),
            "FAIL_URL": victim,
        }
        proc = crawl(tmp_path, redis_server.url, url, ["sina"], name=f"run{run}", settings=settings, wait=False)
        assert proc.wait(300) == (1 if failing else 0), (tmp_path / f"run{run}.log").read_text()[-3000:]
    feed = [json.loads(line)["url"] for f in tmp_path.glob("run*/sina/*.jsonl") for line in f.read_text().splitlines()]
    written = {"feed": feed.count(victim)}
    for s in sinks:
        written[s] = (tmp_path / f"{s}.txt").read_text().split().count(victim)
    return written


def test_with_two_sinks_the_one_that_took_an_article_does_not_take_it_again(
    tmp_path, redis_server, redis_client, catalog, site
):
    mirror, url = site
    victim = sina_articles(catalog)[2]
    written = sink_runs(tmp_path, redis_server, url, victim, ["a"], [["a"], []])
    assert written == {"feed": 1, "a": 1}
    assert redis_client.hlen("sina:deliveries") == 0


def test_a_sink_that_took_an_article_in_run_1_is_not_written_again_after_another_failed_in_run_2(
    tmp_path, redis_server, redis_client, catalog, site
):
    mirror, url = site
    victim = sina_articles(catalog)[3]
    written = sink_runs(tmp_path, redis_server, url, victim, ["a", "b"], [["a"], ["b"], []])
    assert written == {"feed": 1, "a": 1, "b": 1}
    assert redis_client.hlen("sina:deliveries") == 0
