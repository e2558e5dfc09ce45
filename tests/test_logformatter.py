"""Log lines about items name the article; they never print its body."""

import logging

from scrapy import Spider
from scrapy.exceptions import DropItem
from scrapy.http import HtmlResponse

from news_crawler.crawl.logformatter import ArticleLogFormatter
from news_crawler.items import ArticleItem
from news_crawler.outcomes.drops import NearDuplicate
from tests.crawl_helpers import project_crawler


def _line(entry):
    return entry["msg"] % entry["args"]


def test_items_are_named_by_url_and_title_never_printed_whole():
    spider = Spider("news")
    spider.crawler = project_crawler(Spider)
    item = ArticleItem(url="https://example.com/a.html", title="标题" * 40, body="正文很长。" * 2000)
    response = HtmlResponse("https://example.com/a.html", body=b"<html></html>")
    formatter = ArticleLogFormatter()

    scraped = formatter.scraped(item, response, spider)
    assert scraped["level"] == logging.DEBUG
    assert (
        _line(scraped)
        == f'Scraped from <200 https://example.com/a.html>: https://example.com/a.html "{"标题" * 29}标…"'
    )

    drop = NearDuplicate("near-duplicate of https://example.com/b.html (distance 2, rule simhash)", item["url"])
    assert str(drop) == (
        "near-duplicate of https://example.com/b.html (distance 2, rule simhash): https://example.com/a.html"
    )
    dropped = formatter.dropped(item, drop, response, spider)
    assert dropped["level"] == logging.INFO and "正文" not in _line(dropped)
    assert _line(dropped) == f"Dropped: {drop}"

    other = formatter.dropped(item, DropItem("not wanted"), response, spider)  # another pipeline's drop
    assert _line(other) == 'Dropped: not wanted: https://example.com/a.html "' + "标题" * 29 + '标…"'

    error = formatter.item_error(item, ValueError("bad"), response, spider)
    assert "正文" not in _line(error) and "https://example.com/a.html" in _line(error)
    assert "{'x': 1}" in _line(formatter.item_error({"x": 1}, ValueError("bad"), response, spider))
