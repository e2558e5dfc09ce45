"""The page workers: every call within its time limit, a stuck worker replaced, real processes."""

import asyncio
import os
import threading
import time

import pytest

from news_crawler.crawl.pool import PageTimeout, WorkerPool, dedup_config
from news_crawler.extraction.page import page_fields
from tests.crawl_helpers import project_crawler

PAGE = (
    "<html><head><title>标题</title></head><body><h1>标题</h1><p>" + "正文内容，写得很长。" * 20 + "</p></body></html>"
)
CONFIG = dedup_config(project_crawler().settings)


def extract(pool: WorkerPool) -> dict:
    return asyncio.run(pool.run(page_fields, PAGE.encode(), "text/html", "https://a.cn/news/1.html"))


@pytest.mark.parametrize("processes", [1, 0], ids=["process", "thread"])
def test_a_call_past_the_limit_raises_and_the_next_one_runs_on_a_fresh_worker(processes):
    crawler = project_crawler()
    pool = WorkerPool(CONFIG, processes, crawler, timeout=1.0)
    assert "正文内容" in extract(pool)["body"]
    before = pool.get().pids()
    # A page that would hold its worker for ten minutes: a process is killed; a thread cannot
    # be, so it waits on an event that this test sets once done (no thread left behind).
    stuck = threading.Event()
    try:
        with pytest.raises(PageTimeout, match="took longer than 1 s"):
            asyncio.run(pool.run(time.sleep, 600) if processes else pool.run(stuck.wait, 600))
    finally:
        stuck.set()
    assert crawler.stats.get_value("pool/restarted") == 1
    assert "正文内容" in extract(pool)["body"]  # not queued behind the stuck call
    if processes:
        (stuck,) = before
        assert pool.get().pids() and stuck not in pool.get().pids()
        with pytest.raises(ProcessLookupError):
            os.kill(stuck, 0)  # killed, not left running


def test_an_exception_in_a_call_is_raised_and_the_worker_kept():
    pool = WorkerPool(CONFIG, 1, None, timeout=5.0)
    assert extract(pool)["title"] == "标题"
    (worker,) = pool.get().pids()
    with pytest.raises(ZeroDivisionError):
        asyncio.run(pool.run(divmod, 1, 0))
    assert pool.get().pids() == [worker]
