"""The storage interface of the near-duplicate index, and the records it returns."""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import NamedTuple

from news_crawler import defaults
from news_crawler.dedup.fingerprint.sentences import length_slack
from news_crawler.dedup.index.layout import DEFAULT_BLOCKS, Layout


def check_max_distance(k: int, blocks: tuple[int, ...] = DEFAULT_BLOCKS) -> int:
    """``k`` when a layout of ``blocks`` finds every match up to it (``k < len(blocks)``);
    ``LayoutError`` (a ``ValueError``) otherwise."""
    return Layout(tuple(blocks), k).max_distance


SIMHASH, SENTENCES = "simhash", "sentences"  # the rules a drop names
ORIGINALS = ("earliest", "first")  # which copy of a story is kept: the earliest published, or the first decided
SAME_TIME = 60  # seconds: copies published closer than this are as early as each other


def check_original(original: str) -> str:
    if original not in ORIGINALS:
        raise ValueError(f"original must be one of {', '.join(ORIGINALS)}, got {original!r}")
    return original


def published_before(doc: Published | None, kept: int) -> bool:
    """Whether a document published ``doc`` came out before one kept published at ``kept``
    (seconds; 0: unknown): by more than ``SAME_TIME``, however late in its span."""
    return doc is not None and kept > 0 and doc.latest + SAME_TIME < kept


def original_of(doc: Document, kept_published: int, kept_credits: int) -> bool:
    """Whether ``doc`` is the story's original in place of a copy kept before, published at
    ``kept_published`` (0: unknown) and naming the outlet ``kept_credits`` as its source (its
    来源 line; 0: none): published earlier (``published_before``), or of the outlet the
    kept copy names, unless published later than it by more than ``SAME_TIME``."""
    if published_before(doc.published, kept_published):
        return True
    later = doc.published is not None and kept_published > 0 and doc.published.earliest > kept_published + SAME_TIME
    return doc.outlet != 0 and doc.outlet == kept_credits and not later


def outlet_keys(outlet: str, source: str) -> tuple[int, int]:
    """A copy's ``Document.outlet`` and ``.credits``: the keys of the outlet whose page it is
    and of its ``source`` (来源) when that names another (0 when it names none or itself)."""
    own, named = outlet_key(outlet), outlet_key(source)
    return own, (named if named != own else 0)


def outlet_key(name: str) -> int:
    """The 32-bit key of an outlet's name (spaces and case aside; 0 for none): how a copy's
    来源 line is matched to the outlet whose page another copy is."""
    name = "".join(name.split()).casefold()
    if not name:
        return 0
    return int.from_bytes(hashlib.sha1(name.encode()).digest()[:4], "big") or 1


@dataclass(frozen=True)
class SentenceRule:
    """The second signal: drop a document that shares ``match`` of its longest sentences
    with a kept one (``needed``: fewer for a short document), is within ``max_distance``
    bits of it and within ``length_ratio`` of its size (``fingerprint/sentences.py``)."""

    match: int = defaults.DEDUP_SENTENCE_MATCH
    max_distance: int = defaults.DEDUP_SENTENCE_MAX_DISTANCE
    length_ratio: float = defaults.DEDUP_SENTENCE_LENGTH_RATIO

    def __post_init__(self) -> None:
        if not isinstance(self.match, int) or self.match < 1:
            raise ValueError(f"sentence match must be a positive integer, got {self.match!r}")
        if not isinstance(self.max_distance, int) or not 0 <= self.max_distance <= 64:
            raise ValueError(f"sentence max distance must be an integer from 0 to 64, got {self.max_distance!r}")
        length_slack(self.length_ratio)

    @property
    def length_slack(self) -> int:
        return length_slack(self.length_ratio)

    def needed(self, count: int) -> int:
        """Sentences a document of ``count`` keys must share with a kept one: ``match``, or
        all but one of a short document's three or four (a story of three sentences edited
        in one still shares two), or all of a document's one or two."""
        return min(self.match, count - 1 if count > 2 else count)


class Published(NamedTuple):
    """When a document was published, as seconds since 1970: ``earliest`` to ``latest`` (the
    same for a time to the second; a whole day for a date without a time of day)."""

    earliest: int
    latest: int


def published_span(value: str, zone: tzinfo = UTC) -> Published | None:
    """``published_at`` (ISO 8601; a time without an offset, or a date alone, is in ``zone``)
    as the span it names; None for ``""``; ``ValueError`` for text that is no ISO 8601 time."""
    value = (value or "").strip()
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"published_at {value[:40]!r} is not an ISO 8601 time") from None
    if not when.tzinfo:
        when = when.replace(tzinfo=zone)
    start = int(when.timestamp())
    if len(value) == 10:  # a date alone: any time of that day
        return Published(start, start + 86_399)
    return Published(start, start)


class Document(NamedTuple):
    """What the index decides on: an id, its simhash, for the second signal its sentence
    keys and length code (``Fingerprint.sentences`` and ``.length``), and for
    ``original="earliest"`` when it was published, if known, the key of the outlet whose
    page it is and that of the outlet it names as its source when that is another
    (``outlet_key``; 0: none)."""

    id: str
    simhash: int
    sentences: tuple[int, ...] = ()
    length: int = 0
    published: Published | None = None
    outlet: int = 0
    credits: int = 0


