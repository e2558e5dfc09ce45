"""The per-site crawl summary: from stats, to a table, and to SUMMARY_FILE at close."""

import json

import pytest
from scrapy import Spider

from news_crawler.crawl.counts import Counts
from news_crawler.crawl.summary import CrawlSummary, format_table, summarize
from tests.crawl_helpers import project_crawler

COUNTS = [  # (kind, what, site, n), as the spider and the tracker add them
    ("pages", "article", "sina", 6),  # an article over two pages: one outcome
    ("pages", "list", "sina", 2),
    ("outcomes", "kept", "sina", 3),
    ("outcomes", "duplicate", "sina", 1),
    ("outcomes", "invalid", "sina", 2),
    ("outcomes", "invalid", "sina", -1),  # a URL whose outcome changed (to kept, counted above)
    ("outcomes", "failed", "163", 1),
    ("outcomes", "given_up", "163", 1),
    ("dedup", "dropped_by/simhash", "", 1),
]


def counted(stats) -> Counts:
    counts = Counts.of(stats)
    for kind, what, site, n in COUNTS:
        counts.add(kind, what, site, n)
    return counts


def test_counts_become_rows_per_site_and_stats_get_their_names():
    from scrapy.statscollectors import MemoryStatsCollector

    stats = MemoryStatsCollector(project_crawler(Spider))
    rows = summarize(counted(stats))
    assert stats.get_value("outcomes/kept/sina") == 3 and stats.get_value("dedup/dropped_by/simhash") == 1
    assert rows["sina"] == {
        "fetched": 5,
        "lists": 2,
        "kept": 3,
        "dropped": 1,
        "invalid": 1,
        "gone": 0,
        "robots": 0,
        "failed": 0,
        "errors": 0,
    }
    assert rows["163"]["failed"] == 2
    table = format_table(rows).splitlines()
    assert table[0].split() == [
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
    assert table[-1].split() == ["total", "5", "2", "3", "1", "1", "0", "0", "2", "0"]


def test_summary_file_gets_one_line_per_spider_run(tmp_path):
    path = tmp_path / "runs" / "summary.jsonl"
    crawler = project_crawler(Spider, settings_dict={"SUMMARY_FILE": str(path)})
    ext = CrawlSummary.from_crawler(crawler)
    spider = Spider("sina")
    for _ in range(2):
        ext.spider_opened(spider)
        crawler.stats.clear_stats()
        Counts.of(crawler.stats).sites.clear()  # a run's own counts
        counted(crawler.stats)
        ext.spider_closed(spider, "finished")
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(records) == 2 and records[0]["reason"] == "finished" and records[0]["sites"]["sina"]["kept"] == 3


@pytest.mark.parametrize(
    "reason,rows,seeded,problem",
    [
        ("finished", {"a": {"lists": 2, "fetched": 5, "failed": 1, "errors": 0}}, False, None),
        (
            "finished",
            {"a": {"lists": 0, "fetched": 0, "failed": 3, "errors": 0}},
            False,
            "could fetch none of its start",
        ),
        ("finished", {"a": {"lists": 0, "fetched": 0, "failed": 0, "errors": 0}}, True, None),  # a worker with no seeds
        ("finished", {"a": {"lists": 0, "fetched": 0, "failed": 2, "errors": 0}}, True, "every request failed (2)"),
        (
            "finished",
            {"a": {"lists": 1, "fetched": 0, "failed": 1, "errors": 0}},
            False,
            None,
        ),  # day 2: one retry failed
        ("finished", {"a": {"lists": 1, "fetched": 3, "failed": 0, "errors": 2}}, False, "2 pages met an error"),
        ("redis_unavailable", {}, False, "did not finish (redis_unavailable)"),
        (None, {}, False, "did not finish (never started)"),
    ],
)
def test_a_crawl_fails_when_it_did_not_do_its_work(reason, rows, seeded, problem):
    from news_crawler.crawl.summary import crawl_problem

    found = crawl_problem(reason, rows, seeded)
    assert (found is None) if problem is None else (found is not None and found.startswith(problem)), found
