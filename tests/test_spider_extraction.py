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
