"""An outcome for every URL a crawl takes from its queue, recorded in Redis.

``<spider>:outcomes:<YYYY-MM-DD>`` (the day it was recorded, in ``TIMEZONE``) maps a URL to
``<outcome>|<time, seconds since 1970>|<reason>`` (a record of any other form is refused, in
one line: another version wrote it): kept, duplicate, invalid, gone (404/410: not retried),
robots (refused by robots.txt: not retried), failed (transient: Scrapy's retries within the
run are spent; the request waits for the next run), given_up (failed on
``OUTCOME_RETRY_RUNS`` runs), error (an exception in a callback or pipeline: the request
waits for the next run). Only once a URL's outcome is recorded does its lease end (see
``leasing``), so a crawl that dies loses nothing.

A day's hash expires ``OUTCOMES_KEEP_DAYS`` days after that day (the server deletes it; no
scan), so outcomes take memory for the URLs of that many days, not of every day ever
crawled; a lookup reads the live days, newest first (with ``OUTCOMES_KEEP_DAYS = 0``, the
one undated hash ``<spider>:outcomes``, never expiring). What outcomes
are needed for is recent: a failed URL's attempts (their own hash, emptied as URLs
succeed or are given up) and whether a URL replayed after a crash was written before.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any

from redis.exceptions import ResponseError

from news_crawler import config, connection
from news_crawler.errors import UserError

_OUTCOME = re.compile(r"[A-Za-z0-9_]+")  # as _RECORD reads it back
DAY = 86_400
# Runs in which a URL failed, counted once a run however often the count is replayed (a
# write kept through a Redis outage runs whole again): "<count>:<run>".
_COUNT_ATTEMPT = """
local v, n, run = redis.call('HGET', KEYS[1], ARGV[1]), 0, ''
if v then
  n, run = string.match(v, '^(%d+):(.*)$')
  if not n then return redis.error_reply('foreign attempt record ' .. v) end
  n = tonumber(n)
end
if run ~= ARGV[2] then
  n = n + 1
  redis.call('HSET', KEYS[1], ARGV[1], n .. ':' .. ARGV[2])
end
return n
"""


# An outcome written, and the count of each outcome in its hash kept with it: a URL whose
# outcome changes moves from one count to the other, and a write replayed after an outage
# (the same outcome again) counts nothing.
# KEYS[1] outcomes hash, KEYS[2] its counts, KEYS[3] attempts hash, KEYS[4] its titles hash;
# ARGV[1] URL, ARGV[2] the record (outcome|seconds|reason), ARGV[3] outcome, ARGV[4] when the
# hashes expire (0: never), ARGV[5] 1 to clear the URL's attempts, ARGV[6] the article's
# headline ('': none to keep).
_RECORD = """
local old = redis.call('HGET', KEYS[1], ARGV[1])
local before = old and string.match(old, '^([%w_]+)|%d+|')
if old and not before then return redis.error_reply('foreign outcome record ' .. old) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if before ~= ARGV[3] then
  if before then redis.call('HINCRBY', KEYS[2], before, -1) end
  redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
end
if ARGV[6] ~= '' then redis.call('HSET', KEYS[4], ARGV[1], ARGV[6]) end
if ARGV[4] ~= '0' then
  redis.call('EXPIREAT', KEYS[1], ARGV[4])
  redis.call('EXPIREAT', KEYS[2], ARGV[4])
  if ARGV[6] ~= '' then redis.call('EXPIREAT', KEYS[4], ARGV[4]) end
