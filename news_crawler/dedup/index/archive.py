"""A sealed generation archived: its fingerprints as the seed stores them, sorted and
compressed, read-only, deciding exactly as the generation did.

The seed (Manku et al., WWW 2007) keeps each table sorted and cuts it into blocks: the first
fingerprint of a block whole, in an index of block firsts; every other one as the position of
its first bit that differs from the fingerprint before it, Huffman-coded, and the bits after
that position (the differing bit itself is 1: the table is sorted). A reader finds a block by
binary search in the index and decodes it. Here:

- **The table**: the generation's fingerprints, sorted, in blocks of ``BLOCK`` (a canonical
  Huffman code of the first-difference positions, its lengths in ``A:meta``). It is the
  layout's table 0, whose permutation is the identity (its key blocks are the first ones). A
  reader decodes every block at once (all blocks in step, with numpy) when it first reads the
  archive, and builds every other table of the layout from it in memory (the same
  fingerprints permuted and sorted): holding them compressed in Redis four or ten times over
  would cost more than the ids.
- **The ids**, sorted, front-coded, in bz2 blocks of ``ID_BLOCK``, the first id of each block
  in an index; ``A:order`` gives each fingerprint's place among them (packed bits), and
  ``A:keys`` the first bits of every id's key, sorted (a miss there needs no block).
- **Sentence entries** (key, the kept fingerprint's short ref, length code) of the kept
  documents, sorted by key; **drop records** by the dropped id's key; **moved** links (a
  superseded original to the one that took its place); all zlib-compressed arrays.

The generation's ``stats``, ``held``, ``sealed`` and ``drops:recent`` stay as they were. A
generation is archived by building every ``A:`` key first, then writing ``A:meta`` (the
switch: a read after it reads the archive, one before it read the live keys whole, in one
script call), then unlinking the live keys. Archiving again changes nothing.
"""

from __future__ import annotations

import bz2
import heapq
import json
import zlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from news_crawler.dedup.index.layout import Layout
from news_crawler.errors import UserError

FORMAT = "archive 1"
BLOCK = 128  # fingerprints a block of the table
ID_BLOCK = 1024  # ids a compressed block
KEY_SLACK = 8  # bits of an id's key kept beyond those that tell N ids apart: 1 miss in 256 reads a block
MAX_CODE = 16  # bits of the longest Huffman code (lookups in a table of 2**MAX_CODE)
_TOP = np.uint64(63)


# Huffman codes ---------------------------------------------------------------------------


def code_lengths(counts: Sequence[int], limit: int = MAX_CODE) -> list[int]:
    """Canonical Huffman code lengths for symbols with these counts (0 for an unused one),
    none longer than ``limit`` (rare symbols' counts are raised until it holds)."""
    counts = list(counts)
    used = [s for s, c in enumerate(counts) if c]
    lengths = [0] * len(counts)
    if not used:
        return lengths
    if len(used) == 1:
        lengths[used[0]] = 1
        return lengths
    floor = 0
    while True:
        heap: list[tuple[int, int, tuple[int, ...]]] = [(max(counts[s], floor), n, (s,)) for n, s in enumerate(used)]
        heapq.heapify(heap)
        depth = dict.fromkeys(used, 0)
        tie = len(heap)
        while len(heap) > 1:
            w1, _, a = heapq.heappop(heap)
            w2, _, b = heapq.heappop(heap)
            for s in a + b:
                depth[s] += 1
            heapq.heappush(heap, (w1 + w2, tie, a + b))
            tie += 1
        if max(depth.values()) <= limit:
            for s, d in depth.items():
                lengths[s] = d
            return lengths
        floor = max(floor * 2, 1, sum(counts) >> limit)


