"""The index in process memory: for unit tests, small jobs and as the reference algorithm."""

from __future__ import annotations

import dataclasses
import threading
from collections import Counter, defaultdict
from collections.abc import Sequence

from news_crawler import defaults
from news_crawler.dedup.fingerprint.simhash64 import distance
from news_crawler.dedup.index.base import (
    SENTENCES,
    SIMHASH,
    Decision,
    Document,
    DropRecord,
    FingerprintStore,
    Item,
    Match,
    SentenceRule,
    as_documents,
    now_iso,
    original_of,
)
from news_crawler.dedup.index.layout import DEFAULT_BLOCKS


class MemoryStore(FingerprintStore):
    def __init__(
        self,
        max_distance: int = 3,
        sentences: SentenceRule | None = None,
        original: str = defaults.DEDUP_ORIGINAL,
        blocks: tuple[int, ...] = DEFAULT_BLOCKS,
    ) -> None:
        super().__init__(max_distance, sentences, original, blocks)
        # per table (layout.py): the kept fingerprints by their key in it
        self._tables: list[dict[int, list[int]]] = [defaultdict(list) for _ in self.layout.tables]
        # Sentence key -> (kept simhash, its length code), in the order they were kept.
        # Forgetting a document leaves its entries here; they name no kept document and are
        # skipped, as in Redis.
        self._sentences: dict[int, list[tuple[int, int]]] = defaultdict(list)
        self._ids: dict[int, str] = {}
        # kept simhash -> its earliest publication second (0: unknown) and the outlet it credits
        self._published: dict[int, tuple[int, int]] = {}
        self._docs: dict[str, int] = {}
        self._drops: dict[str, DropRecord] = {}
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def _candidates(self, fp: int) -> list[int]:
        """Every kept fingerprint sharing a table's key with ``fp``."""
        return [other for t, key in enumerate(self.layout.keys(fp)) for other in self._tables[t].get(key, ())]

    def decide_many(self, items: Sequence[Item]) -> list[Decision]:
        out = []
        with self._lock:
            for doc in as_documents(items):
                out.append(self._decide(doc))
        return out

    def _decide(self, doc: Document) -> Decision:
        earlier = self._lookup(doc.id)
        if earlier is not None:
            return earlier
        fp = doc.simhash
        best, rule = self._nearest_within(fp), SIMHASH
        if best is None:
            best, rule = self._sentence_match(doc), SENTENCES
        if best is not None:
            d, other = best
            kept_published, kept_credits = self._published.get(other, (0, 0))
            if self.original == "earliest" and original_of(doc, kept_published, kept_credits):
                superseded = self._ids[other]
                self._supersede(other, doc, d, rule)
                return Decision(doc.id, fp, supersedes=(superseded,))
            self._record_drop(DropRecord(doc.id, fp, self._ids[other], d, now_iso(), rule))
            return Decision(doc.id, fp, self._ids[other], d, rule=rule)
        self._keep(doc)
        return Decision(doc.id, fp)

    def _record_drop(self, record: DropRecord) -> None:
        self._drops[record.id] = record
        self._counts["dropped"] += 1
        self._counts["drops:" + record.time[:10]] += 1
        if record.rule == SENTENCES:
            self._counts["dropped:sentences"] += 1

    def _supersede(self, other: int, doc: Document, d: int, rule: str) -> None:
        """``doc`` is kept as the story's original; ``other``, kept before, becomes its copy,
        and so do the copies that named it."""
        old = self._ids[other]
        self._unkeep(old)
        self._keep(doc)
        for doc_id, drop in self._drops.items():
            if drop.duplicate_of == old:
                self._drops[doc_id] = dataclasses.replace(drop, duplicate_of=doc.id)
        self._record_drop(DropRecord(old, other, doc.id, d, now_iso(), rule))
        self._counts["superseded"] += 1

    def _keep(self, doc: Document) -> None:
        """Into the tables, the sentence buckets and the ids."""
        fp = doc.simhash
        for t, key in enumerate(self.layout.keys(fp)):
            self._tables[t][key].append(fp)
        if self.sentence_rule:
            for key in doc.sentences:
                self._sentences[key].append((fp, doc.length))
        self._ids[fp] = doc.id
        if doc.published is not None or doc.credits:
            self._published[fp] = (doc.published.earliest if doc.published else 0, doc.credits)
        self._docs[doc.id] = fp
        self._counts["kept"] += 1

    def _unkeep(self, doc_id: str) -> int:
        """Out of the tables and the ids (its sentence entries stay, naming no kept id)."""
        fp = self._docs.pop(doc_id)
        for t, key in enumerate(self.layout.keys(fp)):
            self._tables[t][key].remove(fp)
        del self._ids[fp]
        self._published.pop(fp, None)
        self._counts["kept"] -= 1
        return fp

    def _nearest_within(self, fp: int) -> tuple[int, int] | None:
        """Nearest kept fingerprint within max distance; ties go to the smallest fingerprint,
        exactly as ``decide.lua`` breaks them (and as a scan of every kept one would)."""
        near = [(distance(fp, other), other) for other in self._candidates(fp)]
        return min((x for x in near if x[0] <= self.max_distance), default=None)

    def _sentence_match(self, doc: Document) -> tuple[int, int] | None:
        """(distance, simhash) of the kept document sharing the most of ``doc``'s sentences
        (at least the rule's ``needed``), within its distance and length ratio; ties go to
        the nearer, then to the smaller fingerprint, exactly as ``decide.lua`` breaks them."""
        rule = self.sentence_rule
        if rule is None or not doc.sentences:
            return None
        needed = rule.needed(len(doc.sentences))
        slack = rule.length_slack
        shared: dict[int, int] = {}  # insertion order is the order found
        for key in doc.sentences:
            seen = set()
            for other, length in self._sentences.get(key, ()):
                if abs(length - doc.length) <= slack and other not in seen:
                    seen.add(other)
                    shared[other] = shared.get(other, 0) + 1
        best: tuple[int, int, int] | None = None  # (shared, distance, simhash)
        for other, n in shared.items():
            if n < needed:
                continue
            d = distance(doc.simhash, other)
            if d > rule.max_distance or other not in self._ids:
                continue
            # the most shared, then the nearest, then the smallest fingerprint
            if best is None or (n, -d, -other) > (best[0], -best[1], -best[2]):
                best = (n, d, other)
        return None if best is None else (best[1], best[2])

    def sentence_holders(self, sentences: Sequence[int], length: int) -> list[list[tuple[str, int]]]:
        slack = (self.sentence_rule or SentenceRule()).length_slack
        with self._lock:
            return [
                list(
                    dict.fromkeys(
                        (self._ids[fp], fp)
                        for fp, n in self._sentences.get(key, ())
                        if fp in self._ids and abs(n - length) <= slack
                    )
                )
                for key in sentences
            ]

    def _lookup(self, doc_id: str) -> Decision | None:
        if doc_id in self._docs:
            return Decision(doc_id, self._docs[doc_id], replayed=True)
        drop = self._drops.get(doc_id)
        if drop is not None and drop.duplicate_of not in self._docs:  # what it duplicated was forgotten:
            del self._drops[doc_id]  # decided afresh, as in Redis (lua/drops.lua)
            drop = None
        if drop is not None:
            return Decision(doc_id, drop.simhash, drop.duplicate_of, drop.distance, replayed=True, rule=drop.rule)
        return None

    def lookup(self, doc_id: str) -> Decision | None:
        with self._lock:
            return self._lookup(doc_id)

    def forget(self, doc_id: str) -> str:
        with self._lock:
            if doc_id in self._docs:
                self._unkeep(doc_id)
                return "kept"
            drop = self._drops.pop(doc_id, None)
            if drop is not None:
                self._counts["dropped"] -= 1
                if drop.rule == SENTENCES:
                    self._counts["dropped:sentences"] -= 1
                if self._counts["drops:" + drop.time[:10]] > 0:  # the day it was counted under
                    self._counts["drops:" + drop.time[:10]] -= 1
                return "dropped"
            return ""

    def nearest(self, simhash: int, limit: int = 10) -> list[Match]:
        with self._lock:
            kept = list(self._ids.items())
        found = [Match(i, fp, distance(simhash, fp), self.layout.shared_table(simhash, fp)) for fp, i in kept]
        return sorted(found, key=lambda m: (m.distance, m.id))[:limit]

    def drops(self, limit: int = 100) -> list[DropRecord]:
        with self._lock:
            return list(reversed(self._drops.values()))[:limit]  # newest first

    def counts(self) -> dict[str, int]:
        with self._lock:
            return {"kept": 0, "dropped": 0, **self._counts}
