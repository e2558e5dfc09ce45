"""An outcome for every URL a crawl takes from its queue, recorded in Redis.

``<spider>:outcomes:<YYYY-MM-DD>`` (the day it was recorded, in ``TIMEZONE``) maps a URL to
``<outcome>|<time, seconds since 1970>|<reason>`` (JSON ``{"outcome", "reason", "time"}``
as earlier versions wrote it, still read): kept, duplicate, invalid, gone (404/410: not retried),
robots (refused by robots.txt: not retried), failed (transient: Scrapy's retries within the
run are spent; the request waits for the next run), given_up (failed on
``OUTCOME_RETRY_RUNS`` runs), error (an exception in a callback or pipeline: the request
waits for the next run). Only once a URL's outcome is recorded does its lease end (see
``leasing``), so a crawl that dies loses nothing.

A day's hash expires ``OUTCOMES_KEEP_DAYS`` days after that day (the server deletes it; no
scan), so outcomes take memory for the URLs of that many days, not of every day ever
crawled; a lookup reads the live days, newest first, then ``<spider>:outcomes`` (where
outcomes were kept before, and still are with ``OUTCOMES_KEEP_DAYS = 0``). What outcomes
are needed for is recent: a failed URL's attempts (their own hash, emptied as URLs
succeed or are given up) and whether a URL replayed after a crash was written before.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any

from scrapy.exceptions import IgnoreRequest
from scrapy.spidermiddlewares.httperror import HttpError

from news_crawler import config, connection

GONE_STATUSES = (404, 410)
_OUTCOME = re.compile(r"[A-Za-z0-9_]+")  # as _RECORD reads it back
DAY = 86_400
# Runs in which a URL failed, counted once a run however often the count is replayed (a
# write kept through a Redis outage runs whole again): "<count>:<run>". A bare number, as
# HINCRBY left it before, counts as runs of no known run.
_COUNT_ATTEMPT = """
local v, n, run = redis.call('HGET', KEYS[1], ARGV[1]), 0, ''
if v then
  local sep = string.find(v, ':', 1, true)
  if sep then n, run = tonumber(string.sub(v, 1, sep - 1)), string.sub(v, sep + 1) else n = tonumber(v) end
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
# KEYS[1] outcomes hash, KEYS[2] its counts, KEYS[3] attempts hash; ARGV[1] URL, ARGV[2] the
# record (outcome|seconds|reason, or JSON as earlier versions wrote it), ARGV[3] outcome,
# ARGV[4] when both hashes expire (0: never), ARGV[5] 1 to clear the URL's attempts.
_RECORD = """
local old = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local before = old and (string.match(old, '^([%w_]+)|') or cjson.decode(old).outcome)
if before ~= ARGV[3] then
  if before then redis.call('HINCRBY', KEYS[2], before, -1) end
  redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
end
if ARGV[4] ~= '0' then
  redis.call('EXPIREAT', KEYS[1], ARGV[4])
  redis.call('EXPIREAT', KEYS[2], ARGV[4])
end
if ARGV[5] == '1' then redis.call('HDEL', KEYS[3], ARGV[1]) end
"""


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

    @classmethod
    def for_spider(cls, client: Any, settings: Any, spider_name: str) -> OutcomeStore:
        return cls(
            client,
            connection.spider_key(settings.get("OUTCOMES_KEY"), spider_name, client),
            connection.spider_key(settings.get("OUTCOMES_ATTEMPTS_KEY"), spider_name, client),
            settings.getint("OUTCOMES_KEEP_DAYS", 30),
            zone=config.zone(settings),
        )

    def _day_key(self, day: date) -> str:
        return f"{self.outcomes_key}:{day.isoformat()}"

    def keys(self) -> list[str]:
        """The hashes a lookup reads, newest first: the live days, then the undated one."""
        if self.keep_days <= 0:
            return [self.outcomes_key]
        today = self.today()
        return [self._day_key(today - timedelta(days=n)) for n in range(self.keep_days)] + [self.outcomes_key]

    def today(self) -> date:
        return self.clock().astimezone(self.zone).date()

    def counts_key(self, day: date | None) -> str:
        """The hash counting the outcomes of ``day``'s hash (of the undated one for None)."""
        return f"{self.outcomes_key}:counts" + (f":{day.isoformat()}" if day else "")

    def record(self, url: str, outcome: str, reason: str = "") -> None:
        if not _OUTCOME.fullmatch(outcome):
            raise ValueError(f"an outcome is one word of letters, digits and _, got {outcome!r}")
        now = self.clock()
        value = f"{outcome}|{int(now.timestamp())}|{reason}"
        if self.keep_days > 0:
            today = now.astimezone(self.zone).date()
            keys = [self._day_key(today), self.counts_key(today)]
            day_start = datetime.combine(today, time(), self.zone).timestamp()
            expire = int(day_start) + self.keep_days * DAY
        else:
            keys, expire = [self.outcomes_key, self.counts_key(None)], 0
        clear = outcome not in ("failed", "error")
        self._record(keys=[*keys, self.attempts_key], args=[url, value, outcome, expire, int(clear)])

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
        return parse_outcome(raw) if raw else None

    def count_attempt(self, url: str) -> int:
        """This run is one in which ``url`` failed; returns in how many it has so far."""
        return int(self.client.eval(_COUNT_ATTEMPT, 1, self.attempts_key, url, self.run))

    def all(self) -> dict[str, dict[str, str]]:
        """Every URL's latest outcome in the live days."""
        pipe = self.client.pipeline(transaction=False)
        for key in reversed(self.keys()):
            pipe.hgetall(key)
        out: dict[str, dict[str, str]] = {}
        for found in pipe.execute():  # oldest first: a later day's outcome wins
            out.update({k.decode(): parse_outcome(v) for k, v in found.items()})
        return out


def parse_outcome(raw: bytes) -> dict[str, str]:
    """``{"outcome", "reason", "time"}`` (ISO 8601) of a recorded outcome, either form."""
    if raw[:1] == b"{":
        return json.loads(raw)
    outcome, seconds, reason = raw.decode().split("|", 2)
    when = datetime.fromtimestamp(int(seconds), UTC).isoformat(timespec="seconds")
    return {"outcome": outcome, "reason": reason, "time": when}


class RefusedScheme(IgnoreRequest):
    """A request for a URL that is not http(s) (``safety.py`` refuses it): outcome ``invalid``."""


class RedirectedOutside(IgnoreRequest):
    """A redirect that leaves the site (``safety.py`` refuses it): the URL's outcome is ``invalid``."""

    reason = "redirected outside the site"


def classify_failure(failure: Any) -> tuple[str, str]:
    """``(outcome, reason)`` of a request that could not be fetched."""
    error = failure.value
    if failure.check(RedirectedOutside):
        return "invalid", RedirectedOutside.reason
    if failure.check(RefusedScheme):  # never fetched, and never will be
        return "invalid", "not an http(s) URL"
    if failure.check(HttpError):
        status = error.response.status
        return ("gone" if status in GONE_STATUSES else "failed"), f"HTTP {status}"
    if failure.check(IgnoreRequest) and "robots.txt" in str(error):
        return "robots", "forbidden by robots.txt"
    return "failed", f"{type(error).__name__}: {error}"[:200]
