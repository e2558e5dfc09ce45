"""Run several spiders at once in one process and return their per-site summary."""

from __future__ import annotations

import logging
from typing import Any

from scrapy.crawler import CrawlerProcess
from scrapy.settings import Settings

from news_crawler.mirror.handler import mirror_settings
from news_crawler.spiders.portals import PORTALS
from news_crawler.summary import summarize


def project_settings(overrides: dict[str, Any] | None = None) -> Settings:
    """The project's settings (``news_crawler.settings``) with ``overrides`` on top."""
    settings = Settings()
    settings.setmodule("news_crawler.settings", priority="project")
    for key, value in (overrides or {}).items():
        settings.set(key, value, priority="cmdline")
    if settings.get("MIRROR_URL"):
        settings.setdict(mirror_settings(), priority="cmdline")
    return settings


def all_spider_names() -> list[str]:
    return [s.name for s in PORTALS]


def run_spiders(names: list[str], overrides: dict[str, Any] | None = None,
                spider_args: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """Crawl ``names`` concurrently until each finishes; return ``{spider: {reason, sites, stats}}``."""
    logging.getLogger("jieba").setLevel(logging.WARNING)
    process = CrawlerProcess(project_settings(overrides))
    crawlers = []
    for name in names:
        crawler = process.create_crawler(name)
        crawlers.append(crawler)
        process.crawl(crawler, **(spider_args or {}))
    process.start()
    out = {}
    for crawler in crawlers:
        stats = crawler.stats.get_stats()
        out[crawler.spidercls.name] = {"reason": stats.get("finish_reason"), "sites": summarize(stats),
                                       "pages": stats.get("response_received_count", 0)}
    return out
