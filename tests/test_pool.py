"""The page workers: every call within its time limit, a stuck worker replaced, real processes."""

import asyncio
import os
import subprocess
import sys
import threading
import time

import pytest

from news_crawler.crawl.pool import PageTimeout, WorkerPool, dedup_config
from news_crawler.extraction.page import page_fields
from tests.crawl_helpers import ROOT, project_crawler

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
    # the thread that waits on a worker is named for it (a log line's threadName, a py-spy dump)
    assert any(t.name.startswith("page-worker") for t in threading.enumerate())


PROBE = """
import sys


def loaded():
    return sorted(m for m in ("scrapy", "twisted") if m in sys.modules)
"""
MAIN = """
import asyncio
import sys

import scrapy  # what a crawl's main module imports

import probe
from news_crawler.config import build_settings
from news_crawler.crawl.pool import WorkerPool, dedup_config

if __name__ == "__main__":
    main = sys.modules["__main__"]
    pool = WorkerPool(dedup_config(build_settings({})), 2, None, timeout=30.0)
    print(asyncio.run(pool.run(probe.loaded)), sys.modules["__main__"] is main)
"""


def test_a_page_worker_imports_what_pages_need_not_the_command_that_started_it(tmp_path):
    """spawn would run the crawl's main module again in every worker (Scrapy, Twisted): a
    worker runs only the pool's code, and the main module stays the crawl's."""
    (tmp_path / "crawl_main.py").write_text(MAIN)
    (tmp_path / "probe.py").write_text(PROBE)
    done = subprocess.run(
        [sys.executable, str(tmp_path / "crawl_main.py")],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["[]", "True"]


def test_shutting_down_the_pools_stops_every_worker_of_every_pool():
    from news_crawler.crawl.pool import shutdown_pools

    pools = [WorkerPool(CONFIG, 1, None, timeout=t) for t in (5.0, 6.0)]  # two configurations: two pools
    for pool in pools:
        assert extract(pool)["title"] == "标题"
    workers = [pid for pool in pools for pid in pool.get().pids()]
    assert len(workers) == 2
    shutdown_pools()
    for pid in workers:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
