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

import numpy as np

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


def _crc_tables() -> tuple[np.ndarray, int]:
    """``(tables, z)`` with ``crc32(run) == z ^ tables[0][c0] ^ ... ^ tables[3][c3]`` for a
    run of four BMP characters ``c0..c3`` in UTF-32: CRC-32 is affine over GF(2), so a run's
    CRC is the XOR of what each byte contributes at its place, and a byte's contribution is
    the XOR of its bits'. 128 CRCs of one bit and a few array operations."""
    width = 4 * RUN
    z = crc32(bytes(width))
    values = np.arange(256, dtype=np.uint32)

    def byte_table(at: int) -> np.ndarray:  # what each value of the byte at ``at`` adds
        table = np.zeros(256, dtype=np.uint32)
        for bit in range(8):
            single = bytearray(width)
            single[at] = 1 << bit
            table[(values >> bit) & 1 == 1] ^= crc32(bytes(single)) ^ z
        return table

    points = np.arange(1 << 16, dtype=np.uint32)
    tables = np.empty((RUN, 1 << 16), dtype=np.uint32)
    for place in range(RUN):  # a BMP character in UTF-32 LE: its low byte, its high byte, two zeros
        tables[place] = byte_table(4 * place)[points & 255] ^ byte_table(4 * place + 1)[points >> 8]
    return tables, z


_TABLES, _Z = _crc_tables()
# x * _MIX % _PRIME for x < 2**32 in uint64 arithmetic, without overflow: _MIX mod the prime
# split at bit 32, and 2**61 == 1 modulo 2**61 - 1.
_MIX_HIGH, _MIX_LOW = np.uint64((_MIX % _PRIME) >> 32), np.uint64((_MIX % _PRIME) & 0xFFFFFFFF)
_U29, _U32, _U61, _P = np.uint64((1 << 29) - 1), np.uint64(32), np.uint64(61), np.uint64(_PRIME)


def _mixed(crcs: np.ndarray) -> np.ndarray:
    """``crc * _MIX % _PRIME`` of each CRC, exactly as Python's integers compute it."""
    high = crcs * _MIX_HIGH  # < 2**61; times 2**32 modulo the prime:
    high = (high >> np.uint64(29)) + ((high & _U29) << _U32)
    low = crcs * _MIX_LOW  # < 2**64
    mixed: np.ndarray = (high + (low >> _U61) + (low & _P)) % _P
    return mixed


def sentence_keys(sentences: list[str]) -> list[int]:
    """The 24-bit key of each reduced sentence: the ``LOWEST`` lowest hashes of its runs of
    ``RUN`` Chinese characters, and its quantities and Latin words (module docstring)."""
    # A run's hash: CRC-32 over its UTF-32 (four bytes a character), a third of the time of
    # blake2b, then multiplied modulo a prime, which orders the runs at random: CRC-32 alone
    # is linear, and its order let more unrelated sentences share keys (BENCHMARKS.md). The
    # runs of all the sentences are hashed at once, as arrays.
    hans = [_NOT_HAN.sub("", s) for s in sentences]
    points = np.frombuffer("".join(hans).encode("utf-32-le"), dtype=np.uint32)
    n = points.size - RUN + 1
    hashes = np.empty(0, dtype=np.uint64)
    if n > 0:
        crcs = np.full(n, _Z, dtype=np.uint32)
        for place in range(RUN):
            crcs ^= _TABLES[place][points[place : place + n]]
        hashes = _mixed(crcs.astype(np.uint64))
    keys, start = [], 0
    for sentence, han in zip(sentences, hans):
        end = start + len(han)
        lowest: list[int] = []
        if len(han) >= RUN:
            for h in np.sort(hashes[start : end - RUN + 1]).tolist():  # the LOWEST lowest, without repeats
                if not lowest or h != lowest[-1]:
                    lowest.append(h)
                    if len(lowest) == LOWEST:
                        break
        else:  # too short for a run: the sentence's characters are its one run
            lowest.append(crc32(han.encode("utf-32-le")) * _MIX % _PRIME)
        start = end
        kept = " ".join(_QUANTITIES.findall(sentence)) + "#" + " ".join(map(str, lowest))
        keys.append(int.from_bytes(blake2b(kept.encode("utf-8"), digest_size=KEY_BITS // 8).digest(), "big"))
    return keys


def sentence_key(sentence: str) -> int:
    """The key of one reduced sentence (``sentence_keys``)."""
    return sentence_keys([sentence])[0]


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
    keys = tuple(dict.fromkeys(sentence_keys(longest_sentences(prepared, count, min_chars, reduced))))
    return keys, _code(len(reduced) - sum(map(reduced.count, "。！？!?；;\n")))


def signature(prepared: str, count: int, min_chars: int) -> tuple[int, ...]:
    """The keys of the ``count`` longest sentences, without repeats, longest first."""
    return tuple(dict.fromkeys(sentence_keys(longest_sentences(prepared, count, min_chars))))


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
