"""Per-site summary of a crawl, from its stats: logged at the end and optionally saved as JSON."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.statscollectors import StatsCollector

logger = logging.getLogger(__name__)

COLUMNS = {
    "fetched": "pages/article/",
    "lists": "pages/list/",
    "kept": "dedup/kept/",
    "dropped": "dedup/dropped/",
    "invalid": "articles/invalid/",
    "gone": "outcomes/gone/",
    "robots": "outcomes/robots/",
    "failed": "pages/failed/",
    "errors": "outcomes/error/",
}


def summarize(stats: dict[str, Any]) -> dict[str, dict[str, int]]:
    """``{site: {fetched, lists, kept, dropped, invalid, gone, robots, failed, errors}}`` from a
    crawl's stats."""
    out: dict[str, dict[str, int]] = {}
    for key, value in stats.items():
        for column, prefix in COLUMNS.items():
            if isinstance(key, str) and key.startswith(prefix):
                site = key[len(prefix) :]
                out.setdefault(site, dict.fromkeys(COLUMNS, 0))[column] += int(value)
    return out


def crawl_problem(reason: str | None, by_site: dict[str, dict[str, int]], seeded: bool = False) -> str | None:
    """Why a crawl counts as failed (exit 1), in a few words; None when it did its work. A
    cluster worker (``seeded``) may rightly find no start page to fetch."""

    def total(column: str) -> int:
        return sum(row.get(column, 0) for row in by_site.values())

    if reason != "finished":
        return f"did not finish ({reason or 'never started'})"
    if not total("lists") and not total("fetched"):  # not one page came back
        if not seeded:
            return "could fetch none of its start pages (no network, a DNS failure, the site down?): see the log"
        if total("failed"):  # a worker may rightly have had nothing to fetch; not so if it all failed
            return f"every request failed ({total('failed')}): see the log"
    if total("errors"):
        return (
            f"{total('errors')} pages met an error (a callback or pipeline raised, or a feed could not be "
            "written); they are fetched again on the next run: see the log"
        )
    return None


def format_table(by_site: dict[str, dict[str, int]]) -> str:
    lines = [f"{'site':<12}" + "".join(f"{c:>9}" for c in COLUMNS)]
    totals = dict.fromkeys(COLUMNS, 0)
    for site in sorted(by_site):
        row = by_site[site]
        lines.append(f"{site:<12}" + "".join(f"{row[c]:>9}" for c in COLUMNS))
        for c in COLUMNS:
            totals[c] += row[c]
    lines.append(f"{'total':<12}" + "".join(f"{totals[c]:>9}" for c in COLUMNS))
    return "\n".join(lines)


class CrawlSummary:
    """Enabled always; writes ``SUMMARY_FILE`` (JSON Lines, one line per spider run) when set."""

    def __init__(self, stats: StatsCollector, path: str) -> None:
        self.stats = stats
        self.path = path
        self.started = time.monotonic()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CrawlSummary:
        ext = cls(crawler.stats, crawler.settings.get("SUMMARY_FILE", ""))
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def spider_opened(self, spider: Spider) -> None:
        self.started = time.monotonic()

    def spider_closed(self, spider: Spider, reason: str) -> None:
        by_site = summarize(self.stats.get_stats())
        logger.info("crawl summary for %s (%s):\n%s", spider.name, reason, format_table(by_site))
        if self.path:
            record = {
                "spider": spider.name,
                "reason": reason,
                "seconds": round(time.monotonic() - self.started, 1),
                "sites": by_site,
            }
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(record) + "\n")
