from __future__ import annotations

import gzip
import json
import os

import pytest

from news_crawler.connection.embedded import SOCKET_NAME, stop_server
from news_mirror.data import SHIPPED_DATA as DATA  # the excerpt the repository holds (data/)
from tests.redis_cluster import TestCluster
from tests.redis_server import TestServer


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto``: two workers more than the cores this process may use. Most tests spend much
    of their time waiting on a crawl subprocess, a server or a page worker, so one worker a
    core leaves a core idle part of the time (two cores: 357 s with two workers, 337 s with
    three; later, with more tests, 354 s with three and 333 s with four).
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still decides when it is set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own hook reads it
    return len(os.sched_getaffinity(0)) + 2


@pytest.fixture(scope="session", autouse=True)
def _own_cache_dir(tmp_path_factory):
    """The IDF cache of every table a test writes goes to a directory of the run's, not the
    user's ~/.cache, DATA_DIR is one of the run's, and crawls run without AutoThrottle
    (subprocesses inherit all three)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
        # what a command writes where no test says (a crawl's log file): the run's, not ~/.local/share
        mp.setenv("DATA_DIR", str(tmp_path_factory.mktemp("data")))
        # The test sites are local: AutoThrottle's start delay (0.5 s a site, halving) would be
        # waiting and nothing else, in every crawl a test starts. A test of politeness sets its own.
        mp.setenv("AUTOTHROTTLE_ENABLED", "False")
        yield
    # The embedded server is a daemon by design (tomorrow's cron run reuses it): the ones the
    # run's commands started under its directories stop with the run.
    for sock in tmp_path_factory.getbasetemp().rglob(SOCKET_NAME):
        stop_server(sock.parent)
    # Torn down last (the first session fixture set up): every other server is stopped by now,
    # and the page workers' pools, which live as long as their process, go as at its exit.
    from news_crawler.crawl.pool import shutdown_pools

    shutdown_pools()
    left = _processes_left() + [f"thread {t.name}" for t in _threads_left()]
    assert not left, f"the tests left these running: {left}"


def _processes_left() -> list[str]:
    """This process's live descendants (Linux: /proc), as their command lines."""
    import glob
    from pathlib import Path

    found, todo = [], [os.getpid()]
    while todo:
        pid = todo.pop()
        for children in glob.glob(f"/proc/{pid}/task/*/children"):
            for child in Path(children).read_text().split():
                try:
                    state = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()[0]
                    command = Path(f"/proc/{child}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                except OSError:
                    continue  # gone meanwhile
                if state != "Z" and "multiprocessing.resource_tracker" not in command:  # Python's own, ends with it
                    found.append(f"{child}: {command[:200]}")
                    todo.append(int(child))
    return found


def _threads_left() -> list:
    """Threads still running that would hold the process open at its exit."""
    import threading

    running = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    for t in running:
        t.join(timeout=10)  # a pool's idle thread ends on its own once the pool is shut down
    return [t for t in running if t.is_alive()]


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    server = TestServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture
def redis_client(redis_server):
    client = redis_server.client()
    client.flushall()
    yield client
    client.close()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A real three-master cluster (``redis_cluster.py``), one a test module."""
    c = TestCluster(tmp_path_factory.mktemp("cluster"))
    yield c
    c.stop()


@pytest.fixture
def cluster_client(cluster):
    from news_crawler import connection
    from news_crawler.config import plain_settings

    cluster.flushall()
    client = connection.from_settings(plain_settings({"REDIS_URL": cluster.url}))
    yield client
    client.close()


@pytest.fixture(scope="session")
def sina_articles() -> list[dict]:
    """The first 1,500 non-empty articles of the real sina corpus."""
    out = []
    with gzip.open(DATA.sina_corpus, "rt", encoding="utf-8") as f:
        for line in f:
            a = json.loads(line)
            if a["body"].strip():
                out.append(a)
            if len(out) >= 1500:
                break
    return out


@pytest.fixture(scope="session")
def fingerprinter():
    from news_crawler.dedup.fingerprint import Fingerprinter

    return Fingerprinter()


@pytest.fixture(scope="session")
def catalog():
    """Every saved page under its portal URL, the edited reprints, and the planted bad
    pages (a PDF, an empty page, a navigation-only page), as the mirror serves them."""
    from news_mirror.catalog import add_bad_pages, build_catalog

    catalog = build_catalog(DATA)
    add_bad_pages(catalog)
    return catalog


@pytest.fixture
def make_crawler(redis_server, redis_client):
    """``make_crawler(spidercls, settings, **spider_args)``: a Scrapy crawler built by
    ``project_crawler`` (plain Scrapy settings with this project's add-on) plus ``settings``
    and ``REDIS_URL`` of the test server, its spider created. Redis starts empty."""
    from tests.crawl_helpers import project_crawler

    def make(spidercls, settings=None, **spider_args):
        crawler = project_crawler(spidercls, settings_dict={"REDIS_URL": redis_server.url, **(settings or {})})
        crawler.spider = spidercls.from_crawler(crawler, **spider_args)
        return crawler

    return make
