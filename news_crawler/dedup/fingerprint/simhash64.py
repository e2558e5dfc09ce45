"""64-bit simhash of weighted features, bit-identical to ``simhash.Simhash(features, f=64)``.

``simhash.Simhash`` hashes each feature with MD5, keeps the last 8 bytes, and sets bit ``j``
(most significant first) when the weights of the features having bit ``j`` set add up to
more than half of all weights. We compute exactly that, but with a per-word digest cache
and one matrix product instead of one numpy array per feature.

Floating-point sums depend on their order, so identical results in every order need
exact sums: the weigher rounds weights to multiples of ``1 / WEIGHT_QUANTUM`` and keeps
their total far below 2**53 / WEIGHT_QUANTUM, which makes every partial sum exact.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

import numpy as np

BITS = 64
BLOCKS = 4
BLOCK_BITS = BITS // BLOCKS
BLOCK_MASK = (1 << BLOCK_BITS) - 1
WEIGHT_QUANTUM = 1024
_DIGEST_CACHE_LIMIT = 500_000


def digest(word: str) -> bytes:
    """The 8 bytes of ``word``'s MD5 that simhash uses (the last ones)."""
    return hashlib.md5(word.encode("utf-8")).digest()[-8:]


class _DigestCache:
    """Last 8 bytes of each word's MD5, as simhash uses them; bounded so a crawl cannot grow it forever."""

    def __init__(self, limit: int = _DIGEST_CACHE_LIMIT) -> None:
        self._digests: dict[str, bytes] = {}
        self._limit = limit

    def __call__(self, word: str) -> bytes:
        cached = self._digests.get(word)
        if cached is None:
            cached = digest(word)
            if len(self._digests) >= self._limit:
                self._digests.clear()
            self._digests[word] = cached
        return cached


_digest = _DigestCache()
# Bits of each byte value, most significant first, as np.unpackbits orders them.
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1).astype(np.float64)
_BYTE_OFFSETS = np.zeros(0, dtype=np.intp)


def _offsets(n: int) -> np.ndarray:
    global _BYTE_OFFSETS
    if _BYTE_OFFSETS.size < n * 8:
        _BYTE_OFFSETS = np.tile(np.arange(8, dtype=np.intp) * 256, max(n, 1024))
    return _BYTE_OFFSETS[: n * 8]


def fingerprint(features: Sequence[tuple[str, float]] | Iterable[tuple[str, float]]) -> int:
    """Return the 64-bit simhash of ``(feature, weight)`` pairs; 0 when there are none."""
    features = list(features)
    if not features:
        return 0
    words, weights = zip(*features)
    raw = np.frombuffer(b"".join([_digest(w) for w in words]), dtype=np.uint8)
    return from_digests(raw, np.asarray(weights, dtype=np.float64))


def from_digests(raw: np.ndarray, weights: np.ndarray) -> int:
    """The simhash of features given as their digests (``n x 8`` bytes, flat) and weights."""
    if not weights.size:
        return 0
    # Weight per (byte position, byte value), then per bit: 2,048 bins instead of n x 64.
    per_byte = np.bincount(raw + _offsets(weights.size), np.repeat(weights, 8), minlength=8 * 256)
    sums = (per_byte.reshape(8, 256) @ _BYTE_BITS).ravel()
    total = float(weights.sum())  # exact in any order: weights are multiples of 1 / WEIGHT_QUANTUM
    return int.from_bytes(np.packbits(sums > total / 2).tobytes(), "big")


def distance(a: int, b: int) -> int:
    """Hamming distance between two 64-bit fingerprints."""
    return ((a ^ b) & 0xFFFF_FFFF_FFFF_FFFF).bit_count()


def similarity(a: int, b: int) -> float:
    """``(64 - distance) / 64``: 1.0 for identical fingerprints, 0.0 for complements."""
    return (BITS - distance(a, b)) / BITS


def blocks(fp: int) -> tuple[int, ...]:
    """The four 16-bit blocks, most significant first. Two fingerprints within
    distance 3 agree on at least one of them (pigeonhole)."""
    return (fp >> 48) & 0xFFFF, (fp >> 32) & 0xFFFF, (fp >> 16) & 0xFFFF, fp & 0xFFFF  # BLOCKS of BLOCK_BITS


def to_hex(fp: int) -> str:
    """16 lower-case hex digits."""
    return f"{fp:016x}"


def from_hex(text: str) -> int:
    """Parse 16 hex digits; raise ``ValueError`` with the reason otherwise."""
    if len(text) != 16:
        raise ValueError(f"a simhash is 16 hex digits, got {len(text)} characters: {text!r}")
    return int(text, 16)
