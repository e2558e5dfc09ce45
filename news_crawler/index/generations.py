"""Retention of the index by time generations.

Time is cut into generations of ``generation_days``; each is a whole index under its own
key prefix (``<namespace>:g<n>:``). Enough generations to cover ``retention_days`` are
live, plus the one being filled; a generation older than that is deleted whole: UNLINK of
its key names, which are known (four tables and the sentence table of 65,536 buckets each,
three hashes), so no entry is scanned. A fingerprint is kept at least ``retention_days``
and less than ``retention_days + generation_days``. Without retention there is one
generation, under ``<namespace>:``, as the index always had.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

DAY = 86_400
UNLINK_CHUNK = 4096
BUCKETS = 1 << 16


class Generations:
    def __init__(self, client: Any, base: str, retention_days: float, generation_days: float,
                 clock: Callable[[], float]) -> None:
        if retention_days < 0 or generation_days <= 0:
            raise ValueError(f"retention days must be >= 0 and generation days > 0, got {retention_days} "
                             f"and {generation_days}")
        self.client = client
        self.base = base
        self.retention_days = retention_days
        self.seconds = generation_days * DAY
        self.clock = clock
        self.key = f"{base}:generations"  # the set of generations that hold keys
        self._registered: int | None = None  # the generation this process registered last

    def current(self) -> int:
        """The number of the current generation (0 without retention)."""
        return int(self.clock() // self.seconds) if self.retention_days else 0

    def live_count(self) -> int:
        """How many generations are read: enough to cover the retention, plus the current one."""
        return math.ceil(self.retention_days * DAY / self.seconds) + 1 if self.retention_days else 1

    def prefix(self, generation: int | None = None) -> str:
        if not self.retention_days:
            return f"{self.base}:"
        return f"{self.base}:g{self.current() if generation is None else generation}:"

    def live_prefixes(self) -> list[str]:
        """Key prefixes of the live generations, newest first."""
        now = self.current()
        return [self.prefix(g) for g in range(now, now - self.live_count(), -1) if g >= 0]

    def register(self) -> None:
        """Note the current generation, and delete the expired ones the first time it is seen."""
        if not self.retention_days:
            return
        now = self.current()
        if self._registered != now:
            self.client.sadd(self.key, now)
            self.expire()
            self._registered = now

    def key_names(self, generation: int) -> list[str]:
        prefix = self.prefix(generation)
        names = [f"{prefix}{t}{b:04x}" for t in range(4) for b in range(BUCKETS)]
        hashes = [prefix + h for h in ("ids", "docids", "docs", "drops", "drops:old")]  # docs: as before docids
        return names + [f"{prefix}s{b:04x}" for b in range(BUCKETS)] + hashes

    def expire(self) -> list[int]:
        """Delete every generation older than the live ones; returns their numbers."""
        if not self.retention_days:
            return []
        oldest_live = self.current() - self.live_count() + 1
        expired = sorted(int(g) for g in self.client.smembers(self.key) if int(g) < oldest_live)
        for g in expired:
            names = self.key_names(g)
            for start in range(0, len(names), UNLINK_CHUNK):
                self.client.unlink(*names[start : start + UNLINK_CHUNK])
            self.client.srem(self.key, g)
        return expired
