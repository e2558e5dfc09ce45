"""Retention of the index by time generations.

Time is cut into generations of ``generation_days``; each is a whole index under its own
key prefix (``<namespace>:g<n>:``). Enough generations to cover ``retention_days`` are
live, plus the one being filled; a generation older than that is deleted whole: UNLINK of
its key names, which are known (four tables and the sentence table of 65,536 buckets each,
the small hashes of kept ids and of drop records, a few hashes), so no entry is scanned. A fingerprint is kept at least ``retention_days``
and less than ``retention_days + generation_days``. Without retention there is one
generation, under ``<namespace>:``, as the index always had.

Switching retention on or off keeps what the index held. Turned on over an index written
without it, that index (``<namespace>:``) is read as a generation of its own, numbered by
the day retention was first seen on (``<namespace>:generations:plain``), and goes when that
generation expires. Turned off, the generations still held are read (newest first, after
the one written) and kept, as everything is without retention.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from news_crawler.index.drop_records import drop_hashes, live_eras

DAY = 86_400
UNLINK_CHUNK = 4096
BUCKETS = 1 << 16


class Generations:
    def __init__(self, client: Any, base: str, retention_days: float, generation_days: float,
                 clock: Callable[[], float], drops_rotate: int = 0) -> None:
        if retention_days < 0 or generation_days <= 0:
            raise ValueError(f"retention days must be >= 0 and generation days > 0, got {retention_days} "
                             f"and {generation_days}")
        self.client = client
        self.base = base
        self.retention_days = retention_days
        self.seconds = generation_days * DAY
        self.clock = clock
        self.drops_rotate = drops_rotate  # drop records an era (lua/drops.lua)
        self.key = f"{base}:generations"  # the set of generations that hold keys
        self.plain_key = f"{base}:generations:plain"  # the generation the index without retention counts as
        self._registered: int | None = None  # the generation this process registered last
        # Read besides the generations of this setting: (generation number, key prefix).
        self._adopted: list[tuple[int, str]] = []
        self._discovered: int | None = None  # the generation _adopted was read in

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
        adopted = self._discover()
        if not self.retention_days:
            return [self.prefix(), *(p for _, p in adopted)]
        now = self.current()
        oldest = now - self.live_count() + 1
        live = [(g, self.prefix(g)) for g in range(now, oldest - 1, -1) if g >= 0]
        live += [(g, p) for g, p in adopted if g >= oldest]
        return [p for _, p in sorted(live, key=lambda gp: -gp[0])]  # stable: a generation before the plain index

    def _discover(self) -> list[tuple[int, str]]:
        """What the index holds under the other setting, read once a generation (see the
        module's docstring): (generation number, key prefix)."""
        now = self.current()
        if self._discovered != now:
            if not self.retention_days:
                held = sorted((int(g) for g in self.client.smembers(self.key)), reverse=True)
                self._adopted = [(g, f"{self.base}:g{g}:") for g in held]
            else:
                plain = self.client.get(self.plain_key)
                if plain is None and self.client.exists(*(f"{self.base}:{h}" for h in ("held", "ids", "docs"))):
                    plain = now  # not written yet: the first decision writes it (register)
                self._adopted = [(int(plain), f"{self.base}:")] if plain is not None else []
            self._discovered = now
        return self._adopted

    def register(self) -> None:
        """Note the current generation (and the generation of an index kept without
        retention), and delete the expired ones, the first time the generation is seen."""
        if not self.retention_days:
            return
        now = self.current()
        if self._registered != now:
            self.client.sadd(self.key, now)
            if self.client.exists(*(f"{self.base}:{h}" for h in ("held", "ids", "docs"))):
                self.client.set(self.plain_key, now, nx=True)
            self._discovered = None
            self.expire()
            self._registered = now

    def key_names(self, generation: int | None = None, prefix: str | None = None) -> list[str]:
        prefix = prefix or self.prefix(generation)
        names = [f"{prefix}{t}{b:04x}" for t in range(4) for b in range(BUCKETS)]
        hashes = [prefix + h for h in ("ids", "docids", "docs", "drops", "drops:old", "drops:recent", "drops:n", "held",
                                       "form")]  # docs: as before docids; drops, drops:old: as before drop eras
        filed = [f"{prefix}{kind}{b:04x}" for kind in ("S", "s", "i", "k") for b in range(BUCKETS)]  # sentences, kept ids
        drops = [name for era in live_eras(self.client, prefix, self.drops_rotate) for name in drop_hashes(prefix, era)]
        return names + filed + drops + hashes

    def _unlink(self, names: list[str]) -> None:
        for start in range(0, len(names), UNLINK_CHUNK):
            self.client.unlink(*names[start : start + UNLINK_CHUNK])

    def expire(self) -> list[int]:
        """Delete every generation older than the live ones (the index kept without retention
        too, once its generation is); returns their numbers."""
        if not self.retention_days:
            return []
        oldest_live = self.current() - self.live_count() + 1
        expired = sorted(int(g) for g in self.client.smembers(self.key) if int(g) < oldest_live)
        for g in expired:
            self._unlink(self.key_names(g))
            self.client.srem(self.key, g)
        plain = self.client.get(self.plain_key)
        if plain is not None and int(plain) < oldest_live:
            self._unlink(self.key_names(prefix=f"{self.base}:"))
            self.client.delete(self.plain_key)
            self._discovered = None
            expired = sorted({*expired, int(plain)})
        return expired
