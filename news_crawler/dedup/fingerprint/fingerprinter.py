"""From an article's text to its fingerprint, with a reason whenever that is impossible."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from news_crawler import defaults
from news_crawler.dedup.fingerprint.sentences import signature_and_length
from news_crawler.dedup.fingerprint.text import normalize, strip_boilerplate
from news_crawler.dedup.fingerprint.weights import TfidfWeigher


class UnusableText(ValueError):
    """The text cannot be fingerprinted; ``str(error)`` says why."""


@dataclass(frozen=True)
class Fingerprint:
    """The simhash, and the second signal: the longest sentences' keys and the text's size
    (``sentences.py``); ``sentences`` is empty when that signal is off or the text has none."""

    value: int
    words: int
    truncated: bool
    sentences: tuple[int, ...] = ()
    length: int = 0


class Fingerprinter:
    """Normalise, drop reprint boilerplate, weight words by TF-IDF and take the simhash.

    The defaults are the ones chosen on the quality benchmark (see BENCHMARKS.md): every
    word rather than a top-k, no title (reprints change headlines), boilerplate lines out,
    the lead weighted more than the tail, no single word above a tenth of the weight.
    """

    def __init__(
        self,
        use_title: bool = defaults.DEDUP_USE_TITLE,
        strip_boilerplate: bool = defaults.DEDUP_STRIP_BOILERPLATE,
        max_chars: int = defaults.DEDUP_MAX_CHARS,
        sentence_count: int = defaults.DEDUP_SENTENCE_COUNT,
        sentence_min_chars: int = defaults.DEDUP_SENTENCE_MIN_CHARS,
        **weighing: Any,
    ) -> None:
        """``weighing``: the keyword arguments of ``TfidfWeigher`` (IDF table, stop words,
        topic words, top-k, HMM, position decay, word share cap, user dictionary, segmenter)."""
        if max_chars < 1:
            raise ValueError(f"max_chars must be positive, got {max_chars}")
        if sentence_count < 0 or sentence_min_chars < 1:
            raise ValueError(
                f"sentence_count must be >= 0 and sentence_min_chars >= 1, "
                f"got {sentence_count} and {sentence_min_chars}"
            )
        self.sentence_count = sentence_count
        self.sentence_min_chars = sentence_min_chars
        self.weigher = TfidfWeigher(**weighing)
        self.use_title = use_title
        self.strip_boilerplate = strip_boilerplate
        self.max_chars = max_chars

    def prepare(self, body: str, title: str = "") -> tuple[str, bool]:
        """The text that is segmented, and whether it was cut at ``max_chars``."""
        if not isinstance(body, str):
            raise UnusableText(f"body must be text, got {type(body).__name__}")
        text = normalize(body)
        if self.strip_boilerplate:
            text = strip_boilerplate(text)
        if self.use_title and title:
            text = normalize(title) + "\n" + text
        truncated = len(text) > self.max_chars
        return (text[: self.max_chars] if truncated else text), truncated

    def features(self, body: str, title: str = "") -> list[tuple[str, float]]:
        return self.weigher.features(self.prepare(body, title)[0])

    def fingerprint(self, body: str, title: str = "") -> Fingerprint:
        """Fingerprint an article body; raise ``UnusableText`` for empty or wordless text."""
        if not isinstance(body, str):
            raise UnusableText(f"body must be text, got {type(body).__name__}")
        if not body.strip():
            raise UnusableText("empty body")
        text, truncated = self.prepare(body, title)
        if not text:
            raise UnusableText("body has only boilerplate or invisible characters")
        value, words = self.weigher.fingerprint_words(self.weigher.words(text))
        if not words:
            raise UnusableText("body has no words to fingerprint (only punctuation, digits or stop words)")
        if not self.sentence_count:
            return Fingerprint(value, words, truncated)
        keys, length = signature_and_length(text, self.sentence_count, self.sentence_min_chars)
        return Fingerprint(value, words, truncated, keys, length)
