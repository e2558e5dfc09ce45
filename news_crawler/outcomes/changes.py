"""What became of kept articles since: each edit and deletion rechecks found, and each
article superseded by an earlier copy of its story (``DEDUP_ORIGINAL``), newest first.

One Redis list a spider (``CHANGES_KEY``), one JSON object an event: ``{"url", "site",
"event": "edited"|"deleted"|"superseded", "at", "version", "changed": [fields], "reason"}``
(a superseded article's reason names the original that took its place), the newest
``CHANGES_MAX`` kept (the list is trimmed as it grows), and their counts by event for all time
(``<key>:counts``) and a day of ``TIMEZONE`` (``<key>:counts:<day>``, deleted by the server
``OUTCOMES_KEEP_DAYS`` later). ``news-crawler changes``, ``status``, the metrics and the report
read them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, date, datetime, time, tzinfo
from typing import Any

from news_crawler import config, connection

CHANGES_MAX = 100_000


class ChangeLog:
    def __init__(
        self,
        client: Any,
        key: str,
        zone: tzinfo = UTC,
        keep_days: int = 30,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.client = client
        self.key = key
        self.zone = zone  # what a day is
        self.keep_days = keep_days
        self.clock = clock  # now, aware

    @classmethod
    def for_spider(cls, client: Any, settings: Any, spider: str) -> ChangeLog:
        return cls(
            client,
            connection.spider_key(settings.get("CHANGES_KEY"), spider, client),
            config.zone(settings),
            settings.getint("OUTCOMES_KEEP_DAYS"),
        )

    def day_key(self, day: date) -> str:
        return f"{self.key}:counts:{day.isoformat()}"

    def record(self, url: str, site: str, event: str, version: int, changed: list[str], reason: str = "") -> dict:
        """Add one event, timed now (UTC); returns it."""
        now = self.clock().astimezone(UTC)
        entry = {
            "url": url,
            "site": site,
            "event": event,
            "at": now.isoformat(timespec="seconds"),
            "version": version,
            "changed": changed,
            "reason": reason,
        }
        pipe = self.client.pipeline(transaction=False)
        pipe.lpush(self.key, json.dumps(entry, ensure_ascii=False))
        pipe.ltrim(self.key, 0, CHANGES_MAX - 1)
        pipe.hincrby(self.counts_key, event, 1)
        today = now.astimezone(self.zone).date()
        pipe.hincrby(self.day_key(today), event, 1)
        if self.keep_days > 0:
            pipe.expireat(
                self.day_key(today),
                int(datetime.combine(today, time(), self.zone).timestamp()) + self.keep_days * 86400,
            )
        pipe.execute()
        return entry

    @property
    def counts_key(self) -> str:
        return f"{self.key}:counts"

    def counts(self, day: date | None = None) -> dict[str, int]:
        """Edits and deletions found, all told or on ``day``: ``{event: n}``."""
        raw = self.client.hgetall(self.counts_key if day is None else self.day_key(day))
        return {k.decode() if isinstance(k, bytes) else k: int(v) for k, v in raw.items()}

    def today(self) -> date:
        return self.clock().astimezone(self.zone).date()

    def on(self, day: Any, zone: Any) -> list[dict[str, Any]]:
        """The events of ``day`` (a day of ``zone``), newest first (read from the newest until
        an older day)."""
        out = []
        for raw in self.client.lrange(self.key, 0, CHANGES_MAX - 1):
            event = json.loads(raw)
            when = datetime.fromisoformat(event["at"]).astimezone(zone).date()
            if when < day:
                break
            if when == day:
                out.append(event)
        return out

    def read(self, limit: int = CHANGES_MAX) -> list[dict[str, Any]]:
        """The events, newest first."""
        return [json.loads(raw) for raw in self.client.lrange(self.key, 0, limit - 1)]
