"""Every word a weigher has seen, numbered, with what the fingerprint needs of it: its IDF
(NaN when the word carries no weight), its simhash digest, whether it is a topic word.

News vocabulary repeats, so a word is looked at once: afterwards an article is a list of
numbers, and weighting and hashing are a few array operations on them. Bounded: when full,
it starts again empty.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from news_crawler.dedup.fingerprint.simhash64 import digest

LIMIT = 500_000


class Vocabulary:
    def __init__(
        self,
        idfs: Callable[[list[str]], np.ndarray],
        topic_words: frozenset[str] = frozenset(),
        limit: int = LIMIT,
    ) -> None:
        self.idfs = idfs  # the words' IDFs, NaN for a word that carries no weight
        self.topic_words = topic_words
        self.limit = limit
        self._reset()

    def _reset(self, capacity: int = 4096) -> None:
        self.ids: dict[str, int] = {}
        self.idf = np.empty(capacity, dtype=np.float64)
        self.digests = np.empty((capacity, 8), dtype=np.uint8)
        self.topic = np.empty(capacity, dtype=bool)
        self._place = np.empty(capacity, dtype=np.intp)  # number's place among a text's distinct words

    def _reserve(self, size: int) -> None:
        """Room for ``size`` words, doubling: adding stays linear in the words added."""
        capacity = len(self.idf)
        if size <= capacity:
            return
        while capacity < size:
            capacity *= 2
        for name in ("idf", "digests", "topic", "_place"):
            old = getattr(self, name)
            grown = np.empty((capacity, *old.shape[1:]), dtype=old.dtype)
            grown[: len(old)] = old
            setattr(self, name, grown)

    def __len__(self) -> int:
        return len(self.ids)

    def number(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(numbers, inverse)``: the vocabulary numbers of the distinct words of ``words`` in
        order of first occurrence (new words are added), and for each word of ``words`` the
        index of its distinct word. The dict work is done by C loops (``dict.fromkeys``,
        ``map``): this is the fingerprint's hottest Python; the rest is in numpy."""
        distinct = dict.fromkeys(words)
        numbers = list(map(self.ids.get, distinct))
        if None in numbers:
            new = [w for w, n in zip(distinct, numbers) if n is None]
            if len(self.ids) + len(new) > self.limit:
                self._reset()
                new = list(distinct)
            self._add(new)
            numbers = list(map(self.ids.__getitem__, distinct))
        found = np.array(numbers, dtype=np.intp)
        every = np.fromiter(map(self.ids.__getitem__, words), dtype=np.intp, count=len(words))
        # Each number's place among the distinct ones, written where this text's numbers are
        # (the rest of the scratch array is never read), then read for every word.
        place = self._place
        place[found] = np.arange(found.size, dtype=np.intp)
        return found, place[every]

    def _add(self, new: list[str]) -> None:
        start, end = len(self.ids), len(self.ids) + len(new)
        self._reserve(end)
        self.ids.update(zip(new, range(start, end)))
        self.idf[start:end] = self.idfs(new)
        self.digests[start:end] = np.frombuffer(b"".join([digest(w) for w in new]), dtype=np.uint8).reshape(-1, 8)
        self.topic[start:end] = [w in self.topic_words for w in new]
