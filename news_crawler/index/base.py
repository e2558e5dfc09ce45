"""The storage interface of the near-duplicate index, and the records it returns."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from news_crawler.fingerprint.simhash64 import BLOCK_BITS, BLOCKS

# With four blocks, pigeonhole guarantees a shared block only up to distance 3.
MAX_SUPPORTED_DISTANCE = BLOCKS - 1


def check_max_distance(k: int) -> int:
    if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k <= MAX_SUPPORTED_DISTANCE:
        raise ValueError(
            f"max distance must be an integer from 0 to {MAX_SUPPORTED_DISTANCE}, got {k!r}: the index "
            f"has {BLOCKS} blocks of {BLOCK_BITS} bits, which finds every match only up to "
            f"distance {MAX_SUPPORTED_DISTANCE}"
        )
    return k


@dataclass(frozen=True)
class Decision:
    """The verdict on one document. ``duplicate_of`` is None when it was kept."""

    id: str
    simhash: int
    duplicate_of: str | None = None
    distance: int | None = None
    replayed: bool = False  # the id was decided before; this is that earlier decision

    @property
    def kept(self) -> bool:
        return self.duplicate_of is None


@dataclass(frozen=True)
class Match:
    """A kept document found near a query, and the block table through which it was found."""

    id: str
    simhash: int
    distance: int
    table: int


@dataclass(frozen=True)
class DropRecord:
    id: str
    simhash: int
    duplicate_of: str
    distance: int
    time: str


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class FingerprintStore(ABC):
    """Kept fingerprints in four tables keyed by their 16-bit blocks, plus a record of drops.

    ``decide_many`` decides documents in order, each against everything kept before it
    (including earlier documents of the same call), and is atomic: concurrent callers
    never both keep two documents within ``max_distance`` of each other. A document whose
    id was decided before gets that earlier decision back, so re-running is harmless.
    """

    def __init__(self, max_distance: int = MAX_SUPPORTED_DISTANCE) -> None:
        self.max_distance = check_max_distance(max_distance)

    @abstractmethod
    def decide_many(self, items: Sequence[tuple[str, int]]) -> list[Decision]:
        """Decide ``(id, simhash)`` pairs in order."""

    def decide(self, doc_id: str, simhash: int) -> Decision:
        return self.decide_many([(doc_id, simhash)])[0]

    @abstractmethod
    def nearest(self, simhash: int, limit: int = 10) -> list[Match]:
        """Kept documents sharing at least one block with ``simhash``, nearest first."""

    @abstractmethod
    def lookup(self, doc_id: str) -> Decision | None:
        """The recorded decision for ``doc_id``, or None if it was never decided."""

    @abstractmethod
    def forget(self, doc_id: str) -> str:
        """Remove ``doc_id`` from the index: ``"kept"`` when its fingerprint was kept (a later
        copy of it is then kept), ``"dropped"`` when its drop record was removed (deciding it
        again decides afresh), ``""`` when it was never decided."""

    @abstractmethod
    def drops(self, limit: int = 100) -> list[DropRecord]:
        """Recorded drops (up to ``limit``)."""

    @abstractmethod
    def counts(self) -> dict[str, int]:
        """``kept`` and ``dropped`` totals, and ``drops:<YYYY-MM-DD>`` per UTC day."""
