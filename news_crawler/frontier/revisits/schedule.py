"""The revisit schedule in Redis, shared by every watcher of a spider.

Two keys a spider (``REVISIT_KEY``, the spider's name a hash tag on a cluster):

- ``<spider>:revisits:due``, a sorted set: start page URL -> when it is next due, in the
  server's seconds (``TIME``), so that watchers on machines whose clocks differ agree;
- ``<spider>:revisits``, a hash: start page URL -> its state (``estimate.PageState`` as JSON).

A watcher claims the pages that are due in one Lua step that also pushes each one
``claim_seconds`` into the future: no other watcher takes a page while its visit runs, and a
page whose watcher dies is due again when the claim runs out. The visit's end writes the new
state and the next due time in one step, only if the state is still the one the new state was
computed from (compare and set: two watchers never overwrite each other's visit).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from news_crawler.connection import spider_key
from news_crawler.frontier.revisits.estimate import PageState, after_visit, with_more_links

_LUA = Path(__file__).parent
logger = logging.getLogger(__name__)


@dataclass
class Claimed:
    url: str
    state: PageState | None  # None: never visited


@dataclass
class Claims:
    pages: list[Claimed]  # the pages now this watcher's to visit
    wait: float  # seconds until the first page is due after these (math.inf: none scheduled)


@dataclass
class ScheduledPage:
    url: str
    due: float  # server seconds
    state: PageState | None


class RevisitSchedule:
    def __init__(self, client: Any, key: str, lo: float, hi: float, claim_seconds: float) -> None:
        self.client = client
        self.key = key
        self.due_key = f"{key}:due"
        self.lo = lo
        self.hi = hi
        self.claim_seconds = claim_seconds
        self._claim = client.register_script((_LUA / "claim.lua").read_text(encoding="utf-8"))
        self._register = client.register_script((_LUA / "register.lua").read_text(encoding="utf-8"))
        self._visited = client.register_script((_LUA / "visited.lua").read_text(encoding="utf-8"))
        self._sooner = client.register_script((_LUA / "sooner.lua").read_text(encoding="utf-8"))

    @classmethod
    def for_spider(cls, client: Any, settings: Any, spider: str) -> RevisitSchedule:
        """The schedule of ``spider`` with its settings (a site's own ``revisit_min`` and
        ``revisit_max`` are in them)."""
        lo = settings.getfloat("REVISIT_MIN")
        return cls(
            client,
            spider_key(settings.get("REVISIT_KEY"), spider, client),
            lo,
            max(lo, settings.getfloat("REVISIT_MAX")),  # a site's revisit_min past the global maximum wins
            # A visit is one fetch (no retries) of at most DOWNLOAD_TIMEOUT, which may first wait
            # as long for a free slot of the site's, then a parse of one page.
            2 * settings.getfloat("DOWNLOAD_TIMEOUT") + 10.0,
        )

    def register(self, urls: list[str]) -> int:
        """Schedule exactly ``urls`` (a new page due at once, a known one as it was); returns
        how many were new."""
        return int(self._register(keys=[self.due_key, self.key], args=list(dict.fromkeys(urls))))

    def claim(self, limit: int = 100) -> Claims:
        """The due pages, at most ``limit``, now this watcher's to visit, and how long until
        the next one is due (by the server's clock: watchers' clocks may differ)."""
        raw = self._claim(keys=[self.due_key, self.key], args=[self.claim_seconds, limit])
        pages = []
        for n in range(2, len(raw), 2):
            url = raw[n].decode() if isinstance(raw[n], bytes) else raw[n]
            pages.append(Claimed(url, PageState.from_json(raw[n + 1]) if raw[n + 1] else None))
        wait = max(0.0, float(raw[1]) - float(raw[0])) if raw[1] else math.inf
        return Claims(pages, wait)

    def visited(
        self, url: str, result: str, new_links: int = 0, etag: str = "", modified: str = ""
    ) -> PageState | None:
        """Record a visit of ``url`` that ended now; its state then (None: the page is no
        longer scheduled, its site's start pages changed meanwhile)."""

        def update(raw: bytes | None, now: float) -> tuple[PageState, list[Any]]:
            before = PageState.from_json(raw) if raw else None
            state = after_visit(before, now, result, new_links, self.lo, self.hi, etag, modified)
            return state, [state.interval]

        return self._update(url, self._visited, update)

    def more_links(self, url: str, new_links: int) -> PageState | None:
        """Count ``new_links`` found on the list pages ``url``'s last visit led to; its next
        visit comes sooner if its rate says so. The state then (None: no state to add to)."""
        if new_links <= 0:
            return None

        def update(raw: bytes | None, now: float) -> tuple[PageState, list[Any]] | None:
            if not raw:
                return None
            state = with_more_links(PageState.from_json(raw), new_links, self.lo, self.hi)
            return state, [state.last + state.interval]

        return self._update(url, self._sooner, update)

    def _update(self, url: str, script: Any, update: Any, tries: int = 5) -> PageState | None:
        """Read ``url``'s state, compute the new one (``update(raw, now)``: the state and the
        script's arguments after it, or None for nothing to write) and write it in one Lua step
        if the state is still the one read; read again if another watcher wrote meanwhile."""
        for _ in range(tries):
            seconds, micros = self.client.time()
            raw = self.client.hget(self.key, url)
            change = update(raw, seconds + micros / 1e6)
            if change is None:
                return None
            state, args = change
            written = int(script(keys=[self.due_key, self.key], args=[url, state.to_json(), *args, raw or ""]))
            if written >= 0:
                return state if written else None
        logger.warning("the revisit state of %s kept changing under %d tries: this visit is not counted", url, tries)
        return None

    def pages(self) -> list[ScheduledPage]:
        """Every scheduled page, soonest due first."""
        due = self.client.zrange(self.due_key, 0, -1, withscores=True)
        states = self.client.hgetall(self.key)
        out = []
        for member, when in due:
            raw = states.get(member)
            url = member.decode() if isinstance(member, bytes) else member
            out.append(ScheduledPage(url, float(when), PageState.from_json(raw) if raw else None))
        return out

    def now(self) -> float:
        """The server's time, which due times are in."""
        seconds, micros = self.client.time()
        return float(seconds + micros / 1e6)
