"""A project laid out like scrapy-redis' example project, switched to this project's classes
by changing ``SCHEDULER`` and ``DUPEFILTER_CLASS`` and naming the add-on: it crawls real
saved pages over HTTP, persists, and its next run fetches nothing it fetched before."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from news_mirror.server import Mirror, serve
from tests.crawl_helpers import ROOT

# scrapy-redis 0.9.1's example-project/example/settings.py, with the two lines switched and
# the add-on named.
SETTINGS = """
SPIDER_MODULES = ["example.spiders"]
NEWSPIDER_MODULE = "example.spiders"
USER_AGENT = "scrapy-redis (+https://github.com/rolando/scrapy-redis)"
ADDONS = {"news_crawler.addon.NewsCrawler": 0}
DUPEFILTER_CLASS = "news_crawler.frontier.dupefilter.RedisDupeFilter"  # was scrapy_redis.dupefilter.RFPDupeFilter
SCHEDULER = "news_crawler.frontier.scheduler.RedisScheduler"           # was scrapy_redis.scheduler.Scheduler
SCHEDULER_PERSIST = True
ITEM_PIPELINES = {
    "example.pipelines.ExamplePipeline": 300,
    "scrapy_redis.pipelines.RedisPipeline": 400,
}
LOG_LEVEL = "DEBUG"
DOWNLOAD_DELAY = 1

# Not part of the switch: this test fetches from the local mirror of saved pages, at once.
import os
DOWNLOAD_HANDLERS = {"http": "news_mirror.handler.MirrorDownloadHandler",
                     "https": "news_mirror.handler.MirrorDownloadHandler"}
MIRROR_URL = os.environ["MIRROR_URL"]
REDIS_URL = os.environ["REDIS_URL"]
DOWNLOAD_DELAY = 0
"""

PIPELINES = """
from datetime import datetime, timezone


class ExamplePipeline:
    def process_item(self, item, spider):
        item["crawled"] = datetime.now(timezone.utc)
        item["spider"] = spider.name
        return item
"""

# A CrawlSpider like the example's dmoz spider, over one portal's saved list pages.
SPIDER = """
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


class SinaSpider(CrawlSpider):
    name = "sina"
    start_urls = ["https://news.sina.com.cn/", "https://news.sina.com.cn/china/"]
    rules = [Rule(LinkExtractor(allow=r"/doc-i[a-z0-9]+\\.shtml"), callback="parse_article")]

    def parse_article(self, response):
        yield {"url": response.url, "title": response.css("title::text").get()}
"""


@pytest.fixture
def example_project(tmp_path):
    files = {
        "scrapy.cfg": "[settings]\ndefault = example.settings\n",
        "example/__init__.py": "",
        "example/settings.py": SETTINGS,
        "example/pipelines.py": PIPELINES,
        "example/spiders/__init__.py": "",
        "example/spiders/sina.py": SPIDER,
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


def run_example(project, redis_url, mirror_url, name):
    env = {
        **os.environ,
        "MIRROR_URL": mirror_url,
        "REDIS_URL": redis_url,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(project)]),
    }
    env.pop("SCRAPY_SETTINGS_MODULE", None)
    log = project / f"{name}.log"
    with open(log, "w") as out:
        code = subprocess.run(
            [sys.executable, "-m", "scrapy", "crawl", "sina"],
            cwd=project,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=300,
        ).returncode
    assert code == 0, log.read_text()[-3000:]
    return log.read_text()


def test_the_switched_example_project_crawls_persists_and_fetches_nothing_twice(
    example_project, catalog, redis_server, redis_client
):
    mirror = Mirror(catalog, day=1)
    server = serve(mirror)
    mirror_url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        day1 = {p.url for p in catalog.visible("sina", 1)}
        run_example(example_project, redis_server.url, mirror_url, "first")
        first = mirror.article_requests()
        assert len(first) == len(day1) > 3 and len(set(first)) == len(first)
        items = [json.loads(raw) for raw in redis_client.lrange("sina:items", 0, -1)]
        assert {i["url"] for i in items} == day1 and all(i["spider"] == "sina" for i in items)
        assert redis_client.scard("sina:dupefilter") >= len(day1)  # persisted

        since = len(mirror.requests)
        run_example(example_project, redis_server.url, mirror_url, "second")
        assert mirror.article_requests(since) == []  # nothing seen before is fetched again
        assert redis_client.llen("sina:items") == len(items)

        mirror.day, since = 2, len(mirror.requests)
        run_example(example_project, redis_server.url, mirror_url, "third")
        new = {p.url for p in catalog.visible("sina", 2)} - day1
        assert len(mirror.article_requests(since)) == len(new) > 0  # only the new articles
    finally:
        server.shutdown()
