"""An outcome for every URL a crawl takes from its queue, recorded in Redis.

``<spider>:outcomes`` maps a URL to ``{"outcome", "reason", "time"}``: kept, duplicate,
invalid, gone (404/410: not retried), robots (refused by robots.txt: not retried),
failed (transient: Scrapy's retries within the run are spent; the request waits for the
next run), given_up (failed on ``OUTCOME_RETRY_RUNS`` runs), error (an exception in a
callback or pipeline: the request waits for the next run). Only once a URL's outcome is
recorded does its lease end (see ``leasing``), so a crawl that dies loses nothing.
"""

from __future__ import annotations

import json
from typing import Any

from scrapy.spidermiddlewares.httperror import HttpError

from news_crawler import connection
from news_crawler.index.base import now_iso

GONE_STATUSES = (404, 410)


class OutcomeStore:
    """The outcome and attempt count of each URL of one spider."""

    def __init__(self, client: Any, outcomes_key: str, attempts_key: str) -> None:
        self.client = client
        self.outcomes_key = outcomes_key
        self.attempts_key = attempts_key

    @classmethod
    def for_spider(cls, client: Any, settings: Any, spider_name: str) -> OutcomeStore:
        return cls(client, connection.spider_key(settings.get("OUTCOMES_KEY"), spider_name, client),
                   connection.spider_key(settings.get("OUTCOMES_ATTEMPTS_KEY"), spider_name, client))

    def record(self, url: str, outcome: str, reason: str = "") -> None:
        value = json.dumps({"outcome": outcome, "reason": reason, "time": now_iso()}, ensure_ascii=False)
        pipe = self.client.pipeline(transaction=False)
        pipe.hset(self.outcomes_key, url, value)
        if outcome not in ("failed", "error"):
            pipe.hdel(self.attempts_key, url)
        pipe.execute()

    def get(self, url: str) -> dict[str, str] | None:
        raw = self.client.hget(self.outcomes_key, url)
        return json.loads(raw) if raw else None

    def count_attempt(self, url: str) -> int:
        """One more run in which ``url`` failed; returns how many so far."""
        return int(self.client.hincrby(self.attempts_key, url, 1))

    def all(self) -> dict[str, dict[str, str]]:
        return {k.decode(): json.loads(v) for k, v in self.client.hgetall(self.outcomes_key).items()}


def classify_failure(failure: Any) -> tuple[str, str]:
    """``(outcome, reason)`` of a request that could not be fetched."""
    from scrapy.exceptions import IgnoreRequest

    error = failure.value
    if failure.check(HttpError):
        status = error.response.status
        return ("gone" if status in GONE_STATUSES else "failed"), f"HTTP {status}"
    if failure.check(IgnoreRequest) and "robots.txt" in str(error):
        return "robots", "forbidden by robots.txt"
    return "failed", f"{type(error).__name__}: {error}"[:200]
