"""The index in process memory: for unit tests, small jobs and as the reference algorithm."""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from collections.abc import Sequence

from news_crawler.fingerprint.simhash64 import BLOCKS, blocks, distance
from news_crawler.index.base import Decision, DropRecord, FingerprintStore, Match, now_iso


class MemoryStore(FingerprintStore):
    def __init__(self, max_distance: int = 3) -> None:
        super().__init__(max_distance)
        self._tables: list[dict[int, list[int]]] = [defaultdict(list) for _ in range(BLOCKS)]
        self._ids: dict[int, str] = {}
        self._docs: dict[str, int] = {}
        self._drops: dict[str, DropRecord] = {}
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def _candidates(self, fp: int) -> list[tuple[int, int]]:
        """(kept simhash, table) for every kept fingerprint sharing a block with ``fp``."""
        return [(other, t) for t, b in enumerate(blocks(fp)) for other in self._tables[t].get(b, ())]

    def decide_many(self, items: Sequence[tuple[str, int]]) -> list[Decision]:
        out = []
        with self._lock:
            for doc_id, fp in items:
                earlier = self._lookup(doc_id)
                if earlier is not None:
                    out.append(earlier)
                    continue
                best = self._nearest_within(fp)
                if best is not None:
                    d, other = best
                    time = now_iso()
                    self._drops[doc_id] = DropRecord(doc_id, fp, self._ids[other], d, time)
                    self._counts["dropped"] += 1
                    self._counts["drops:" + time[:10]] += 1
                    out.append(Decision(doc_id, fp, self._ids[other], d))
                    continue
                for t, b in enumerate(blocks(fp)):
                    self._tables[t][b].append(fp)
                self._ids[fp] = doc_id
                self._docs[doc_id] = fp
                self._counts["kept"] += 1
                out.append(Decision(doc_id, fp))
        return out

    def _nearest_within(self, fp: int) -> tuple[int, int] | None:
        """Nearest kept fingerprint within max distance; ties go to the first found, table
        by table in insertion order, exactly as ``decide.lua`` breaks them."""
        best: tuple[int, int] | None = None
        for other, _ in self._candidates(fp):
            d = distance(fp, other)
            if d <= self.max_distance and (best is None or d < best[0]):
                best = (d, other)
        return best

    def _lookup(self, doc_id: str) -> Decision | None:
        if doc_id in self._docs:
            return Decision(doc_id, self._docs[doc_id], replayed=True)
        drop = self._drops.get(doc_id)
        if drop is not None:
            return Decision(doc_id, drop.simhash, drop.duplicate_of, drop.distance, replayed=True)
        return None

    def lookup(self, doc_id: str) -> Decision | None:
        with self._lock:
            return self._lookup(doc_id)

    def forget(self, doc_id: str) -> str:
        with self._lock:
            fp = self._docs.pop(doc_id, None)
            if fp is not None:
                for t, b in enumerate(blocks(fp)):
                    self._tables[t][b].remove(fp)
                del self._ids[fp]
                self._counts["kept"] -= 1
                return "kept"
            if self._drops.pop(doc_id, None) is not None:
                self._counts["dropped"] -= 1
                return "dropped"
            return ""

    def nearest(self, simhash: int, limit: int = 10) -> list[Match]:
        with self._lock:
            best: dict[int, Match] = {}
            for other, t in self._candidates(simhash):
                if other not in best:
                    best[other] = Match(self._ids[other], other, distance(simhash, other), t)
        return sorted(best.values(), key=lambda m: (m.distance, m.table, m.id))[:limit]

    def drops(self, limit: int = 100) -> list[DropRecord]:
        with self._lock:
            return list(self._drops.values())[:limit]

    def counts(self) -> dict[str, int]:
        with self._lock:
            return {"kept": 0, "dropped": 0, **self._counts}
