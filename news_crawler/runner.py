"""Run several spiders at once in one process and return their per-site summary."""

from __future__ import annotations

import logging
from typing import Any

from scrapy.crawler import CrawlerProcess

from news_crawler.config import build_settings
from news_crawler.spiders.portals import PORTALS
from news_crawler.summary import summarize


def all_spider_names() -> list[str]:
    return [s.name for s in PORTALS]


def run_spiders(names: list[str], overrides: dict[str, Any] | None = None,
                spider_args: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """Crawl ``names`` concurrently until each finishes; return ``{spider: {reason, sites, pages}}``."""
    logging.getLogger("jieba").setLevel(logging.WARNING)
    process = CrawlerProcess(build_settings(overrides))
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


def merge_sites(results: dict[str, dict[str, Any]]) -> dict[str, dict[str, int]]:
    """The per-site rows of several spiders' results, added up."""
    sites: dict[str, dict[str, int]] = {}
    for result in results.values():
        for site, row in result["sites"].items():
            into = sites.setdefault(site, dict.fromkeys(row, 0))
            for k, v in row.items():
                into[k] += v
    return sites
