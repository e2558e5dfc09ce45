"""First pipeline step: an item without a usable article body is dropped with a counted reason."""

from __future__ import annotations

from scrapy.crawler import Crawler
from scrapy.statscollectors import StatsCollector

from news_crawler.config import with_defaults
from news_crawler.drops import InvalidArticle
from news_crawler.extraction.decode import is_text
from news_crawler.items import ArticleItem


class ValidationPipeline:
    def __init__(self, stats: StatsCollector, min_chars: int) -> None:
        self.stats = stats
        self.min_chars = min_chars

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ValidationPipeline:
        return cls(crawler.stats, with_defaults(crawler.settings).getint("ARTICLE_MIN_CHARS"))

    def invalid(self, item: ArticleItem, reason: str, key: str) -> InvalidArticle:
        self.stats.inc_value(f"articles/invalid_reason/{key}")
        return InvalidArticle(f"invalid article ({reason}): {item.get('url')}", log_level="INFO")

    def process_item(self, item: ArticleItem) -> ArticleItem:
        reason, kind = item.pop("invalid_reason", None), item.pop("invalid_kind", None)
        if reason:
            raise self.invalid(item, reason, kind or "not_html")
        body = (item.get("body") or "").strip()
        if not body:
            raise self.invalid(item, "no article text found on the page", "no_body")
        if not is_text(body):
            raise self.invalid(item, "not text (its characters are mostly unreadable)", "not_text")
        if len(body) < self.min_chars:
            raise self.invalid(
                item, f"article text too short ({len(body)} < ARTICLE_MIN_CHARS={self.min_chars})", "too_short"
            )
        return item
