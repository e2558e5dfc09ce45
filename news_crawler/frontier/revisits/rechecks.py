"""When each kept article is fetched again (``RECHECK_AFTER``), and what it was when kept.

Two keys a spider (``RECHECK_KEY``, the spider's name a hash tag on a cluster):

- ``<spider>:rechecks:due``, a sorted set: article URL -> when its next recheck is due, in
  the server's seconds;
- ``<spider>:rechecks``, a hash: article URL -> its state (``ArticleState`` as JSON): when it
  was kept, how many rechecks were done, its version and the digests of its title and body.

A kept article is tracked once (its later versions do not start the schedule again). Its
rechecks are claimed like watched start pages (``claim.lua``: no two workers fetch one at
once, and a killed worker's claim runs out); a recheck's end writes the new state and the
next due time, ``RECHECK_AFTER[step]`` after it was kept, or takes the article and its state
off the schedule after the last entry or a deletion, compare-and-set in one Lua step.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from news_crawler.connection import spider_key
from news_crawler.frontier.revisits.estimate import from_stored, stored

_LUA = Path(__file__).parent
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_DURATION = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)([smhd])")  # the look-behind: linear on a run of digits
# Lines of fewer visible characters are left out of the body's digest: a view count (阅读 1234),
# a date stamp or a share button changes on every fetch without the article changing.
MIN_LINE = 8


def parse_durations(text: str | list[str]) -> list[float]:
    """``"1h,6h,1d,3d,7d"`` in seconds, in order; ``""`` none; ValueError naming a bad entry."""
    parts = text if isinstance(text, list) else [p for p in str(text).split(",")]
    out = []
    for part in (p.strip() for p in parts):
        if not part:
            continue
        match = _DURATION.fullmatch(part)
        if match is None:
            raise ValueError(f"{part!r} is not a duration: a number and a unit, s, m, h or d (1h,6h,1d)")
        out.append(float(match.group(1)) * _UNITS[match.group(2)])
    return out


def long_lines(body: str) -> list[str]:
    """The body's lines of ``MIN_LINE`` visible characters or more, without their spacing."""
    squeeze = re.compile(r"\s+")
    return [line for line in (squeeze.sub("", raw) for raw in body.splitlines()) if len(line) >= MIN_LINE]


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def digests(title: str, body: str) -> tuple[str, str, list[str]]:
    """What an edit must change, and what tells the article is still on its page: the title's
    digest without its spacing; the digest of the body's long lines (``long_lines``: page
    chrome, spacing and line breaks do not count); and the digests of its first, middle and
    last long lines."""
    lines = long_lines(body)
    sample = sorted({0, len(lines) // 2, len(lines) - 1}) if lines else []
    return _digest(re.sub(r"\s+", "", title)), _digest("\n".join(lines)), [_digest(lines[n])[:8] for n in sample]


def still_there(state: ArticleState, body: str) -> bool:
    """Whether the article is on its page, edited or not: two of its sampled lines are in
    ``body`` (one when it has one). One alone is not: a removal page may keep the article's
    summary, its first line, in its head, and extraction may take it."""
    found = {_digest(line)[:8] for line in long_lines(body)}
    return sum(d in found for d in state.sample) >= min(2, len(state.sample))


@dataclass(frozen=True)
class ArticleState:
    kept_at: float  # server seconds
    title: str  # digests of the version last seen (``digests``)
    body: str
    sample: list[str]  # its sampled lines' digests
    version: int = 1
    step: int = 0  # rechecks done
    failures: int = 0  # rechecks that could not fetch the page

    def to_json(self) -> str:
        return stored(self)

    @classmethod
    def from_json(cls, text: str | bytes) -> ArticleState:
        what, keys = "a kept article's recheck state", "recheck keys (<spider>:rechecks, <spider>:rechecks:due)"
        state: ArticleState = from_stored(cls, text, what, keys)
        return state


class RecheckSchedule:
    def __init__(self, client: Any, key: str, after: list[float], claim_seconds: float) -> None:
        self.client = client
        self.key = key
        self.due_key = f"{key}:due"
        self.after = after
        self.claim_seconds = claim_seconds
        self._claim = client.register_script((_LUA / "claim.lua").read_text(encoding="utf-8"))
        self._track = client.register_script((_LUA / "track.lua").read_text(encoding="utf-8"))
        self._checked = client.register_script((_LUA / "checked.lua").read_text(encoding="utf-8"))

    @classmethod
    def for_spider(cls, client: Any, settings: Any, spider: str) -> RecheckSchedule:
        """The schedule of ``spider`` with its settings (a site's own ``recheck_after`` is in them)."""
        return cls(
            client,
            spider_key(settings.get("RECHECK_KEY"), spider, client),
            parse_durations(settings.get("RECHECK_AFTER") or ""),
            2 * settings.getfloat("DOWNLOAD_TIMEOUT") + 10.0,
        )

    def track(self, url: str, title: str, body: str) -> bool:
        """Start the schedule of an article just kept (not again for one tracked before);
        True when it starts."""
        if not self.after:
            return False
        title_digest, body_digest, sample = digests(title, body)
        seconds, micros = self.client.time()
        state = ArticleState(kept_at=seconds + micros / 1e6, title=title_digest, body=body_digest, sample=sample)
        due = state.kept_at + self.after[0]
        return bool(self._track(keys=[self.due_key, self.key], args=[url, state.to_json(), due]))

    @property
    def plan_key(self) -> str:
        return f"{self.key}:plan"

    def follow_plan(self) -> int | None:
        """Make the tracked articles' next rechecks those of this ``RECHECK_AFTER`` if the
        schedule was planned with another: each due ``after[step]`` after it was kept, off the
        schedule past the last entry. The plan is swapped in one step (``SET ... GET``), so of
        several workers starting at once one re-plans. How many were re-planned; None when
        the plan is unchanged."""
        plan = ",".join(f"{a:g}" for a in self.after)
        before = self.client.set(self.plan_key, plan, get=True)
        before = before.decode() if isinstance(before, bytes) else before
        if before is None or before == plan:
            return None  # as planned, or the first plan
        moved = 0
        for url, raw in self.client.hscan_iter(self.key, count=500):
            state = ArticleState.from_json(raw)
            pipe = self.client.pipeline(transaction=False)
            if state.step >= len(self.after):
                pipe.zrem(self.due_key, url)
                pipe.hdel(self.key, url)
            else:
                pipe.zadd(self.due_key, {url: state.kept_at + self.after[state.step]}, xx=True)
            pipe.execute()
            moved += 1
        return moved

    def claim(self, limit: int = 100) -> list[tuple[str, ArticleState, str]]:
        """The due rechecks, at most ``limit``: ``(url, state, the state as read)``."""
        raw = self._claim(keys=[self.due_key, self.key], args=[self.claim_seconds, limit])
        out = []
        for n in range(2, len(raw), 2):  # after the server's time and the next due time
            url = raw[n].decode() if isinstance(raw[n], bytes) else raw[n]
            text = raw[n + 1].decode() if isinstance(raw[n + 1], bytes) else raw[n + 1]
            if text:
                out.append((url, ArticleState.from_json(text), text))
        return out

    def checked(self, url: str, read: str, state: ArticleState, done: bool = False) -> bool:
        """Record a recheck of ``url`` (whose state was ``read`` when claimed): the new state,
        one more step done; its next recheck then, or none after the last entry or when
        ``done`` (deleted). False when another worker recorded it meanwhile."""
        state = replace(state, step=state.step + 1)
        last = done or state.step >= len(self.after)
        due = 0.0 if last else state.kept_at + self.after[state.step]
        return int(self._checked(keys=[self.due_key, self.key], args=[url, state.to_json(), read, int(last), due])) == 1

    def due(self) -> int:
        """Rechecks due now."""
        seconds, micros = self.client.time()
        return int(self.client.zcount(self.due_key, "-inf", seconds + micros / 1e6))


@dataclass(frozen=True)
class Verdict:
    event: str  # "edited", "deleted", or "" (nothing to record)
    changed: list[str]  # the fields an edit changed: title, body
    reason: str  # why a deletion is one
    state: ArticleState  # the article's state after it (a new version's digests)


def judge(state: ArticleState, title: str, body: str, page_text: str) -> Verdict:
    """What a recheck found, from the fields extracted again (compared, never the bytes) and
    the page's text: nothing; an edit of the title or the body (its long lines); or a
    deletion: the page says its content is gone (``removal_notice``) and the article is no
    longer on it."""
    from news_crawler.extraction.removed import removal_notice

    title_digest, body_digest, sample = digests(title, body)
    changed = [
        name
        for name, old, new in (("title", state.title, title_digest), ("body", state.body, body_digest))
        if old != new
    ]
    if not changed:
        return Verdict("", [], "", state)
    notice = removal_notice(title, page_text)
    if notice and not still_there(state, body):
        return Verdict("deleted", [], f"the page says {notice!r}", state)
    if not long_lines(body):  # no article text and no notice: not enough to call it either
        return Verdict("", [], "", state)
    return Verdict(
        "edited",
        changed,
        "",
        replace(state, title=title_digest, body=body_digest, sample=sample, version=state.version + 1),
    )