end
if ARGV[5] == '1' then redis.call('HDEL', KEYS[3], ARGV[1]) end
"""
TITLE_MAX = 200  # characters of a headline kept beside its outcome


def _utc_now() -> datetime:
    return datetime.now(UTC)


class OutcomeStore:
    """The outcome and attempt count of each URL of one spider."""

    def __init__(
        self,
        client: Any,
        outcomes_key: str,
        attempts_key: str,
        keep_days: int = 30,
        clock: Callable[[], datetime] = _utc_now,
        run: str | None = None,
        zone: tzinfo = UTC,
    ) -> None:
        self.client = client
        self.run = run or uuid.uuid4().hex[:12]  # this crawl's: an attempt counts once a run
        self.outcomes_key = outcomes_key
        self.attempts_key = attempts_key
        self.keep_days = keep_days
        self.clock = clock
        self.zone = zone  # what a day is
        self._record = client.register_script(_RECORD)
        self._count_attempt = client.register_script(_COUNT_ATTEMPT)

    @classmethod
    def for_spider(cls, client: Any, settings: Any, spider_name: str) -> OutcomeStore:
        return cls(
            client,
            connection.spider_key(settings.get("OUTCOMES_KEY"), spider_name, client),
            connection.spider_key(settings.get("OUTCOMES_ATTEMPTS_KEY"), spider_name, client),
            settings.getint("OUTCOMES_KEEP_DAYS"),
            zone=config.zone(settings),
        )

    def _day_key(self, day: date) -> str:
        return f"{self.outcomes_key}:{day.isoformat()}"

    def keys(self) -> list[str]:
        """The hashes a lookup reads, newest first: the live days (the undated one when
        outcomes are not kept by day)."""
        if self.keep_days <= 0:
            return [self.outcomes_key]
        today = self.today()
        return [self._day_key(today - timedelta(days=n)) for n in range(self.keep_days)]

    def today(self) -> date:
        return self.clock().astimezone(self.zone).date()

    def counts_key(self, day: date | None) -> str:
        """The hash counting the outcomes of ``day``'s hash (of the undated one for None)."""
        return f"{self.outcomes_key}:counts" + (f":{day.isoformat()}" if day else "")

    def titles_key(self, day: date | None) -> str:
        """The hash of the headlines of ``day``'s kept and dropped articles (of the undated
        outcomes for None), expiring with them: what the report shows beside a link."""
        return f"{self.outcomes_key}:titles" + (f":{day.isoformat()}" if day else "")

    def record(self, url: str, outcome: str, reason: str = "", title: str = "") -> None:
        """``url``'s outcome now; ``title``, the article's headline, kept beside it."""
        if not _OUTCOME.fullmatch(outcome):
            raise ValueError(f"an outcome is one word of letters, digits and _, got {outcome!r}")
        now = self.clock()
        value = f"{outcome}|{int(now.timestamp())}|{reason}"
        if self.keep_days > 0:
            today = now.astimezone(self.zone).date()
            keys = [self._day_key(today), self.counts_key(today), self.attempts_key, self.titles_key(today)]
            day_start = datetime.combine(today, time(), self.zone).timestamp()
            expire = int(day_start) + self.keep_days * DAY
        else:
            keys, expire = [self.outcomes_key, self.counts_key(None), self.attempts_key, self.titles_key(None)], 0
        clear = outcome not in ("failed", "error")
        args = [url, value, outcome, expire, int(clear), " ".join(title.split())[:TITLE_MAX]]
        with _foreign_refused(self.outcomes_key):
            self._record(keys=keys, args=args)

    def titles(self, urls: list[str]) -> dict[str, str]:
        """The headlines kept for ``urls`` in the live days (those found), the newest first."""
        if not urls:
            return {}
        days = [None] if self.keep_days <= 0 else [self.today() - timedelta(days=n) for n in range(self.keep_days)]
        pipe = self.client.pipeline(transaction=False)
        for day in days:
            pipe.hmget(self.titles_key(day), urls)
        out: dict[str, str] = {}
        for found in pipe.execute():
            for url, title in zip(urls, found):
                if title and url not in out:
                    out[url] = title.decode("utf-8", "replace")
        return out

    def counts(self) -> dict[str, int]:
        """How many URLs have each outcome today (in the one hash when outcomes are not kept
        by day); outcomes written before counts were kept are not in them."""
        day = self.today() if self.keep_days > 0 else None
        raw = self.client.hgetall(self.counts_key(day))
        return {k.decode(): int(v) for k, v in sorted(raw.items()) if int(v)}

    def get(self, url: str) -> dict[str, str] | None:
        """The latest outcome recorded for ``url`` in the live days, or None."""
        pipe = self.client.pipeline(transaction=False)
        for key in self.keys():
            pipe.hget(key, url)
        raw = next((r for r in pipe.execute() if r), None)
        return parse_outcome(raw, self.outcomes_key) if raw else None

    def count_attempt(self, url: str) -> int:
        """This run is one in which ``url`` failed; returns in how many it has so far."""
        with _foreign_refused(self.attempts_key):
            return int(self._count_attempt(keys=[self.attempts_key], args=[url, self.run]))

    def latest(self, day: date | None = None) -> dict[str, dict[str, str]]:
        """Every URL's latest outcome in the live days (of ``day`` only, when given)."""
        keys = [self._day_key(day)] if day and self.keep_days > 0 else list(reversed(self.keys()))
        pipe = self.client.pipeline(transaction=False)
        for key in keys:
            pipe.hgetall(key)
        out: dict[str, dict[str, str]] = {}
        for found in pipe.execute():  # oldest first: a later day's outcome wins
            out.update({k.decode(): parse_outcome(v, self.outcomes_key) for k, v in found.items()})
        return out


_RECORD_FORM = re.compile(rb"([A-Za-z0-9_]+)\|(\d+)\|(.*)", re.S)


def parse_outcome(raw: bytes, key: str = "outcomes") -> dict[str, str]:
    """``{"outcome", "reason", "time"}`` (ISO 8601) of a recorded outcome; a record of
    another form is refused in one line (``UserError``)."""
    m = _RECORD_FORM.fullmatch(raw)
    if m is None:
        raise _foreign(key, raw[:60].decode(errors="replace"))
    when = datetime.fromtimestamp(int(m[2]), UTC).isoformat(timespec="seconds")
    return {"outcome": m[1].decode(), "reason": m[3].decode(errors="replace"), "time": when}


def _foreign(key: str, record: str) -> UserError:
    return UserError(
        f"{key} holds a record this version does not read ({record!r}): another version wrote it; "
        f"delete {key}* or point REDIS_URL at another Redis"
    )


@contextmanager
def _foreign_refused(key: str) -> Iterator[None]:
    """A Lua script's refusal of a record of another form, as one line (``UserError``)."""
    try:
        yield
    except ResponseError as e:
        if "foreign" not in str(e):
            raise
        raise _foreign(key, str(e).split("record ", 1)[-1]) from None


def latest_outcomes(
    client: Any, settings: Any, spiders: list[str], outcome: str | None = None, day: date | None = None
) -> list[dict[str, str]]:
    """``{"site", "url", "outcome", "reason", "time"}`` of the spiders' URLs (of ``day``'s
    hash only, when given; of one ``outcome``, when given), newest first."""
    out = []
    for name in spiders:
        latest = OutcomeStore.for_spider(client, settings, name).latest(day)
        out += [
            {"site": name, "url": url, **record}
            for url, record in latest.items()
            if outcome is None or record["outcome"] == outcome
        ]
    return sorted(out, key=lambda r: r["time"], reverse=True)
