"""TF-IDF weights of segmented words, each instance with its own configuration."""

from __future__ import annotations

import functools
import heapq
import operator
import threading
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from news_crawler import defaults
from news_crawler.dedup.fingerprint.idf import load_idf
from news_crawler.dedup.fingerprint.segment import Segmenter
from news_crawler.dedup.fingerprint.simhash64 import WEIGHT_QUANTUM, fingerprint, from_digests
from news_crawler.dedup.fingerprint.vocabulary import Vocabulary

_WORD_CACHE_LIMIT = 500_000  # words remembered (IDF or "no weight"); cleared when full
DEFAULT_STOP_WORDS = Path(__file__).with_name("stop_words.txt")


def read_word_list(path: str | Path) -> set[str]:
    """One word per line, UTF-8; blank lines and ``#`` comments ignored."""
    words = set()
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            words.add(line.lower())
    return words


class TfidfWeigher:
    """Turns normalised text into ``(word, weight)`` features.

    The weight of a word is its IDF (jieba's table unless ``idf_path`` is given; unknown
    words get the median IDF) times its term frequency, where the n-th counted word of the
    text counts ``1 / (1 + n / position_decay)`` rather than 1 (``position_decay=0``: every
    occurrence counts 1). No word may carry more than ``max_word_share`` of the total
    weight; configured topic words are then multiplied by ``topic_weight``. Weights are
    rounded to a multiple of ``1 / WEIGHT_QUANTUM`` so fingerprint sums are exact. Words
    of one character and stop words carry no weight.

    Why: reprints cut the end, append boilerplate, add or drop a sentence; the lead
    survives. Weighting the lead keeps a reprint's fingerprint close, and the cap keeps
    one dominant name (every obituary of one person) from making distinct stories collide.
    The benchmark in BENCHMARKS.md chose the values.
    """

    def __init__(
        self,
        *,
        idf_path: str | Path | None = None,
        stop_words_path: str | Path | None = None,
        topic_words: Iterable[str] = (),
        topic_weight: float = defaults.DEDUP_TOPIC_WEIGHT,
        top_k: int | None = None,
        hmm: bool = defaults.DEDUP_HMM,
        position_decay: float = defaults.DEDUP_POSITION_DECAY,
        max_word_share: float = defaults.DEDUP_MAX_WORD_SHARE,
        user_dict: str | Path | None = None,
        segmenter: str = defaults.DEDUP_SEGMENTER,
    ) -> None:
        if position_decay < 0:
            raise ValueError(f"position_decay must be >= 0 (0 turns it off), got {position_decay}")
        if not 0 < max_word_share <= 1:
            raise ValueError(f"max_word_share must be in (0, 1] (1 turns the cap off), got {max_word_share}")
        if topic_weight <= 0:
            raise ValueError(f"topic_weight must be positive, got {topic_weight}")
        if top_k is not None and top_k < 1:
            raise ValueError(f"top_k must be a positive number of words or None for all, got {top_k}")
        self.idf = load_idf(str(idf_path) if idf_path else None)
        self.stop_words = read_word_list(stop_words_path or DEFAULT_STOP_WORDS)
        self.topic_words = frozenset(w.lower() for w in topic_words)
        self.topic_weight = topic_weight
        self.top_k = top_k
        self.hmm = hmm
        self.position_decay = position_decay
        self.max_word_share = max_word_share
        self._positions: list[float] = []
        self.segment = Segmenter(hmm, user_dict, segmenter)
        self._word_idf: dict[str, float | None] = {}  # word -> IDF, or None for a word without weight
        self._position_np = np.empty(0)
        self.vocabulary = Vocabulary(self.idfs, self.topic_words)
        self.lock = threading.Lock()

    def _position_array(self, n: int) -> np.ndarray:
        if self._position_np.size < n:
            self._position_np = np.array(self._position_weights(n), dtype=np.float64)
        return self._position_np[:n]

    def _position_weights(self, n: int) -> list[float]:
        """``1 / (1 + i / position_decay)`` for i < n, computed once and extended as needed."""
        table = self._positions
        if len(table) < n:
            decay = 1.0 / self.position_decay
            table.extend(1.0 / (1.0 + i * decay) for i in range(len(table), max(n, 2 * len(table))))
        return table

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "lock"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, lock=threading.Lock())

    def words(self, text: str) -> list[str]:
        """jieba's segmentation of ``text`` (precise mode)."""
        return self.segment(text)

    def _learn(self, words: Iterable[str]) -> dict[str, float | None]:
        """The word cache, knowing every word of ``words``: its IDF, or None when it carries no
        weight (``idfs``)."""
        cache = self._word_idf
        new = list(dict.fromkeys(w for w in words if w not in cache))
        if new:
            if len(cache) + len(new) > _WORD_CACHE_LIMIT:
                cache.clear()
            cache.update(zip(new, (None if v != v else v for v in self.idfs(new).tolist())))  # NaN: no weight
        return cache

    def idfs(self, words: list[str]) -> np.ndarray:
        """The IDF of each word (the median for a word the table lacks), NaN for a word that
        carries no weight: one character, a stop word, or a run like "......" or "--" (a word
        must start or end with a letter or digit)."""
        values = self.idf.lookup(words)
        stop = self.stop_words
        weightless = [len(w) < 2 or w in stop or not (w[0].isalnum() or w[-1].isalnum()) for w in words]
        values[np.array(weightless, dtype=bool)] = np.nan
        return values

    def weigh_numbers(self, words: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """``weigh`` on arrays, for speed: the vocabulary numbers of the features in
        first-occurrence order, and their weights; the same features as ``weigh`` (without
        ``top_k``), bit for bit. Call under ``self.lock``: the vocabulary is shared."""
        vocab = self.vocabulary
        numbers, inverse = vocab.number(words)
        weighed = ~np.isnan(vocab.idf[numbers])  # per distinct word
        inverse = inverse[weighed[inverse]]  # the weighed occurrences, in order
        if not inverse.size:
            return inverse, np.empty(0)
        if self.position_decay:  # bincount adds in array order: the same sums as weigh's loop
            tf = np.bincount(inverse, self._position_array(inverse.size), minlength=numbers.size)
        else:
            tf = np.bincount(inverse, minlength=numbers.size).astype(np.float64)
        numbers = numbers[weighed]  # first-occurrence order, as weigh's dict keeps them
        weights = tf[weighed] * vocab.idf[numbers]
        if self.max_word_share < 1:
            cap = self.max_word_share * float(np.cumsum(weights)[-1])  # sequential, as weigh sums
            weights = np.minimum(weights, cap)
        if self.topic_words:
            weights[vocab.topic[numbers]] *= self.topic_weight
        weights = np.rint(weights * WEIGHT_QUANTUM) / WEIGHT_QUANTUM
        kept = weights > 0
        return numbers[kept], weights[kept]

    def fingerprint_words(self, words: list[str]) -> tuple[int, int]:
        """``(simhash, number of features)`` of segmented words: ``fingerprint(weigh(words))``."""
        if self.top_k:
            features = self.weigh(words)
            return fingerprint(features), len(features)
        with self.lock:
            numbers, weights = self.weigh_numbers(words)
            return from_digests(self.vocabulary.digests[numbers].ravel(), weights), int(weights.size)

    def features(self, text: str) -> list[tuple[str, float]]:
        """Weighted words of ``text``, heaviest first when ``top_k`` is set."""
        return self.weigh(self.words(text))

    def weigh(self, words: Iterable[str]) -> list[tuple[str, float]]:
        """Weighted features of already segmented words."""
        words = words if isinstance(words, list) else list(words)
        word_idf = self._learn(words)
        kept = [w for w in words if word_idf[w] is not None]
        tf: dict[str, float] = {}
        if self.position_decay:
            get = tf.get
            for w, share in zip(kept, self._position_weights(len(kept))):
                tf[w] = get(w, 0.0) + share
        else:
            tf.update(Counter(kept))
        weights = {w: f * (word_idf[w] or 0.0) for w, f in tf.items()}  # every kept word has an IDF
        if self.max_word_share < 1 and weights:
            cap = self.max_word_share * functools.reduce(operator.add, weights.values())  # left to right
            weights = {w: min(v, cap) for w, v in weights.items()}
        if self.topic_words:
            boost = self.topic_weight
            for w in self.topic_words & weights.keys():
                weights[w] *= boost
        items = (
            heapq.nlargest(self.top_k, weights.items(), key=lambda kv: (kv[1], kv[0]))
            if self.top_k
            else weights.items()
        )
        quantum = WEIGHT_QUANTUM
        out = []
        for word, weight in items:
            q = round(weight * quantum) / quantum
            if q > 0:
                out.append((word, q))
        return out