def canonical_codes(lengths: Sequence[int]) -> dict[int, tuple[int, int]]:
    """``{symbol: (code, length)}`` of the canonical code with these lengths."""
    code, out, previous = 0, {}, 0
    for length, symbol in sorted((length, s) for s, length in enumerate(lengths) if length):
        code <<= length - previous
        out[symbol] = (code, length)
        code += 1
        previous = length
    return out


def decoding_table(lengths: Sequence[int]) -> tuple[np.ndarray, np.ndarray, int]:
    """``(symbol, length)`` for every ``width``-bit window, and ``width``: a code is read by
    looking up the next ``width`` bits."""
    width = max(lengths)
    symbols = np.zeros(1 << width, dtype=np.int64)
    sizes = np.zeros(1 << width, dtype=np.int64)
    for symbol, (code, length) in canonical_codes(lengths).items():
        start = code << (width - length)
        symbols[start : start + (1 << (width - length))] = symbol
        sizes[start : start + (1 << (width - length))] = length
    return symbols, sizes, width


# The table ---------------------------------------------------------------------------------


def _first_difference(prev: np.ndarray, cur: np.ndarray) -> np.ndarray:
    """The position (0: the most significant bit) of the first bit where each pair differs."""
    x = prev ^ cur
    hi = (x >> np.uint64(32)).astype(np.float64)
    lo = (x & np.uint64(0xFFFFFFFF)).astype(np.float64)
    with np.errstate(divide="ignore"):
        top = np.where(hi > 0, 32 + np.floor(np.log2(np.maximum(hi, 1))), np.floor(np.log2(np.maximum(lo, 1))))
    out: np.ndarray = (63 - top).astype(np.int64)
    return out


