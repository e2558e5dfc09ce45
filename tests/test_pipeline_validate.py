"""The validation pipeline: every unusable page is a counted drop with its reason."""

import pytest
from scrapy import Spider
from scrapy.exceptions import DropItem
from scrapy.utils.test import get_crawler

from news_crawler.items import ArticleItem
from news_crawler.pipelines.validate import ValidationPipeline


def pipeline(**settings):
    crawler = get_crawler(Spider, settings_dict=settings)
    return ValidationPipeline.from_crawler(crawler), crawler.stats


@pytest.mark.parametrize("fields,reason", [
    ({"body": "", "invalid_reason": "not an HTML page (application/pdf)"}, "not_html"),
    ({"body": "   \n "}, "no_body"),
    ({"body": "短短的一句话。"}, "too_short"),
])
def test_unusable_items_are_dropped_and_counted(fields, reason):
    validate, stats = pipeline()
    with pytest.raises(DropItem):
        validate.process_item(ArticleItem(url="https://x.example/1", site="x", **fields))
    assert stats.get_value(f"articles/invalid_reason/{reason}") == 1 and stats.get_value("articles/invalid/x") == 1


def test_a_real_article_passes_and_the_minimum_is_a_setting():
    validate, stats = pipeline(ARTICLE_MIN_CHARS=5)
    item = ArticleItem(url="https://x.example/1", site="x", body="短短的一句话。")
    assert validate.process_item(item) is item and stats.get_value("articles/valid/x") == 1
