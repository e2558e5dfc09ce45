"""The validation pipeline: every unusable page is a counted drop with its reason."""

import pytest
from scrapy import Spider
from scrapy.exceptions import DropItem

from news_crawler.items import ArticleItem
from news_crawler.pipelines.validate import ValidationPipeline
from tests.crawl_helpers import project_crawler


def pipeline(**settings):
    crawler = project_crawler(Spider, settings_dict=settings)
    return ValidationPipeline.from_crawler(crawler), crawler.stats


@pytest.mark.parametrize(
    "fields,reason",
    [
        ({"body": "", "invalid_reason": "not an HTML page (application/pdf)"}, "not_html"),
        ({"body": "   \n "}, "no_body"),
        ({"body": "短短的一句话。"}, "too_short"),
        ({"body": "", "invalid_reason": "not text (binary bytes)", "invalid_kind": "not_text"}, "not_text"),
        ({"body": "新闻正文" * 20 + "\ufffd\x01\ue000" * 10}, "not_text"),  # a body mostly unreadable
    ],
)
def test_unusable_items_are_dropped_and_counted(fields, reason):
    validate, stats = pipeline()
    with pytest.raises(DropItem):
        validate.process_item(ArticleItem(url="https://x.example/1", site="x", **fields))
    assert stats.get_value(f"articles/invalid_reason/{reason}") == 1


def test_a_real_article_passes_and_the_minimum_is_a_setting():
    validate, stats = pipeline(ARTICLE_MIN_CHARS=7)  # exactly the body's seven characters
    item = ArticleItem(url="https://x.example/1", site="x", body="短短的一句话。")
    assert validate.process_item(item) is item
    assert not [k for k in stats.get_stats() if k.startswith("articles/invalid")]
    with pytest.raises(DropItem):
        pipeline()[0].process_item(ArticleItem(url="https://x.example/1", site="x", body="短短的一句话。"))


def test_real_bodies_are_text_and_decoded_noise_is_not(sina_articles):
    import os
    import zlib

    from news_crawler.extraction.decode import decode_html, is_binary, is_text

    assert all(is_text(a["body"]) for a in sina_articles)
    for noise in (os.urandom(50_000), zlib.compress(("新闻" * 50_000).encode()), bytes(range(0x80, 0x100)) * 400):
        html, _ = decode_html(noise, "text/html")
        assert is_binary(noise) or not is_text(html)