def encode_table(values: np.ndarray) -> dict[str, Any]:
    """Sorted distinct fingerprints (uint64) as the seed's blocks: returns the bit stream, the
    index (each block's first fingerprint and its start in bits) and the code lengths."""
    values = np.asarray(values, dtype=np.uint64)
    n = len(values)
    follows = np.ones(n, dtype=bool)
    follows[::BLOCK] = False  # a block's first is in the index, whole
    positions = np.zeros(n, dtype=np.int64)
    if n > 1:
        positions[1:] = _first_difference(values[:-1], values[1:])
    counts = np.bincount(positions[follows], minlength=64) if follows.any() else np.zeros(64, dtype=np.int64)
    lengths = code_lengths([int(c) for c in counts])
    codes = canonical_codes(lengths) if any(lengths) else {}
    firsts = values[::BLOCK].copy()
    starts, chunks, at = [], [], 0
    for block in range(0, n, BLOCK):
        bits, used = 0, 0
        for v, p in zip(values[block + 1 : block + BLOCK].tolist(), positions[block + 1 : block + BLOCK].tolist()):
            code, length = codes[p]
            tail = 63 - p  # the bits after the first difference, which is a 1
            bits = (((bits << length) | code) << tail) | (v & ((1 << tail) - 1))
            used += length + tail
        starts.append(at)
        # each block starts on a byte: a reader gathers it whole
        pad = -used % 8
        chunks.append((bits << pad).to_bytes((used + pad) // 8, "big") if used else b"")
        at += (used + pad) // 8
    return {
        "stream": b"".join(chunks),
        "firsts": firsts.astype(">u8").tobytes(),
        "starts": np.array(starts, dtype=">u8").tobytes(),
        "lengths": lengths,
        "count": n,
    }


def _peek(buffer: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """The 64 bits of ``buffer`` (uint8, padded) from each bit position in ``bits``."""
    at = (bits >> 3).astype(np.int64)
    shift = (bits & 7).astype(np.uint64)
    word = np.zeros(len(at), dtype=np.uint64)
    for i in range(8):
        word = (word << np.uint64(8)) | buffer[at + i].astype(np.uint64)
    spill = buffer[at + 8].astype(np.uint64) >> (np.uint64(8) - shift)
    return np.where(shift > 0, (word << shift) | spill, word)


def _take(window: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The first ``n`` bits of each 64-bit window (0 for n = 0)."""
    n = n.astype(np.uint64)
    return np.where(n > 0, window >> (np.uint64(64) - np.maximum(n, np.uint64(1))), np.uint64(0))


def decode_table(stream: bytes, firsts: bytes, starts: bytes, lengths: Sequence[int], count: int) -> np.ndarray:
    """Every fingerprint of an encoded table, sorted: all blocks decoded in step."""
    heads = np.frombuffer(firsts, dtype=">u8").astype(np.uint64)
    out = np.zeros(count, dtype=np.uint64)
    out[::BLOCK] = heads
    if count <= 1 or not any(lengths):
        return out
    symbols, sizes, width = decoding_table(lengths)
    buffer = np.frombuffer(stream + bytes(16), dtype=np.uint8)
    bits = np.frombuffer(starts, dtype=">u8").astype(np.uint64) * np.uint64(8)
    prev = heads.copy()
    blocks = np.arange(len(heads))
    sizes_left = np.minimum(count - blocks * BLOCK, BLOCK)
    for i in range(1, BLOCK):
        live = sizes_left > i
        if not live.any():
            break
        b, at, before = blocks[live], bits[live], prev[live]
        window = _take(_peek(buffer, at), np.full(len(at), width))
        p = symbols[window.astype(np.int64)]
        at = at + sizes[window.astype(np.int64)].astype(np.uint64)
        tail = (63 - p).astype(np.uint64)
        low = _take(_peek(buffer, at), tail)
        one = np.uint64(1) << tail
        high = np.where(p > 0, (before >> (tail + np.uint64(1))) << (tail + np.uint64(1)), np.uint64(0))
        value = high | one | low
        out[b * BLOCK + i] = value
        prev[live] = value
        bits[live] = at + tail
    return out


# Packed arrays and ids ----------------------------------------------------------------------


def pack(values: np.ndarray, width: int) -> bytes:
    """Unsigned integers of ``width`` bits each, one after the other."""
    values = np.asarray(values, dtype=np.uint64)
    bits = np.zeros((len(values), width), dtype=np.uint8)
    for i in range(width):
        bits[:, i] = (values >> np.uint64(width - 1 - i)) & np.uint64(1)
    return np.packbits(bits.reshape(-1)).tobytes()


def unpack(raw: bytes, width: int, count: int) -> np.ndarray:
    bits = np.unpackbits(np.frombuffer(raw, dtype=np.uint8))[: count * width].reshape(count, width)
    out = np.zeros(count, dtype=np.uint64)
    for i in range(width):
        out = (out << np.uint64(1)) | bits[:, i].astype(np.uint64)
    return out


def _front_coded(ids: Sequence[str]) -> bytes:
    out, prev = bytearray(), b""
    for text in ids:
        raw = text.encode("utf-8")
        n = 0
        limit = min(len(raw), len(prev), 255)
        while n < limit and raw[n] == prev[n]:
            n += 1
        out += bytes([n]) + len(raw[n:]).to_bytes(2, "big") + raw[n:]
        prev = raw
    return bytes(out)


def _front_decoded(raw: bytes) -> list[str]:
    out, prev, at = [], b"", 0
    while at < len(raw):
        n, size = raw[at], int.from_bytes(raw[at + 1 : at + 3], "big")
        text = prev[:n] + raw[at + 3 : at + 3 + size]
        out.append(text.decode("utf-8"))
        prev, at = text, at + 3 + size
    return out


def encode_ids(ids: Sequence[str]) -> dict[str, bytes]:
    """Sorted ids in front-coded bz2 blocks: the stream, each block's start, each block's first id."""
    blocks = [bz2.compress(_front_coded(ids[i : i + ID_BLOCK]), 9) for i in range(0, len(ids), ID_BLOCK)]
    starts = np.cumsum([0] + [len(b) for b in blocks[:-1]]) if blocks else np.zeros(0)
    firsts = zlib.compress("\n".join(ids[i] for i in range(0, len(ids), ID_BLOCK)).encode("utf-8"), 9)
    return {"stream": b"".join(blocks), "starts": np.asarray(starts, dtype=">u8").tobytes(), "firsts": firsts}


def _key_bits(count: int) -> int:
    """Bits of an id's key the archive keeps: enough to tell ``count`` apart, and ``KEY_SLACK``."""
    return min(64, max(1, int(count).bit_length()) + KEY_SLACK)


def _varints(values: np.ndarray) -> bytes:
    """Unsigned integers, seven bits a byte, the high bit on where another byte follows."""
    out = bytearray()
    for v in values.tolist():
        while v >= 0x80:
            out.append((v & 0x7F) | 0x80)
            v >>= 7
        out.append(v)
    return bytes(out)


def _from_varints(raw: bytes) -> np.ndarray:
    data = np.frombuffer(raw, dtype=np.uint8)
    if not len(data):
        return np.zeros(0, dtype=np.uint64)
    ends = np.flatnonzero(data < 0x80)
    starts = np.concatenate([[0], ends[:-1] + 1])
    values = np.zeros(len(ends), dtype=np.uint64)
    for shift in range(int((ends - starts).max()) + 1):  # the byte `shift` places into each value
        at = starts + shift
        inside = at <= ends
        values[inside] |= (data[at[inside]] & np.uint8(0x7F)).astype(np.uint64) << np.uint64(7 * shift)
    return values


def _zipped(array: np.ndarray) -> bytes:
    return zlib.compress(np.ascontiguousarray(array).tobytes(), 9)


def _unzipped(raw: bytes, dtype: Any) -> np.ndarray:
    out: np.ndarray = np.frombuffer(zlib.decompress(raw), dtype=dtype) if raw else np.zeros(0, dtype=dtype)
    return out


# What a generation holds, built and read ---------------------------------------------------


@dataclass
class Contents:
    """A generation's index in plain arrays: what is archived, and what a reader holds."""

    fps: np.ndarray  # uint64, sorted: the kept fingerprints
    ids: list[str]  # the id of each, in the order of fps
    sentence_keys: np.ndarray  # uint32, sorted: each kept document's sentence keys
    sentence_refs: np.ndarray  # uint32: the short ref of the document holding each (lua/common.lua)
    sentence_lengths: np.ndarray  # uint8: its length code
    drop_keys: np.ndarray  # uint64, sorted: dropped ids' keys (base.id_key)
    drop_records: np.ndarray  # (n, 23) uint8: their records (lua/drops.lua)
    moved_from: np.ndarray  # uint64, sorted
    moved_to: np.ndarray  # uint64


def short_refs(fps: np.ndarray) -> np.ndarray:
    """Each 8-byte fingerprint's short ref as a uint32 (its first three bytes, then a check
    byte of all eight: lua/common.lua short_ref)."""
    raw = np.asarray(fps, dtype=">u8").view(np.uint8).reshape(-1, 8).astype(np.uint64)
    check = (raw * np.array([1, 3, 5, 7, 11, 13, 17, 19], dtype=np.uint64)).sum(axis=1) % np.uint64(256)
    refs: np.ndarray = ((np.asarray(fps, dtype=np.uint64) >> np.uint64(40)) << np.uint64(8) | check).astype(np.uint32)
    return refs


def encode(contents: Contents, layout: Layout, stats: dict[str, Any]) -> dict[str, bytes]:
    """The ``A:`` keys of an archive (``A:meta`` last: it is the switch)."""
    table = encode_table(contents.fps)
    order = sorted(range(len(contents.ids)), key=contents.ids.__getitem__)
    sorted_ids = [contents.ids[i] for i in order]
    rank = np.empty(len(order), dtype=np.uint64)
    rank[np.array(order, dtype=np.int64)] = np.arange(len(order), dtype=np.uint64)
    width = max(1, int(len(order) - 1).bit_length())
    ids = encode_ids(sorted_ids)
    from news_crawler.dedup.index.base import id_key

    key_bits = _key_bits(len(contents.ids))
    short = np.sort(
        np.array([int.from_bytes(id_key(i)[:8], "big") >> (64 - key_bits) for i in contents.ids], dtype=np.uint64)
    )
    keys = {
        "A:table": table["stream"],
        "A:table:firsts": table["firsts"],
        "A:table:starts": table["starts"],
        "A:ids": ids["stream"],
        "A:ids:starts": ids["starts"],
        "A:ids:firsts": ids["firsts"],
        "A:order": pack(rank, width),
        "A:keys": zlib.compress(_varints(np.diff(short, prepend=np.uint64(0))), 9),
        "A:sentences": _zipped(
            np.rec.fromarrays(
                [contents.sentence_keys, contents.sentence_refs, contents.sentence_lengths],
                dtype=[("k", "<u4"), ("r", "<u4"), ("l", "u1")],
            )
        ),
        "A:drops": _zipped(np.asarray(contents.drop_keys, dtype="<u8")),
        "A:drops:records": _zipped(np.asarray(contents.drop_records, dtype=np.uint8)),
        "A:moved": _zipped(np.stack([contents.moved_from, contents.moved_to]).astype("<u8")),
    }
    meta = {
        "format": FORMAT,
        "layout": layout.spec,
        "count": len(contents.fps),
        "lengths": table["lengths"],
        "order_width": width,
        "sentences": len(contents.sentence_keys),
        "drops": len(contents.drop_keys),
        "moved": len(contents.moved_from),
        "stats": stats,
    }
    keys["A:meta"] = json.dumps(meta).encode("utf-8")
    return keys


class ArchiveFormatError(UserError):
    """An archived generation written in a format this version does not read."""


def check_meta(prefix: str, raw: bytes | None) -> dict[str, Any]:
    """The archive metadata ``raw`` of the generation at ``prefix`` ({} for none);
    ``ArchiveFormatError`` (one line naming the fix) for an archive of another format."""
    if not raw:
        return {}
    try:
        meta = json.loads(raw)
        found = meta.get("format") if isinstance(meta, dict) else None
    except ValueError:
        meta, found = {}, None
    if found != FORMAT:
        namespace = prefix.strip("{}:").rsplit(":g", 1)[0] or "NAMESPACE"
        raise ArchiveFormatError(
            f"the archived generation {prefix!r} holds an archive of format {found!r}; this version reads "
            f"{FORMAT!r} only: use a new DEDUP_NAMESPACE, or remove the old index with "
            f"`news-dedup forget --all --namespace {namespace}`"
        )
    return dict(meta)


class Reader:
    """An archived generation as a process reads it: decoded when first read, then held."""

    def __init__(self, keys: dict[str, bytes], prefix: str = "") -> None:
        meta = check_meta(prefix, keys["A:meta"])
        self.meta = meta
        self.layout = Layout.parse(*_spec(meta["layout"]))
        count = int(meta["count"])
        self.fps = decode_table(keys["A:table"], keys["A:table:firsts"], keys["A:table:starts"], meta["lengths"], count)
        # every table of the layout, built from the one stored: (sorted permuted, their fingerprints)
        self.tables: list[tuple[np.ndarray, np.ndarray]] = []
        permuted = self.layout.permute_all(self.fps)
        for t in range(len(self.layout.tables)):
            order = np.argsort(permuted[:, t], kind="stable")
            self.tables.append((permuted[order, t], self.fps[order]))
        self.rank = unpack(keys["A:order"], int(meta["order_width"]), count).astype(np.int64)
        self.place = np.empty(count, dtype=np.int64)  # an id's rank -> its fingerprint's place
        self.place[self.rank] = np.arange(count)
        self.id_stream, self.id_starts = (
            keys["A:ids"],
            np.frombuffer(keys["A:ids:starts"], dtype=">u8").astype(np.int64),
        )
        self.id_firsts = zlib.decompress(keys["A:ids:firsts"]).decode("utf-8").split("\n") if count else []
        self._blocks: dict[int, list[str]] = {}
        self.key_bits = _key_bits(count)
        self.short_keys = np.cumsum(_from_varints(zlib.decompress(keys["A:keys"]) if keys["A:keys"] else b""))
        sentences = _unzipped(keys["A:sentences"], np.dtype([("k", "<u4"), ("r", "<u4"), ("l", "u1")]))
        self.sentence_keys, self.sentence_refs, self.sentence_lengths = sentences["k"], sentences["r"], sentences["l"]
        refs = short_refs(self.fps)
        self.ref_order = np.argsort(refs, kind="stable")
        self.sorted_refs = refs[self.ref_order]
        self.drop_keys = _unzipped(keys["A:drops"], "<u8").astype(np.uint64)
        self.drop_records = _unzipped(keys["A:drops:records"], np.uint8).reshape(-1, 23)
        moved = _unzipped(keys["A:moved"], "<u8").astype(np.uint64).reshape(2, -1)
        self.moved = dict(zip(moved[0].tolist(), moved[1].tolist()))

    # ids
    def _id_block(self, block: int) -> list[str]:
        if block not in self._blocks:
            end = self.id_starts[block + 1] if block + 1 < len(self.id_starts) else len(self.id_stream)
            self._blocks[block] = _front_decoded(bz2.decompress(self.id_stream[self.id_starts[block] : end]))
        return self._blocks[block]

    def id_at(self, place: int) -> str:
        """The id of the fingerprint at ``place`` in ``fps``."""
        rank = int(self.rank[place])
        return self._id_block(rank // ID_BLOCK)[rank % ID_BLOCK]

    def place_of(self, fp: int) -> int | None:
        at = int(np.searchsorted(self.fps, np.uint64(fp)))
        return at if at < len(self.fps) and int(self.fps[at]) == fp else None

    def name(self, fp: int) -> str | None:
        """The id kept with ``fp``, or that of the original that took its place."""
        for _ in range(33):
            place = self.place_of(fp)
            if place is not None:
                return self.id_at(place)
            if fp not in self.moved:
                return None
            fp = self.moved[fp]
        return None

    def kept_fp(self, doc_id: str, key: bytes) -> int | None:
        """The fingerprint ``doc_id`` was kept with here, or None."""
        short = np.uint64(int.from_bytes(key[:8], "big") >> (64 - self.key_bits))
        at = int(np.searchsorted(self.short_keys, short))
        if at >= len(self.short_keys) or self.short_keys[at] != short:
            return None  # most ids: no block read
        import bisect

        block = max(0, bisect.bisect_right(self.id_firsts, doc_id) - 1)
        ids = self._id_block(block) if self.id_firsts else []
        inside = bisect.bisect_left(ids, doc_id)
        if inside < len(ids) and ids[inside] == doc_id:
            return int(self.fps[self.place[block * ID_BLOCK + inside]])
        return None

    def drop_record(self, key: bytes) -> bytes | None:
        k = np.uint64(int.from_bytes(key, "big"))
        at = int(np.searchsorted(self.drop_keys, k))
        if at < len(self.drop_keys) and self.drop_keys[at] == k:
            return bytes(self.drop_records[at])
        return None

    def holders(self, key: int, length: int, slack: int) -> list[int]:
        """The kept fingerprints holding sentence ``key`` whose length code is within ``slack``."""
        lo = int(np.searchsorted(self.sentence_keys, np.uint32(key)))
        hi = int(np.searchsorted(self.sentence_keys, np.uint32(key), side="right"))
        out: list[int] = []
        for ref, n in zip(self.sentence_refs[lo:hi].tolist(), self.sentence_lengths[lo:hi].tolist()):
            if abs(n - length) <= slack:
                out += [int(self.fps[p]) for p in self._with_ref(ref) if int(self.fps[p]) not in out]
        return out

    def _with_ref(self, ref: int) -> np.ndarray:
        """The places of the fingerprints whose short ref is ``ref``."""
        lo = int(np.searchsorted(self.sorted_refs, np.uint32(ref)))
        hi = int(np.searchsorted(self.sorted_refs, np.uint32(ref), side="right"))
        return self.ref_order[lo:hi]

    # matches
    def simhash_match(self, fp: int, k: int) -> tuple[int, int] | None:
        """(distance, kept fingerprint) of the nearest within ``k`` (the smallest on a tie)."""
        best: tuple[int, int] | None = None
        layout = self.layout
        for t, (values, fps) in enumerate(self.tables):
            shift = 64 - layout.bucket_bits(t)
            bucket = layout.permute(fp, t) >> shift
            lo = int(np.searchsorted(values, np.uint64(bucket << shift)))
            hi = int(np.searchsorted(values, np.uint64(((bucket + 1) << shift) - 1), side="right"))
            if lo == hi:
                continue
            near = fps[lo:hi]
            d = _popcount(near ^ np.uint64(fp))
            for at in np.flatnonzero(d <= k):
                candidate = (int(d[at]), int(near[at]))
                if best is None or candidate < best:
                    best = candidate
        return best

    def sentence_match(
        self, fp: int, keys: Sequence[int], length: int, needed_of: Any, slack: int, reach: int
    ) -> tuple[int, int, int] | None:
        """(shared, distance, kept fingerprint) of the kept document sharing the most of
        ``keys`` (at least ``needed_of(len(keys))``), then the nearest, then the smallest."""
        shared: Counter[int] = Counter()
        for key in keys:
            lo = int(np.searchsorted(self.sentence_keys, np.uint32(key)))
            hi = int(np.searchsorted(self.sentence_keys, np.uint32(key), side="right"))
            refs = {
                int(r)
                for r, n in zip(self.sentence_refs[lo:hi], self.sentence_lengths[lo:hi])
                if abs(int(n) - length) <= slack
            }
            shared.update(refs)
        needed = needed_of(len(keys))
        best: tuple[int, int, int] | None = None
        for ref, count in shared.items():
            if count < needed:
                continue
            for place in self._with_ref(ref):
                other = int(self.fps[place])
                d = bin(other ^ fp).count("1")
                if d <= reach and (best is None or (-count, d, other) < (-best[0], best[1], best[2])):
                    best = (count, d, other)
        return best


def _spec(spec: str) -> tuple[str, int]:
    widths, _, k = spec.partition("/")
    return widths, int(k)


_BYTE_POP = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)


def _popcount(values: np.ndarray) -> np.ndarray:
    counted: np.ndarray = _BYTE_POP[np.ascontiguousarray(values, dtype=np.uint64).view(np.uint8).reshape(-1, 8)]
    total: np.ndarray = counted.sum(axis=1)
    return total


# In Redis -----------------------------------------------------------------------------------


def archived(client: Any, prefix: str) -> bool:
    return bool(client.exists(prefix + "A:meta"))


def read_contents(client: Any, prefix: str, layout: Layout, rotate: int) -> Contents:
    """Everything a live generation holds, as plain arrays (it must be sealed: nothing writes)."""
    from news_crawler.dedup.index.drop_records import drop_hashes, live_eras
    from news_crawler.dedup.index.kept_ids import all_ids

    kept = all_ids(client, prefix)
    fps = np.array(sorted(int.from_bytes(fp, "big") for fp in kept), dtype=np.uint64)
    ids = [kept[int(fp).to_bytes(8, "big")] for fp in fps.tolist()]
    live_refs = set(short_refs(fps).tolist())
    s_keys, s_refs, s_lengths = [], [], []
    for start in range(0, 1 << 16, 4096):
        names = [f"{prefix}S{b:04x}" for b in range(start, start + 4096)]
        for b, bucket in zip(range(start, start + 4096), client.mget(names)):
            for at in range(0, len(bucket or b""), 6):
                ref = int.from_bytes(bucket[at + 1 : at + 5], "big")
                if ref in live_refs:  # an entry of a forgotten or superseded document names none
                    s_keys.append((b << 8) | bucket[at])
                    s_refs.append(ref)
                    s_lengths.append(bucket[at + 5])
    order = np.argsort(np.array(s_keys, dtype=np.uint32), kind="stable")
    drops: dict[int, bytes] = {}
    for era in live_eras(client, prefix, rotate):
        names = drop_hashes(prefix, era)
        pipe = client.pipeline(transaction=False)
        for name in names:
            pipe.hgetall(name)
        for name, found in zip(names, pipe.execute()):
            first = bytes([int(name.rsplit(":", 1)[1], 16) >> 5])
            for field, record in found.items():
                drops.setdefault(int.from_bytes(first + field, "big"), record)
    drop_keys = np.array(sorted(drops), dtype=np.uint64)
    records = np.frombuffer(b"".join(drops[int(k)] for k in drop_keys.tolist()), dtype=np.uint8).reshape(-1, 23)
    moved = sorted(
        (int.from_bytes(a, "big"), int.from_bytes(b, "big")) for a, b in client.hgetall(prefix + "moved").items()
    )
    return Contents(
        fps,
        ids,
        np.array(s_keys, dtype=np.uint32)[order],
        np.array(s_refs, dtype=np.uint32)[order],
        np.array(s_lengths, dtype=np.uint8)[order],
        drop_keys,
        records,
        np.array([a for a, _ in moved], dtype=np.uint64),
        np.array([b for _, b in moved], dtype=np.uint64),
    )


ARCHIVE_KEYS = (
    "A:meta",
    "A:table",
    "A:table:firsts",
    "A:table:starts",
    "A:ids",
    "A:ids:starts",
    "A:ids:firsts",
    "A:order",
    "A:keys",
    "A:sentences",
    "A:drops",
    "A:drops:records",
    "A:moved",
)


def archive_generation(client: Any, prefix: str, layout: Layout, rotate: int, live_keys: list[str]) -> bool:
    """Archive the sealed generation ``prefix``: False when it is archived already, or another
    process is archiving it now."""
    if archived(client, prefix) or not client.set(prefix + "A:claim", "1", nx=True, ex=3600):
        return False
    try:
        stats = {k.decode(): int(v) for k, v in client.hgetall(prefix + "stats").items()}
        keys = encode(read_contents(client, prefix, layout, rotate), layout, stats)
        meta = keys.pop("A:meta")
        for name, value in keys.items():
            client.set(prefix + name, value)
        client.set(prefix + "A:meta", meta)  # the switch: a read from now on reads the archive
        kept = {prefix + k for k in (*ARCHIVE_KEYS, "stats", "held", "sealed", "drops:recent", "A:claim")}
        gone = [name for name in live_keys if name not in kept]
        for start in range(0, len(gone), 4096):
            client.unlink(*gone[start : start + 4096])
    finally:
        client.delete(prefix + "A:claim")
    return True


def load(client: Any, prefix: str) -> Reader:
    values = client.mget([prefix + k for k in ARCHIVE_KEYS])
    return Reader({k: v or b"" for k, v in zip(ARCHIVE_KEYS, values)}, prefix)


def stored_bytes(client: Any, prefix: str) -> int:
    """What the archive's keys hold (their values' lengths)."""
    pipe = client.pipeline(transaction=False)
    for k in ARCHIVE_KEYS:
        pipe.strlen(prefix + k)
    return sum(int(n) for n in pipe.execute())
