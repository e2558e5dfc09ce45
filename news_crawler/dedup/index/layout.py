"""How the index's tables cut a 64-bit fingerprint: its blocks and the tables they key.

The 64 bits are cut into ``b`` blocks (``16,16,16,16`` by default; any widths that add up to
64, such as the seed's ``16,12,12,12,12``). Two fingerprints within distance ``K`` differ in
at most ``K`` blocks, so they agree on at least ``b - K`` of them (pigeonhole): with one
table for every choice of ``b - K`` blocks, ``C(b, b - K)`` tables, keyed by those blocks,
every fingerprint within ``K`` of a query is in a bucket the query reads. ``K < b``.

A table holds each fingerprint *permuted*: its key blocks first (in block order), then the
other blocks (in block order); a permutation moves bits, so distances are unchanged. The
first ``min(16, key bits)`` bits of the permuted fingerprint name its bucket; the bytes after
the whole bytes of those bits are its entry (6 bytes for a 16-bit bucket, 7 for a 12-bit one).
Fingerprints that share a table's key share its bucket; a bucket may also hold ones that share
only its first 16 bits, which the distance sorts out. The default layout's tables are the
four 16-bit block tables the design card names, each bucket named by one block.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations
from math import comb

import numpy as np

from news_crawler.errors import UserError

BITS = 64
DEFAULT_BLOCKS = (16, 16, 16, 16)
MAX_TABLES = 64  # a layout of more tables costs a write more than it saves a read


class LayoutError(UserError, ValueError):
    """A layout that cannot be used: one line naming the setting, its value, the problem and
    what would do."""

    def __init__(self, setting: str, value: object, problem: str) -> None:
        super().__init__(f"setting {setting}={value!r}: {problem}")
        self.setting, self.problem = setting, problem


@dataclass(frozen=True)
class Layout:
    widths: tuple[int, ...] = DEFAULT_BLOCKS  # block widths, the high bits first
    max_distance: int = 3
    # per table: its key blocks (indexes into widths)
    tables: tuple[tuple[int, ...], ...] = field(init=False)

    def __post_init__(self) -> None:
        widths, k = self.widths, self.max_distance
        shown = ",".join(map(str, widths))
        if not widths or any(not isinstance(w, int) or isinstance(w, bool) or w < 1 for w in widths):
            raise LayoutError("DEDUP_BLOCKS", shown, "each block is a whole number of bits, 1 or more")
        if sum(widths) != BITS:
            raise LayoutError(
                "DEDUP_BLOCKS", shown, f"the blocks add up to {sum(widths)} bits, not the fingerprint's 64"
            )
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < len(widths):
            raise LayoutError(
                "DEDUP_MAX_DISTANCE",
                k,
                f"must be from 0 to {len(widths) - 1}, fewer than the {len(widths)} blocks of DEDUP_BLOCKS={shown} "
                "(more blocks reach further: --blocks 16,12,12,12,12 or DEDUP_BLOCKS=16,12,12,12,12 reaches 4)",
            )
        tables = tuple(combinations(range(len(widths)), len(widths) - k))
        if len(tables) > MAX_TABLES:
            raise LayoutError(
                "DEDUP_BLOCKS",
                shown,
                f"at max distance {k} it makes {len(tables)} tables, more than {MAX_TABLES}: use fewer blocks "
                "or a smaller distance",
            )
        object.__setattr__(self, "tables", tables)

    @classmethod
    def parse(cls, blocks: str | list[int] | tuple[int, ...], max_distance: int) -> Layout:
        """``16,12,12,12,12`` (or a list of widths) at ``max_distance``; ``LayoutError`` otherwise."""
        if isinstance(blocks, str):
            try:
                widths = tuple(int(x) for x in blocks.replace(" ", "").split(","))
            except ValueError:
                raise LayoutError(
                    "DEDUP_BLOCKS", blocks, "expected block widths in bits, comma-separated, such as 16,12,12,12,12"
                ) from None
        else:
            widths = tuple(int(x) for x in blocks)
        return cls(widths, max_distance)

    @property
    def spec(self) -> str:
        """How a namespace records it: ``16,16,16,16/3``."""
        return f"{','.join(map(str, self.widths))}/{self.max_distance}"

    @cached_property
    def offsets(self) -> tuple[int, ...]:
        """Each block's first bit, counted from the most significant."""
        out, at = [], 0
        for w in self.widths:
            out.append(at)
            at += w
        return tuple(out)

    def order(self, t: int) -> tuple[int, ...]:
        """The blocks of table ``t``'s permuted fingerprint, in order: its key blocks, then the rest."""
        key = self.tables[t]
        return key + tuple(b for b in range(len(self.widths)) if b not in key)

    def key_bits(self, t: int) -> int:
        return sum(self.widths[b] for b in self.tables[t])

    def bucket_bits(self, t: int) -> int:
        """Bits of the permuted fingerprint that name its bucket in table ``t``."""
        return min(16, self.key_bits(t))

    def entry_bytes(self, t: int) -> int:
        return 8 - self.bucket_bits(t) // 8

    @cached_property
    def _moves(self) -> list[list[tuple[int, int, int]]]:
        """Per table, the blocks as (original offset, permuted offset, width)."""
        out = []
        for t in range(len(self.tables)):
            at, moves = 0, []
            for b in self.order(t):
                moves.append((self.offsets[b], at, self.widths[b]))
                at += self.widths[b]
            out.append(moves)
        return out

    def permute(self, fp: int, t: int) -> int:
        out = 0
        for original, permuted, width in self._moves[t]:
            out |= ((fp >> (BITS - original - width)) & ((1 << width) - 1)) << (BITS - permuted - width)
        return out

    def unpermute(self, pfp: int, t: int) -> int:
        out = 0
        for original, permuted, width in self._moves[t]:
            out |= ((pfp >> (BITS - permuted - width)) & ((1 << width) - 1)) << (BITS - original - width)
        return out

    def permute_all(self, fps: np.ndarray) -> np.ndarray:
        """``fps`` (uint64) permuted for every table: shape ``(len(fps), tables)``."""
        fps = np.asarray(fps, dtype=np.uint64)
        out = np.zeros((len(fps), len(self.tables)), dtype=np.uint64)
        for t, moves in enumerate(self._moves):
            for original, permuted, width in moves:
                mask = np.uint64((1 << width) - 1)
                block = (fps >> np.uint64(BITS - original - width)) & mask
                out[:, t] |= block << np.uint64(BITS - permuted - width)
        return out

    def unpermute_all(self, pfps: np.ndarray, t: int) -> np.ndarray:
        """Table ``t``'s permuted fingerprints (uint64) as they are."""
        pfps = np.asarray(pfps, dtype=np.uint64)
        out = np.zeros(len(pfps), dtype=np.uint64)
        for original, permuted, width in self._moves[t]:
            mask = np.uint64((1 << width) - 1)
            out |= ((pfps >> np.uint64(BITS - permuted - width)) & mask) << np.uint64(BITS - original - width)
        return out

    def bucket(self, pfp: int, t: int) -> int:
        """Table ``t``'s bucket of a permuted fingerprint."""
        return pfp >> (BITS - self.bucket_bits(t))

    def blocks(self, fp: int) -> tuple[int, ...]:
        """The value of each block of ``fp``."""
        return tuple((fp >> (BITS - o - w)) & ((1 << w) - 1) for o, w in zip(self.offsets, self.widths))

    def matched_blocks(self, a: int, b: int) -> list[int]:
        """The blocks ``a`` and ``b`` agree on."""
        return [n for n, (x, y) in enumerate(zip(self.blocks(a), self.blocks(b))) if x == y]

    def shared_table(self, a: int, b: int) -> int:
        """The first table whose key blocks ``a`` and ``b`` agree on; -1 when none (then no
        decision could have met them by the simhash rule)."""
        for t in range(len(self.tables)):
            shift = BITS - self.key_bits(t)
            if self.permute(a, t) >> shift == self.permute(b, t) >> shift:
                return t
        return -1

    def keys(self, fp: int) -> tuple[int, ...]:
        """The fingerprint's key in each table (its key blocks' bits)."""
        return tuple(self.permute(fp, t) >> (BITS - self.key_bits(t)) for t in range(len(self.tables)))

    def lua(self) -> str:
        """The layout as ``decide.lua`` reads it: a table a line, ``<bucket bits>`` then
        ``<original offset>,<permuted offset>,<width>`` of each block, ``;``-separated."""
        return "\n".join(
            ";".join([str(self.bucket_bits(t)), *(f"{o},{p},{w}" for o, p, w in moves)])
            for t, moves in enumerate(self._moves)
        )

    def describe(self) -> str:
        """For a person: ``16,12,12,12,12 at distance 3: 10 tables keyed by 2 blocks``."""
        key = len(self.widths) - self.max_distance
        return (
            f"{','.join(map(str, self.widths))} at distance {self.max_distance}: {comb(len(self.widths), key)} "
            f"tables keyed by {key} block{'s' if key > 1 else ''}"
        )


DEFAULT = Layout()
