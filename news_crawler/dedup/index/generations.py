"""Where the index lives: its generations, their registry and format, and retention.

A generation is a whole index under its own key prefix: ``<namespace>:g<n>:`` on one
server; on a Redis Cluster ``{<namespace>:g<n>}:`` (or with a suffix in the hash tag), so
each generation is one slot, and the next one is placed on a master holding none of the
live ones while there is such a master. ``<base>generations`` registers them (number ->
``"<start seconds> <prefix>"``), ``<base>format`` records the format the index was begun
in, and ``<base>stats`` the counts of expired generations; ``<base>`` is ``<namespace>:``
(``{<namespace>}:`` on a cluster).

Only the newest generation is written, in one atomic call on its slot (``decide.lua``):
write throughput is one master's, and the default, without retention, is one generation
for ever: one slot. With retention a new generation begins when the clock enters a new
period of ``generation_days``. A process that moves to a newer generation first seals
every older one (``<prefix>sealed``, one write on its slot that a later writing call there
sees and refuses), then reads them: a write that beat the seal is seen, one after it is
refused and decided again on the newest generation. Older generations are never written
again (``forget`` aside), so they are read in calls of their own without a race.

A generation expires once its successor began more than ``retention_days`` ago (so a
fingerprint is kept at least that long): its counts are added to ``<base>stats``, its keys
(known by name: no scan) unlinked, and it leaves the registry.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from news_crawler.connection import is_cluster
from news_crawler.dedup.index import archive
from news_crawler.dedup.index.drop_records import drop_hashes, live_eras
from news_crawler.dedup.index.layout import DEFAULT, Layout
from news_crawler.errors import UserError

# The index's format: keys, entries and records as this package writes them (7: tables of any
# layout, <prefix><t>:<bucket>, ties broken by the smaller fingerprint; 8: a kept copy's
# publication time beside the outlet its 来源 line names).
FORMAT = b"8"
DAY = 86_400
UNLINK_CHUNK = 4096
BUCKETS = 1 << 16
# The names an index of any format gave its keys after the namespace (generation prefixes too).
_INDEX_KEY = re.compile(
    rb"(?:g\d+:)?(?:[0-3Ssikp][0-9a-f]{4}|\d+:[0-9a-f]{1,4}|d\d+:[0-9a-f]{4}|ids|docids|docs"
    rb"|drops(?::old|:recent|:n)?|held|moved|form|stats|origins|sealed|format|layout|generations(?::plain)?|spread:.+"
    rb"|A:[a-z:]+)"
)
# Drain a generation's stats hash atomically: only one of two processes expiring it counts it.
_DRAIN = "local s = redis.call('HGETALL', KEYS[1]) redis.call('DEL', KEYS[1]) return s"


class IndexFormatError(UserError):
    """The namespace holds an index this version does not read, or one of another layout."""


class Generations:
    """The registry of one namespace's generations, read by ``live()``; ``clock`` gives
    seconds since 1970."""

    def __init__(
        self,
        client: Any,
        namespace: str,
        retention_days: float,
        generation_days: float,
        clock: Callable[[], float],
        drops_rotate: int = 0,
        layout: Layout = DEFAULT,
        adopt: Callable[[Layout], None] | None = None,
        archive_sealed: bool = False,
    ) -> None:
        if retention_days < 0 or generation_days <= 0:
            raise ValueError(
                f"retention days must be >= 0 and generation days > 0, got {retention_days} and {generation_days}"
            )
        self.client, self.namespace, self.clock = client, namespace, clock
        self.cluster = is_cluster(client)
        self.base = f"{{{namespace}}}:" if self.cluster else f"{namespace}:"
        self.retention = retention_days * DAY
        self.seconds = generation_days * DAY
        self.drops_rotate = drops_rotate  # drop records an era (lua/drops.lua), to name their hashes
        self.layout = layout  # the tables: recorded with the format, and every process must use the same
        self.adopt = adopt  # a reader's: takes the layout the namespace records instead of refusing it
        self.archive_sealed = archive_sealed  # archive a generation once this process sealed it (DEDUP_ARCHIVE)
        self.registry, self.format_key, self.stats_key = (self.base + k for k in ("generations", "format", "stats"))
        self.layout_key = self.base + "layout"
        self._live: list[tuple[int, float, str]] = []  # (number, start, prefix), newest first
        self._period: float | None = None  # the clock's period when _live was read
        self._sealed: set[str] = set()
        self._format = client.register_script((Path(__file__).parent / "format.lua").read_text(encoding="utf-8"))

    def live(self, begin: bool = False) -> list[str]:
        """The live generations' prefixes, newest (the one written) first. The registry is
        read once a period; with ``begin`` (a writer), a generation is begun when there is
        none, or when a new period began with retention."""
        now = self.clock()
        if self._period != now // self.seconds or (begin and self._due(self._live, now)):
            self.refresh(begin)
        return [prefix for _, _, prefix in self._live]

    def numbers(self) -> list[int]:
        """The live generations' numbers, newest first."""
        self.live()
        return [n for n, _, _ in self._live]

    def _due(self, live: list[tuple[int, float, str]], now: float) -> bool:
        """Whether a writer begins a new generation."""
        return not live or bool(self.retention) and now // self.seconds > live[0][1] // self.seconds

    def refresh(self, begin: bool = True) -> None:
        """Read the registry (after a writing call was refused, too): with ``begin``, begin a
        generation when one is due; expire what retention no longer holds, and seal every
        generation but the newest."""
        self.check_format(record=begin)
        now = self.clock()
        live = self._read()
        if begin and self._due(live, now):
            number = live[0][0] + 1 if live else 0
            self.client.hsetnx(self.registry, number, f"{now} {self._new_prefix(number, live)}")
            live = self._read()  # another process may have begun it first
        sealed_now = []
        for _, _, prefix in live[1:]:
            if prefix not in self._sealed:
                self.client.set(prefix + "sealed", int(now), nx=True)
                self._sealed.add(prefix)
                sealed_now.append(prefix)
        self._live = [g for g in live if g not in self._expire(live, now)]
        self._period = now // self.seconds
        if begin and self.archive_sealed:
            for prefix in sealed_now:
                if any(p == prefix for _, _, p in self._live):
                    archive.archive_generation(
                        self.client, prefix, self.layout, self.drops_rotate, self.key_names(prefix)
                    )

    def begin_next(self) -> None:
        """Begin a new generation now (the newest one sealed), whatever retention says: what
        ``news-dedup archive --all`` does before it archives the one that was live."""
        self.check_format(record=True)
        live = self._read()
        number = live[0][0] + 1 if live else 0
        self.client.hsetnx(self.registry, number, f"{self.clock()} {self._new_prefix(number, live)}")
        self._period = None
        self.refresh(begin=False)

    def sealed(self) -> list[tuple[int, str]]:
        """Every live generation but the newest, newest first: ``(number, prefix)``."""
        self.live()
        return [(n, prefix) for n, _, prefix in self._live[1:]]

    def expire(self) -> list[int]:
        """Expire the generations retention no longer holds now; returns their numbers."""
        self.check_format(record=False)
        expired = self._expire(self._read(), self.clock())
        self._period = None
        return [n for n, _, _ in expired]

    def _read(self) -> list[tuple[int, float, str]]:
        out = []
        for number, value in self.client.hgetall(self.registry).items():
            start, prefix = value.decode().split(" ", 1)
            out.append((int(number), float(start), prefix))
        return sorted(out, reverse=True)

    def _expire(self, live: list[tuple[int, float, str]], now: float) -> list[tuple[int, float, str]]:
        """Expire the generations whose successor began more than the retention ago."""
        if not self.retention:
            return []
        expired = [g for g, newer in zip(live[1:], live) if now - newer[1] >= self.retention]
        for number, _, prefix in expired:
            counts = self.client.eval(_DRAIN, 1, prefix + "stats")
            for field, value in zip(counts[::2], counts[1::2]):
                self.client.hincrby(self.stats_key, field, int(value))
            names = self.key_names(prefix)
            for start in range(0, len(names), UNLINK_CHUNK):
                self.client.unlink(*names[start : start + UNLINK_CHUNK])
            self.client.hdel(self.registry, number)  # last: a process that died before is followed
        return expired

    def key_names(self, prefix: str) -> list[str]:
        """Every key a generation may hold, by name."""
        filed = [f"{prefix}{kind}{b:04x}" for kind in ("S", "i", "k", "p") for b in range(BUCKETS)]
        for t in range(len(self.layout.tables)):
            bits = self.layout.bucket_bits(t)
            filed += [f"{prefix}{t}:{b:0{-(-bits // 4)}x}" for b in range(1 << bits)]
        drops = [name for era in live_eras(self.client, prefix, self.drops_rotate) for name in drop_hashes(prefix, era)]
        hashes = [prefix + h for h in ("ids", "held", "origins", "stats", "sealed", "drops:n", "drops:recent", "moved")]
        archived = [prefix + k for k in (*archive.ARCHIVE_KEYS, "A:claim")]
        return filed + drops + hashes + archived

    def _new_prefix(self, number: int, live: list[tuple[int, float, str]]) -> str:
        """A new generation's prefix: on a cluster, a hash tag whose slot is on a master that
        holds none of the newest live generations (as many as there are other masters)."""
        if not self.cluster:
            return f"{self.namespace}:g{number}:"
        others = len(self.client.get_primaries()) - 1
        taken = {self._master(prefix) for _, _, prefix in live[:others]}
        for suffix in ("", *(f".{i}" for i in range(1, 256))):
            prefix = f"{{{self.namespace}:g{number}{suffix}}}:"
            if self._master(prefix) not in taken:
                return prefix
        return f"{{{self.namespace}:g{number}}}:"

    def _master(self, prefix: str) -> str:
        return str(self.client.get_node_from_key(prefix + "held").name)

    def check_format(self, record: bool = False) -> None:
        """Stop on an index of another format or layout, or on index keys without a format
        (written by a version before formats were recorded); with ``record``, record a new
        index's format and layout. One atomic step (``format.lua``): a writer beginning the
        index is never seen half done."""
        earlier = [self.base + k for k in ("generations", "stats", "held", "origins", "spread:layout")]
        keys = [self.format_key, self.layout_key, *earlier]
        args = [FORMAT, self.layout.spec] if record else [b"", b""]
        result = self._format(keys=keys, args=args) or [None]
        found, layout = result[0], (result[1] if len(result) > 1 else None)
        if found == b"":
            raise IndexFormatError(self._problem("index keys with no format version"))
        if found is not None and found != FORMAT:
            raise IndexFormatError(self._problem(f"format {found.decode(errors='replace')}"))
        if layout is not None and layout.decode() != self.layout.spec:
            widths, _, k = layout.decode().partition("/")
            if self.adopt is not None and not record:
                self.layout = Layout.parse(widths, int(k))
                self.adopt(self.layout)
                return
            raise IndexFormatError(
                f"the index in namespace {self.namespace!r} has blocks {widths} at max distance {k}; this run "
                f"asks for {','.join(map(str, self.layout.widths))} at {self.layout.max_distance}: use the "
                f"namespace's (DEDUP_BLOCKS={widths} DEDUP_MAX_DISTANCE={k}, or news-dedup check --blocks {widths} "
                f"--max-distance {k}) or another DEDUP_NAMESPACE"
            )

    def check_archives(self) -> None:
        """Stop on an archived generation of another format (``archive.ArchiveFormatError``):
        before a crawl starts, not at its first article."""
        for _, _, prefix in self._read():
            archive.check_meta(prefix, self.client.get(prefix + "A:meta"))

    def _problem(self, what: str) -> str:
        return (
            f"the index in namespace {self.namespace!r} holds {what}; this version reads format "
            f"{FORMAT.decode()} only: use a new DEDUP_NAMESPACE, or remove the old index with "
            f"`news-dedup forget --all --namespace {self.namespace}`"
        )

    def remove_all(self) -> int:
        """Delete every key of the namespace's index, of any format (a scan that leaves the
        spiders' keys, which may share the namespace's name); returns how many."""
        ns = "".join(f"[{c}]" if c in "*?[]\\" else c for c in self.namespace)
        size = len(self.namespace.encode())
        names = [
            name
            for name in self.client.scan_iter(match=f"{ns}:*", count=1000)
            if _INDEX_KEY.fullmatch(name[size + 1 :])
        ]
        names += [
            name
            for name in self.client.scan_iter(match=f"{{{ns}}}:*", count=1000)
            if _INDEX_KEY.fullmatch(name[size + 3 :])
        ]
        for pattern in (f"{{{ns}:g*", f"{{{ns}.*"):  # hash tags only an index uses
            names += self.client.scan_iter(match=pattern, count=1000)
        names = list(dict.fromkeys(names))
        removed = 0
        for start in range(0, len(names), UNLINK_CHUNK):
            removed += self.client.unlink(*names[start : start + UNLINK_CHUNK])
        self._live, self._period, self._sealed = [], None, set()
        return removed
