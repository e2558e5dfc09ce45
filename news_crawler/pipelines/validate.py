"""First pipeline step: an item without a usable article body is dropped with a counted reason."""

from __future__ import annotations

from scrapy.crawler import Crawler
from scrapy.statscollectors import StatsCollector

from news_crawler.crawl.counts import Counts
from news_crawler.extraction.decode import is_text
from news_crawler.extraction.removed import notice_page
from news_crawler.items import ArticleItem
from news_crawler.outcomes.drops import InvalidArticle
from news_crawler.printable import printable


def unusable(body: str, min_chars: int, title: str = "") -> tuple[str, str] | None:
    """``(reason, kind)`` when ``body`` is no usable article text (or, with its ``title``, an
    error page's or a removal notice's), else None."""
    body = body.strip()
    if not body:
        return "no article text found on the page", "no_body"
    notice = notice_page(title, body)
    if notice:
        return f"an error or removal notice, not an article ({printable(notice, 60)!r})", "notice"
    if not is_text(body):
        return "not text (its characters are mostly unreadable)", "not_text"
    if len(body) < min_chars:
        return f"article text too short ({len(body)} < ARTICLE_MIN_CHARS={min_chars})", "too_short"
    return None


class ValidationPipeline:
    def __init__(self, stats: StatsCollector, min_chars: int) -> None:
        self.counts = Counts.of(stats)
        self.min_chars = min_chars

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> ValidationPipeline:
        return cls(crawler.stats, crawler.settings.getint("ARTICLE_MIN_CHARS"))

    def invalid(self, item: ArticleItem, reason: str, key: str) -> InvalidArticle:
        self.counts.add("articles", f"invalid_reason/{key}")
        return InvalidArticle(f"invalid article ({reason})", item.get("url") or "")

    def process_item(self, item: ArticleItem) -> ArticleItem:
        reason, kind = item.pop("invalid_reason", None), item.pop("invalid_kind", None)
        if reason:
            raise self.invalid(item, reason, kind or "not_html")
        problem = unusable(item.get("body") or "", self.min_chars, item.get("title") or "")
        if problem:
            raise self.invalid(item, *problem)
        return item
