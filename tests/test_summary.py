"""The per-site crawl summary: from stats, to a table, and to SUMMARY_FILE at close."""

import json

import pytest
from scrapy import Spider

from news_crawler.crawl.summary import CrawlSummary, format_table, summarize
from tests.crawl_helpers import project_crawler

STATS = {
    "pages/article/sina": 6,  # an article over two pages: one outcome
    "pages/list/sina": 2,
    "outcomes/kept/sina": 3,
    "outcomes/duplicate/sina": 1,
    "outcomes/invalid/sina": 1,
    "outcomes/failed/163": 1,
    "outcomes/given_up/163": 1,
    "dedup/dropped_by/simhash": 1,
    "response_received_count": 7,
}


def test_stats_become_rows_per_site():
    rows = summarize(STATS)
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
        for key, value in STATS.items():
            crawler.stats.set_value(key, value)
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