Item = Document | tuple[str, int]


def as_documents(items: Sequence[Item]) -> list[Document]:
    return [item if isinstance(item, Document) else Document(*item) for item in items]


def check_document(doc: Document) -> None:
    """Raise ``ValueError`` for a document the index cannot hold as given."""
    if not isinstance(doc.simhash, int) or not 0 <= doc.simhash < 1 << 64:
        raise ValueError(f"{doc.id}: a simhash is an integer of 64 bits, got {doc.simhash!r}")
    if not 0 <= doc.length <= 255 or any(not 0 <= k < 1 << 24 for k in doc.sentences):
        raise ValueError(f"{doc.id}: sentence keys must be 24-bit and the length code a byte")
    if len(doc.sentences) > 255:
        raise ValueError(f"{doc.id}: at most 255 sentence keys, got {len(doc.sentences)}")
    if doc.published is not None and not 0 < doc.published.earliest <= doc.published.latest < 1 << 32:
        raise ValueError(f"{doc.id}: a publication time is between 1970 and 2106, got {doc.published!r}")
    if not (0 <= doc.outlet < 1 << 32 and 0 <= doc.credits < 1 << 32):
        raise ValueError(f"{doc.id}: outlet keys are 32-bit, got {doc.outlet!r} and {doc.credits!r}")


@dataclass(frozen=True)
class Decision:
    """The verdict on one document. ``duplicate_of`` is None when it was kept; ``rule``
    says which signal dropped it (``"simhash"`` or ``"sentences"``), and ``distance`` is
    the simhash distance either way."""

    id: str
    simhash: int
    duplicate_of: str | None = None
    distance: int | None = None
    replayed: bool = False  # the id was decided before; this is that earlier decision
    rule: str | None = None
    # kept as the story's original: the ids kept before that it replaces (published later)
    supersedes: tuple[str, ...] = ()

    @property
    def kept(self) -> bool:
        return self.duplicate_of is None


@dataclass(frozen=True)
class Match:
    """A kept document near a query: its distance, and the first table whose key blocks the
    two share (-1: none, so the simhash rule could never have met it)."""

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
    rule: str = SIMHASH


def id_key(doc_id: str) -> bytes:
    """The 8 bytes a document's id is filed under (the first of its SHA-1, which a script
    computes too: ``lua/ids.lua``, ``lua/drops.lua``): a URL costs its length once (with its
    simhash), not twice."""
    return hashlib.sha1(doc_id.encode("utf-8")).digest()[:8]


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class FingerprintStore(ABC):
    """Kept fingerprints in tables keyed by their blocks (``layout.py``: by default four
    tables keyed by their 16-bit blocks), their longest sentences in a table keyed by the
    sentence, plus a record of drops.

    ``decide_many`` decides documents in order, each against everything kept before it
    (including earlier documents of the same call), and is atomic: concurrent callers
    never both keep two documents within ``max_distance`` of each other, nor two that the
    sentence rule (when there is one) calls duplicates. The simhash rule is tried first;
    the sentence rule only when it finds nothing. A document whose id was decided before
    gets that earlier decision back, so re-running is harmless.

    With ``original="earliest"``, a document published earlier than the kept document it
    matches, or of the outlet that one names as its source (``original_of``), is the story's
    original: it is kept, in the same atomic step, and the one kept before becomes its copy
    (a drop record naming it; the copies that named the old one name it too): its
    ``Decision.supersedes`` names the one it replaced. Copies without a time, or as early as
    each other, and naming no other's outlet keep the first decided (``"first"``: always).
    """

    def __init__(
        self,
        max_distance: int = defaults.DEDUP_MAX_DISTANCE,
        sentences: SentenceRule | None = None,
        original: str = defaults.DEDUP_ORIGINAL,
        blocks: tuple[int, ...] = DEFAULT_BLOCKS,
    ) -> None:
        self.layout = Layout(tuple(blocks), max_distance)
        self.max_distance = max_distance
        self.sentence_rule = sentences
        self.original = check_original(original)

    @abstractmethod
    def decide_many(self, items: Sequence[Item]) -> list[Decision]:
        """Decide ``Document``s (or ``(id, simhash)`` pairs: no sentences) in order."""

    def decide(self, doc_id: str, simhash: int, sentences: tuple[int, ...] = (), length: int = 0) -> Decision:
        return self.decide_many([Document(doc_id, simhash, sentences, length)])[0]

    @abstractmethod
    def sentence_holders(self, sentences: Sequence[int], length: int) -> list[list[tuple[str, int]]]:
        """Per sentence key, ``(id, simhash)`` of the kept documents holding it whose size is
        within the sentence rule's length ratio of ``length`` (what ``explain`` shows)."""

    @abstractmethod
    def nearest(self, simhash: int, limit: int = 10) -> list[Match]:
        """The ``limit`` kept documents nearest to ``simhash``, nearest first.
        Every kept fingerprint is read, not only the four buckets a decision reads: an
        article's copy 20 bits away usually shares no block with it, and this is what
        ``explain`` shows a user asking why it was kept."""

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
        """Recorded drops (up to ``limit``), newest first."""

    @abstractmethod
    def counts(self) -> dict[str, int]:
        """``kept`` and ``dropped`` totals, and ``drops:<YYYY-MM-DD>`` per UTC day."""
