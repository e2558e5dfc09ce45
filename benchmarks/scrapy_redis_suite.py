"""scrapy-redis' own dupefilter, queue, scheduler and connection tests, pointed at this
project's classes, against a real server. Run by hand (it downloads scrapy-redis' source
release from the package registry):

    .venv/bin/python benchmarks/scrapy_redis_suite.py

The tests are rewritten only where they name a class (``RFPDupeFilter`` -> ``RedisDupeFilter``,
``Scheduler`` -> ``RedisScheduler``, ``PriorityQueue``/``Base`` -> ``LeasedPriorityQueue``,
``scrapy_redis.connection`` -> ``news_crawler.connection``) and for pytest 8 (nose-style
``setup`` -> ``setup_method``). A failure listed in DIFFERENCES is a difference on purpose,
each one a row of the README's "Coming from scrapy-redis" table; any other failure is a bug,
and the script exits 1.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.redis_server import TestServer  # noqa: E402 - the same real server the tests use

VERSION = "0.9.1"
FILES = ["test_dupefilter.py", "test_queue.py", "test_scrapy_redis.py", "test_connection.py"]
REWRITES = [
    (
        r"from scrapy_redis\.dupefilter import RFPDupeFilter",
        "from news_crawler.frontier.dupefilter import RedisDupeFilter as RFPDupeFilter",
    ),
    (
        r"from scrapy_redis\.scheduler import Scheduler",
        "from news_crawler.frontier.scheduler import RedisScheduler as Scheduler",
    ),
    (
        r"from scrapy_redis\.queue import FifoQueue, LifoQueue, PriorityQueue",
        "from scrapy_redis.queue import FifoQueue, LifoQueue\n"
        "from news_crawler.frontier.leasing import LeasedPriorityQueue as PriorityQueue",
    ),
    (r"from scrapy_redis\.queue import Base", "from news_crawler.frontier.leasing import LeasedPriorityQueue as Base"),
    (r"from scrapy_redis import connection\b", "from news_crawler import connection"),
    (r"from scrapy_redis\.connection import", "from news_crawler.connection import"),
    (r"def setup\(self\)", "def setup_method(self)"),
    # a project using these components names the add-on (its defaults, filled once)
    (
        r"from scrapy\.utils\.test import get_crawler",
        "from scrapy.utils.test import get_crawler as scrapy_get_crawler\n\n\n"
        "def get_crawler(spidercls=None, settings_dict=None, **kwargs):\n"
        '    addon = {"ADDONS": {"news_crawler.addon.NewsCrawler": 0}}\n'
        "    return scrapy_get_crawler(spidercls, {**addon, **(settings_dict or {})}, **kwargs)\n",
    ),
]
NO_PICKLE = "JSON, not pickle: SCHEDULER_SERIALIZER = pickle is refused without SCHEDULER_ALLOW_PICKLE"
EMBEDDED = "no server named: the embedded server, not localhost:6379 (REDIS_URL / REDIS_HOST / REDIS_PORT)"
PARAMS = "REDIS_PARAMS defaults: 5 s socket timeout, 3 s connect, no retry on timeout, bytes (not decoded)"
DIFFERENCES = {
    "test_scrapy_redis.SchedulerTest.test_scheduler": NO_PICKLE,
    "test_scrapy_redis.SchedulerTest.test_scheduler_persistent": NO_PICKLE,
    "test_scrapy_redis.ConnectionTest.test_redis_default": EMBEDDED,
    "test_connection.TestGetRedis.test_custom_class": EMBEDDED,
    "test_connection.TestFromSettings.test_redis_cls_custom_path": EMBEDDED + " (a client class is built by from_url)",
    "test_connection.TestFromSettings.test_default_params": EMBEDDED + "; " + PARAMS,
    "test_connection.TestFromSettings.test_override_default_params": EMBEDDED + "; " + PARAMS,
    "test_dupefilter.TestFromMethods.test_from_crawler": "one client for everything (not scrapy_redis.connection's); "
    "the spider's persistent "
    "SCHEDULER_DUPEFILTER_KEY set unless DUPEFILTER_KEY names one (not a new dupefilter:<timestamp>)",
}

OPT_IN_DIFFERENCES = {
    "test_scrapy_redis.SchedulerTest.test_scheduler_persistent": "'Resuming crawl (2 requests scheduled)' goes to "
    "spider.logger: Spider.log() is deprecated since Scrapy 2.13",
}

# The documented opt-in, for a second run of the tests that ask for pickle.
OPT_IN = (r'"SCHEDULER_SERIALIZER": "pickle",', '"SCHEDULER_SERIALIZER": "pickle", "SCHEDULER_ALLOW_PICKLE": True,')


def fetch_tests(work: Path, opt_in: bool = False) -> Path:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            "--no-binary",
            ":all:",
            f"scrapy-redis=={VERSION}",
            "-d",
            str(work),
        ],
        check=True,
    )
    if not (work / f"scrapy_redis-{VERSION}").exists():
        with tarfile.open(next(work.glob("scrapy_redis-*.tar.gz"))) as tar:
            tar.extractall(work, filter="data")
    source = work / f"scrapy_redis-{VERSION}" / "tests"
    target = work / ("suite-opt-in" if opt_in else "suite")
    target.mkdir()
    for name in FILES:
        text = (source / name).read_text(encoding="utf-8")
        for pattern, replacement in REWRITES + ([OPT_IN] if opt_in else []):
            text = re.sub(pattern, replacement, text)
        (target / name).write_text(text, encoding="utf-8")
    return target


def run(suite: Path, server: TestServer) -> dict[str, str]:
    """Each test's outcome: "passed", "failed" or "skipped"."""
    # HOME: the tests that name no server start the embedded one, under this directory.
    env = {**os.environ, "REDIS_HOST": "127.0.0.1", "REDIS_PORT": str(server.port), "HOME": str(suite)}
    report = suite / "report.xml"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-o",
            "addopts=",
            "-n",
            "0",
            "--rootdir",
            str(suite),
            f"--junitxml={report}",
            *FILES,
        ],
        cwd=suite,
        env=env,
    )
    subprocess.run([sys.executable, "-m", "news_crawler.cli.crawler", "stop-server"], env=env, capture_output=True)
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = f"{case.get('classname')}.{case.get('name')}"
        bad = case.find("failure") is not None or case.find("error") is not None
        outcomes[name] = "failed" if bad else "skipped" if case.find("skipped") is not None else "passed"
    return outcomes


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        server = TestServer(Path(tmp) / "redis")
        try:
            outcomes = run(fetch_tests(Path(tmp)), server)
            opted = run(fetch_tests(Path(tmp), opt_in=True), server)
        finally:
            server.stop()
    passed = [n for n, o in outcomes.items() if o == "passed"]
    failed = [n for n, o in outcomes.items() if o == "failed"]
    unexpected = [n for n in failed if n not in DIFFERENCES]
    print(
        f"\nscrapy-redis {VERSION}'s tests against this project's classes: {len(outcomes)} run, "
        f"{len(passed)} passed, {len(failed) - len(unexpected)} differ on purpose, {len(unexpected)} failed"
    )
    for name in sorted(failed):
        print(f"  {name}: {DIFFERENCES.get(name, 'UNEXPECTED FAILURE')}")
    for name in sorted(set(DIFFERENCES) - set(failed)):
        print(f"  {name}: listed as a difference but passed")
    print("again with SCHEDULER_ALLOW_PICKLE = True added:")
    for name in (n for n, why in DIFFERENCES.items() if why == NO_PICKLE):
        why = OPT_IN_DIFFERENCES.get(name, "UNEXPECTED FAILURE") if opted.get(name) != "passed" else ""
        print(f"  {name}: {opted.get(name)}" + (f" ({why})" if why else ""))
        unexpected += [name] if why.startswith("UNEXPECTED") else []
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
