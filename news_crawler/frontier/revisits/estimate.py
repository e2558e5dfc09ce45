"""How long until a start page is visited again: its state after each visit, and the interval.

A pure core (no Redis, no Scrapy), tested on its own. The design, and why:

- **A page's rate of new links** is estimated as new links found / seconds watched, both
  decayed with a memory of ``MEMORY`` seconds (an hour): the maximum-likelihood rate of a
  Poisson process (Cho and Garcia-Molina's model of page change), weighted to the recent
  past, so that a site's day and night and a burst of news move it within the hour, and a
  page that falls silent drifts to ``REVISIT_MAX``. A revisit sees how many *new* links the
  page shows (not merely whether it changed), so one visit is evidence of the whole count.
- **The interval** is ``sqrt(REVISIT_MIN / rate)``, the geometric mean of the floor and the
  page's mean gap between new links, clamped to ``[REVISIT_MIN, REVISIT_MAX]``. An article
  waits half an interval on average; with a fixed number of fetches to share, the total wait
  ``sum(rate_i * interval_i) / 2`` is least when ``interval_i`` is proportional to
  ``1 / sqrt(rate_i)`` (a Lagrange multiplier gives it at once): the busy pages are visited
  more often, but not so much more that the quiet pages' articles wait for hours. The scale
  puts a page that gains a link every ``REVISIT_MIN`` seconds at the floor.
- **A page that has never shown a new link** doubles its interval on every such visit
  (``GROWTH``): a rate cannot be estimated from nothing, and a page that never changes must
  reach ``REVISIT_MAX`` in a few visits, not the hours a decaying estimate would take. Its first
  new link hands it to the rate.
- **New links on the pages a visit led to** (the list's next pages, the sitemaps of a
  sitemap index) count as found by that visit, when they come.
- **The first visit** is a baseline: everything on the page is new to a fresh watcher, so
  its links say nothing about the rate; the next visit comes ``REVISIT_MIN`` later.
- **A failed visit** (a timeout, a 503) is no evidence: the interval stays and the page is
  visited again then. **A 304** is an unchanged visit.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

MEMORY = 3600.0  # seconds over which past visits' evidence fades by e
GROWTH = 2.0  # a page that never showed a new link: its interval's growth per visit
FORMAT = 1  # the state's format, recorded in it: any other is refused
RESULTS = ("new_links", "unchanged", "not_modified", "failed")


class StateFormatError(ValueError):
    """A state written in another format (another version of the crawler)."""


def stored(state: Any) -> str:
    """A state dataclass as the JSON Redis holds, its format recorded."""
    return json.dumps({"format": FORMAT, **asdict(state)}, separators=(",", ":"))


def from_stored(cls: Any, text: str | bytes, what: str, keys: str) -> Any:
    """The ``cls`` state of ``stored``'s JSON; ``StateFormatError`` naming ``what`` it is and
    the ``keys`` to delete, for any other format."""
    data: dict[str, Any] = json.loads(text)
    if data.pop("format", None) != FORMAT:
        raise StateFormatError(
            f"{what} of another format (an earlier version of the crawler wrote it): delete the spider's {keys}"
        )
    return cls(**data)


@dataclass
class PageState:
    """What the schedule knows of one start page (server times, seconds since the epoch)."""

    interval: float  # seconds until the next visit
    last: float  # when the last visit ended
    since: float  # when the first visit ended
    links: float = 0.0  # new links found, decayed by MEMORY
    watched: float = 0.0  # seconds between visits, decayed by MEMORY; 0: no new link yet
    span: float = 0.0  # seconds between the last visit and the one before
    etag: str = ""  # the page's validators, sent back as If-None-Match / If-Modified-Since
    modified: str = ""
    new_total: int = 0  # new links found, all told
    results: dict[str, int] = field(default_factory=dict)  # visits by result (RESULTS)

    def to_json(self) -> str:
        return stored(self)

    @classmethod
    def from_json(cls, text: str | bytes) -> PageState:
        what, keys = "a start page's revisit state", "revisit keys (<spider>:revisits, <spider>:revisits:due)"
        state: PageState = from_stored(cls, text, what, keys)
        return state

    @property
    def rate(self) -> float:
        """New links a second, as estimated (0 before the first one)."""
        return self.links / self.watched if self.watched > 0 else 0.0

    def per_day(self, now: float) -> float:
        """New links a day since the first visit."""
        return self.new_total * 86400.0 / max(now - self.since, 1.0)


def interval_for(rate: float, lo: float, hi: float) -> float:
    """``sqrt(lo / rate)`` clamped to ``[lo, hi]`` (``hi`` for a rate of 0)."""
    if rate <= 0:
        return hi
    return min(hi, max(lo, math.sqrt(lo / rate)))


def after_visit(
    state: PageState | None,
    now: float,
    result: str,
    new_links: int,
    lo: float,
    hi: float,
    etag: str = "",
    modified: str = "",
) -> PageState:
    """The page's state after a visit that ended at ``now`` with ``result`` (one of
    ``RESULTS``) and ``new_links`` links not seen before (a new state: ``state`` is left as it
    was); its ``interval`` is the wait for the next visit."""
    if result not in RESULTS:
        raise ValueError(f"a visit's result is one of {', '.join(RESULTS)}, got {result!r}")
    if state is None:  # the baseline: whatever is on the page now is no evidence of its rate
        state = PageState(interval=lo, last=now, since=now, etag=etag, modified=modified)
        state.results[result] = 1
        return state
    state = replace(state, results={**state.results, result: state.results.get(result, 0) + 1})
    elapsed = max(now - state.last, 0.0)
    state.last, state.span = now, elapsed
    if result == "failed":  # no evidence: the same interval again
        state.interval = min(hi, max(lo, state.interval))
        return state
    if result != "not_modified":  # a 304 keeps the validators it answered
        state.etag, state.modified = etag, modified
    state.new_total += new_links
    if state.watched == 0 and new_links == 0:  # never a new link yet: back off
        state.interval = min(hi, max(lo, state.interval * GROWTH))
        return state
    fade = math.exp(-elapsed / MEMORY)
    state.links = state.links * fade + new_links
    state.watched = state.watched * fade + max(elapsed, 1e-3)
    state.interval = interval_for(state.rate, lo, hi)
    return state


def with_more_links(state: PageState, new_links: int, lo: float, hi: float) -> PageState:
    """The page's state once list pages its last visit led to (the list's next pages, the
    sitemaps of a sitemap index) showed ``new_links`` more: counted as found by that visit
    (a new state; ``interval`` may be shorter)."""
    if new_links <= 0:
        return state
    state = replace(state, new_total=state.new_total + new_links, links=state.links + new_links)
    if state.watched == 0:  # the first new links: the last visit's span is the evidence
        state.watched = max(state.span, 1e-3)
    state.interval = interval_for(state.rate, lo, hi)
    return state
