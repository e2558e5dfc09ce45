"""The second near-duplicate signal: a document's longest sentences, hashed.

Two copies of a story keep most of its sentences word for word, or nearly, even when a
reprint adds a paragraph, cuts the tail, re-edits the lead or shortens a name, which moves
the simhash by more than ``DEDUP_MAX_DISTANCE``. The signature is the ``count`` longest
sentences of the prepared text (normalised, boilerplate out), each reduced to its letters
and digits (punctuation and spacing edits do not matter) and keyed in 24 bits: 16 for the
bucket it is stored in, 8 kept in the entry. Sentences that are mostly not Chinese (scripts,
links that leaked into the text) are left out: pages of one site share them.

A key forgives an edit of a few characters (``sentence_key``): it is made of the three runs
of four Chinese characters that hash lowest of the sentence's runs (a MinHash of three), so
two sentences whose runs overlap by Jaccard J share it with a probability of about J cubed,
one untouched by the edit always; and of its quantities and Latin words as they stand, so that
two stories cut from one template (another company's earnings date, another office's head
count) do not. Dates and times are not quantities: a desk rewrites them.

``length_code`` is the text's size on a 5% log scale in one byte: near-duplicates by
5-gram Jaccard >= 0.8 are within 20% of each other's size, and a short text whose
sentences are all inside a long one (a summary, a truncated copy) is not its duplicate.
"""

from __future__ import annotations

import math
import re
from hashlib import blake2b
from zlib import crc32

# Input is NFKC-normalised: "！？；" are "!?;" and "…" is "...". Sentences are reduced to
# their letters and digits in one pass over the text: an ellipsis becomes a line end, then
# everything but words and sentence ends goes, then the text is split at the ends.
_ELLIPSIS = re.compile(r"\.{2,}|…")
_NOT_WORD_OR_END = re.compile(r"[^\u4e00-\u9fffa-z0-9。！？!?；;\n]+")
_ENDS = re.compile(r"[。！？!?；;\n]+")
_NOT_WORD = re.compile(r"[^\u4e00-\u9fffa-z0-9]+")
_NOT_HAN = re.compile(r"[^\u4e00-\u9fff]+")
MIN_HAN_SHARE = 0.6
KEY_BITS = 24
_LENGTH_BASE = math.log(1.05)


RUN = 4  # Chinese characters in a run
LOWEST = 3  # runs a key is made of
_MIX, _PRIME = 0x9E3779B97F4A7C15, (1 << 61) - 1
# Figures and Latin words, but not a date's or a time's figures (2019年, 11月5日, 8时30分).
_QUANTITIES = re.compile(r"[a-z]+|[0-9]+(?![0-9年月日时点分号])")


def sentence_key(sentence: str) -> int:
    """The 24-bit key of a reduced sentence: the ``LOWEST`` lowest hashes of its runs of
    ``RUN`` Chinese characters, and its quantities and Latin words (module docstring)."""
    # A run's hash: CRC-32 over its UTF-32 (four bytes a character), a third of the time of
    # blake2b, then multiplied modulo a prime, which orders the runs at random: CRC-32 alone
    # is linear, and its order let more unrelated sentences share keys (BENCHMARKS.md).
    han = _NOT_HAN.sub("", sentence).encode("utf-32-le")
    width = 4 * RUN
    hashes = {crc32(han[i : i + width]) * _MIX % _PRIME for i in range(0, max(4, len(han) - width + 4), 4)}
    lowest = sorted(hashes)[:LOWEST]
    kept = " ".join(_QUANTITIES.findall(sentence)) + "#" + " ".join(map(str, lowest))
    return int.from_bytes(blake2b(kept.encode("utf-8"), digest_size=KEY_BITS // 8).digest(), "big")


def _reduced(prepared: str) -> str:
    """The text's letters, digits and sentence ends; an ellipsis is a sentence end."""
    if ".." in prepared or "…" in prepared:
        prepared = _ELLIPSIS.sub("\n", prepared)
    return _NOT_WORD_OR_END.sub("", prepared)


def longest_sentences(prepared: str, count: int, min_chars: int, reduced: str | None = None) -> list[str]:
    """Up to ``count`` distinct reduced sentences, longest first (ties by their text),
    each with at least ``min_chars`` Chinese characters making up most of it."""
    out: list[str] = []
    parts = set(_ENDS.split(_reduced(prepared) if reduced is None else reduced))
    for s in sorted((s for s in parts if len(s) >= min_chars), key=lambda s: (-len(s), s)):
        han = len(_NOT_HAN.sub("", s))
        if han >= min_chars and han >= MIN_HAN_SHARE * len(s):
            out.append(s)
            if len(out) == count:
                break
    return out


def signature_and_length(prepared: str, count: int, min_chars: int) -> tuple[tuple[int, ...], int]:
    """``signature`` and ``length_code`` of a text, sharing one pass over it."""
    reduced = _reduced(prepared)
    keys = tuple(dict.fromkeys(sentence_key(s) for s in longest_sentences(prepared, count, min_chars, reduced)))
    return keys, _code(len(reduced) - sum(map(reduced.count, "。！？!?；;\n")))


def signature(prepared: str, count: int, min_chars: int) -> tuple[int, ...]:
    """The keys of the ``count`` longest sentences, without repeats, longest first."""
    return tuple(dict.fromkeys(sentence_key(s) for s in longest_sentences(prepared, count, min_chars)))


def length_code(prepared: str) -> int:
    """The number of letters and digits in the text, as ``round(log_1.05(n))``, 0..255."""
    return _code(len(_NOT_WORD.sub("", prepared)))


def _code(n: int) -> int:
    return min(255, round(math.log(n) / _LENGTH_BASE)) if n > 1 else 0


def length_slack(ratio: float) -> int:
    """The largest difference of two length codes whose texts are within ``ratio`` of each
    other's size (0.8: 4)."""
    if not 0 < ratio <= 1:
        raise ValueError(f"length ratio must be in (0, 1], got {ratio}")
    return int(math.log(1 / ratio) / _LENGTH_BASE + 1e-9)
