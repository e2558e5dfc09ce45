"""Per-site summary of a crawl, from its stats: logged at the end and optionally saved as JSON.

Its numbers are the outcomes the run recorded (one count a URL, kept by the tracker in the
crawl's ``Counts``), read through ``row_from_outcomes``, the function the daily report reads
a day's outcome counts with: the two count the same facts the same way.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

from scrapy import Spider, signals
from scrapy.crawler import Crawler
from scrapy.statscollectors import StatsCollector

from news_crawler.config import setting_path
from news_crawler.crawl.counts import Counts

logger = logging.getLogger(__name__)

COLUMNS = ("fetched", "lists", "kept", "dropped", "invalid", "gone", "robots", "failed", "errors")
# The column of each outcome (outcomes/store.py); "fetched" is every article page that came back
# and was judged: kept, dropped, invalid or an error. List pages are no outcome: "lists" is
# the list pages that came back (``pages/list/<site>``), and a failed one is "failed".
OUTCOME_COLUMN = {
    "kept": "kept",
    "duplicate": "dropped",
    "dropped": "dropped",
    "invalid": "invalid",
    "gone": "gone",
    "robots": "robots",
    "failed": "failed",
    "given_up": "failed",
    "error": "errors",
}
FETCHED = ("kept", "dropped", "invalid", "errors")


def row_from_outcomes(counts: dict[str, int], lists: int = 0) -> dict[str, int]:
    """One site's row from how many URLs got each outcome (and how many list pages came back)."""
    row = dict.fromkeys(COLUMNS, 0)
    for outcome, n in counts.items():
        if outcome in OUTCOME_COLUMN:
            row[OUTCOME_COLUMN[outcome]] += int(n)
    row["fetched"] = sum(row[c] for c in FETCHED)
    row["lists"] = lists
    return row


def summarize(counts: Counts) -> dict[str, dict[str, int]]:
    """``{site: {fetched, lists, kept, dropped, invalid, gone, robots, failed, errors}}`` from a
    crawl's counts: each site's outcomes and the list pages that came back."""
    return {
        site: row_from_outcomes(counts.of_site(site, "outcomes"), counts.of_site(site, "pages").get("list", 0))
        for site in counts.sites
    }


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
        path = crawler.settings.get("SUMMARY_FILE") or ""
        ext = cls(crawler.stats, str(setting_path(crawler.settings, "SUMMARY_FILE")) if path else "")
        crawler.signals.connect(ext.spider_opened, signal=signals.spider_opened)
        crawler.signals.connect(ext.spider_closed, signal=signals.spider_closed)
        return ext

    def spider_opened(self, spider: Spider) -> None:
        self.started = time.monotonic()

    def spider_closed(self, spider: Spider, reason: str) -> None:
        by_site = summarize(Counts.of(self.stats))
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
