"""Article pages are extracted in the worker pool (the reactor thread only moves bytes);
a portal's own ``extract`` still runs, in the crawl process."""

import asyncio

import pytest
from scrapy.http import HtmlResponse, Request

from news_crawler.extraction import Article
from news_crawler.extraction.page import page_fields
from news_crawler.spiders.news import NewsSpider
from news_mirror.data import SHIPPED_DATA

PAGE = SHIPPED_DATA.page(SHIPPED_DATA.gne, "tests/sina/1.html")
URL = "https://news.sina.com.cn/c/2019-06-01/doc-ihvhiews6141112.shtml"


class Plain(NewsSpider):
    name = "plain"
    start_urls = ["https://news.sina.com.cn/"]
    allow = [r"/doc-"]


class OwnExtraction(Plain):
    name = "own"

    def extract(self, html, response):
        return Article(title="自己的标题", body="自己的正文" * 20)


def items(spider, response):
    async def collect():
        return [item async for item in spider.parse_article(response)]

    return asyncio.run(collect())


@pytest.fixture
def page():
    return HtmlResponse(URL, body=PAGE, headers={"Content-Type": "text/html"}, request=Request(URL))


@pytest.mark.parametrize("processes", [1, 0], ids=["worker process (the default kind)", "thread"])
def test_the_pool_extracts_what_the_extractor_gives(make_crawler, page, processes):
    spider = make_crawler(Plain, {"DEDUP_PROCESSES": processes}).spider
    (item,) = items(spider, page)
    expected = page_fields(page.body, "text/html", URL)
    assert expected.pop("next_page") is None  # a one-page article
    assert {k: item[k] for k in expected} == expected and len(item["body"]) > 200
    assert (item["url"], item["site"]) == (URL, "news.sina.com.cn")


def test_a_portal_override_of_extract_is_used(make_crawler, page):
    (item,) = items(make_crawler(OwnExtraction).spider, page)
    assert item["title"] == "自己的标题" and item["body"].startswith("自己的正文")


def test_a_response_that_is_not_a_page_is_marked_invalid(make_crawler):
    pdf = HtmlResponse(URL, body=b"%PDF-1.4", headers={"Content-Type": "application/pdf"}, request=Request(URL))
    (item,) = items(make_crawler(Plain, {"DEDUP_PROCESSES": 0}).spider, pdf)
    assert item["invalid_reason"] == "not an HTML page (application/pdf)" and item["body"] == ""


@pytest.mark.parametrize("spidercls", [Plain, OwnExtraction], ids=["in the pool", "a portal's own extraction"])
def test_the_item_comes_with_its_fingerprint_and_the_pipeline_makes_no_second_trip(make_crawler, page, spidercls):
    from news_crawler.dedup.fingerprint import to_hex
    from news_crawler.dedup.from_settings import fingerprinter_from_settings
    from news_crawler.pipelines.dedup import NearDuplicatePipeline

    crawler = make_crawler(spidercls, {"DEDUP_PROCESSES": 0, "DEDUP_NAMESPACE": "trip"})
    (item,) = items(crawler.spider, page)
    fingerprint, why = item["fingerprint"]
    expected = fingerprinter_from_settings(crawler.settings).fingerprint(item["body"], item["title"])
    assert why is None and fingerprint == expected

    class NoTrip:  # the pipeline's pool: asked for nothing
        async def with_fingerprinter(self, *args):
            raise AssertionError("the body went to the pool a second time")

    pipeline = NearDuplicatePipeline.from_crawler(crawler)
    pipeline.pool = NoTrip()
    kept = asyncio.run(pipeline.process_item(item))
    assert "fingerprint" not in kept and kept["simhash"] == to_hex(fingerprint.value)


def test_an_article_over_pages_is_fingerprinted_once_whole():
    from news_crawler.crawl.page_work import finished
    from news_crawler.crawl.pool import fingerprint_with
    from news_crawler.dedup.fingerprint import Fingerprinter

    fingerprinter = Fingerprinter()
    first_page = {
        "title": "标题",
        "body": "第一页的正文，讲了一件事。" * 10,
        "images": [],
        "next_page": "https://a.cn/1_2.html",
    }
    first = finished(fingerprinter, first_page, "https://a.cn/1.html", None, False, True)
    assert "fingerprint" not in first and first["url"] == "https://a.cn/1.html"  # a page follows
    first.pop("next_page")
    second_page = {"title": "标题", "body": "第二页的正文，讲完了它。" * 10, "images": [], "next_page": None}
    whole = finished(fingerprinter, second_page, "https://a.cn/1_2.html", first, False, True)
    assert whole["url"] == "https://a.cn/1.html" and whole["body"].startswith("第一页") and "第二页" in whole["body"]
    assert whole["fingerprint"] == fingerprint_with(fingerprinter, whole["body"], "标题")
    limit = finished(fingerprinter, {**first_page, "images": []}, "https://a.cn/1.html", None, True, True)
    assert limit["fingerprint"][0] is not None  # the last page the spider takes: no page follows it
    assert "fingerprint" not in finished(fingerprinter, second_page, "https://a.cn/1_2.html", first, False, False)
