"""Every count a crawl keeps, named in one place.

A count is a kind, what it counts and, for most, a site: ``add("outcomes", "kept", "sina")``.
It goes to Scrapy's stats as ``outcomes/kept/sina`` (what a crawl's log dumps at its end and
``metrics`` exports), and is kept by site, by its parts, for the summary: the per-site table
reads numbers, not key strings.
"""

from __future__ import annotations

import weakref
from collections import Counter, defaultdict
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # not at run time: `news-dedup` reaches this module and needs no Scrapy
    from scrapy.statscollectors import StatsCollector


def stat_name(kind: str, what: str, site: str = "") -> str:
    """The name of a count in Scrapy's stats: ``kind/what`` or ``kind/what/site``."""
    return f"{kind}/{what}/{site}" if site else f"{kind}/{what}"


class Counts:
    """The counts of one crawl (of one stats collector, shared by every component)."""

    def __init__(self, stats: StatsCollector) -> None:
        self.stats = stats
        self.sites: defaultdict[str, Counter[tuple[str, str]]] = defaultdict(Counter)

    @classmethod
    def of(cls, stats: StatsCollector) -> Counts:
        """The crawl's counts: the same object for every component of one stats collector."""
        counts = _COUNTS.get(stats)
        if counts is None:
            counts = _COUNTS[stats] = cls(stats)
        return counts

    def add(self, kind: str, what: str, site: str = "", n: int = 1) -> None:
        """``n`` more of ``kind``/``what`` (of ``site``); a negative ``n`` takes some back."""
        self.stats.inc_value(stat_name(kind, what, site), n)
        if site:
            self.sites[site][kind, what] += n

    def set(self, kind: str, what: str, value: int) -> None:
        """A count that is a state (round trips so far, leases reclaimed at the start)."""
        self.stats.set_value(stat_name(kind, what), value)

    def of_site(self, site: str, kind: str) -> dict[str, int]:
        """``{what: n}`` of one kind of a site's counts (its outcomes, its pages)."""
        return {what: n for (k, what), n in self.sites.get(site, Counter()).items() if k == kind}


_COUNTS: weakref.WeakKeyDictionary[StatsCollector, Counts] = weakref.WeakKeyDictionary()
