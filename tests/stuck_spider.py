"""The generic spider with a page slow by construction: its work on ``STUCK_PATH`` waits for an
event that never comes, so the pool's time limit, not the machine's speed, ends it."""

from __future__ import annotations

import threading
from typing import Any

from news_crawler.crawl.page_work import article_page
from news_crawler.spiders.news import NewsSpider

STUCK_PATH = "/news/46.html"


def stuck_on_one_page(fingerprinter: Any, body: bytes, content_type: str, url: str, *rest: Any) -> dict[str, Any]:
    if url.endswith(STUCK_PATH):
        threading.Event().wait()  # never set: the worker is killed at EXTRACT_TIMEOUT
    return article_page(fingerprinter, body, content_type, url, *rest)


class StuckNewsSpider(NewsSpider):
    name = "news"  # with SPIDER_MODULES=tests.stuck_spider, the generic spider is this one
    page_work = staticmethod(stuck_on_one_page)
