"""Scrapy's log lines about items, with an article named instead of printed whole.

Scrapy logs every dropped item, and at DEBUG every scraped one, with the whole item: here
that is the article's body, kilobytes a line, for every near-duplicate of a daily crawl.
This project's drops already name the URL (and what a near-duplicate duplicates) in their
message; any other dropped, scraped or failing item is named by its URL and title.
"""

from __future__ import annotations

from typing import Any, cast

from itemadapter import ItemAdapter, is_item
from scrapy.logformatter import LogFormatter, LogFormatterResult

from news_crawler.outcomes.drops import ArticleDrop
from news_crawler.printable import printable

TITLE_CHARS = 60


def name_of(item: Any) -> str:
    """``<url> "<title>"`` of an article; the start of its repr for anything else."""
    fields = ItemAdapter(item) if is_item(item) else {}
    if not fields.get("url") and not fields.get("title"):
        return repr(item)[:200]
    title = printable(fields.get("title") or "", 10 * TITLE_CHARS)
    title = title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…"
    return f'{printable(fields.get("url") or "(no url)", 500)} "{title}"'


def _args(entry: LogFormatterResult) -> dict[str, Any]:
    """The arguments of Scrapy's own entry (a dict, for the entries overridden here)."""
    return cast(dict[str, Any], entry["args"])


class ArticleLogFormatter(LogFormatter):
    def scraped(self, item: Any, response: Any, spider: Any) -> LogFormatterResult:
        entry = super().scraped(item, response, spider)
        return {**entry, "msg": "Scraped from %(src)s: %(item)s", "args": {**_args(entry), "item": name_of(item)}}

    def dropped(self, item: Any, exception: BaseException, response: Any, spider: Any) -> LogFormatterResult:
        entry = super().dropped(item, exception, response, spider)
        if isinstance(exception, ArticleDrop):
            return {**entry, "msg": "Dropped: %(exception)s", "args": {"exception": printable(exception, 1000)}}
        return {
            **entry,
            "msg": "Dropped: %(exception)s: %(item)s",
            "args": {"exception": printable(exception, 1000), "item": name_of(item)},
        }

    def item_error(self, item: Any, exception: BaseException, response: Any, spider: Any) -> LogFormatterResult:
        entry = super().item_error(item, exception, response, spider)
        return {**entry, "args": {**_args(entry), "item": name_of(item)}}
