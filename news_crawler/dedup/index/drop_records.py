"""Drop records as ``lua/drops.lua`` files them: 23 bytes (byte 3, the simhash, distance,
rule, time in seconds and the kept document's simhash) in small hashes
``<prefix>d<era>:<hex>`` by the dropped id's key."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from news_crawler.dedup.index.base import SENTENCES, SIMHASH, id_key

_HASH_SHIFT = 3  # 8,192 hashes an era: an id key's first 13 bits name one


class Record(NamedTuple):
    """A drop record decoded; ``kept`` is the kept document's simhash (8 bytes), which names
    it through the kept ids."""

    simhash: int
    distance: int
    rule: str
    time: str
    kept: bytes


def decode(raw: bytes) -> Record:
    when = datetime.fromtimestamp(int.from_bytes(raw[11:15], "big"), UTC).isoformat(timespec="seconds")
    return Record(int.from_bytes(raw[1:9], "big"), raw[9], SENTENCES if raw[10] == 1 else SIMHASH, when, raw[15:23])


def drop_hash(prefix: str, era: int, key: bytes) -> str:
    """The small hash of ``era`` where the record of the id with 8-byte ``key`` is filed,
    under ``key[1:]``."""
    return f"{prefix}d{era}:{int.from_bytes(key[:2], 'big') >> _HASH_SHIFT:04x}"


def drop_hashes(prefix: str, era: int) -> list[str]:
    """Every small hash of ``era`` under ``prefix``."""
    return [f"{prefix}d{era}:{h:04x}" for h in range(1 << (16 - _HASH_SHIFT))]


def live_eras(client: Any, prefix: str, rotate: int) -> list[int]:
    """The eras whose records are live under ``prefix``, newest first (``rotate`` records an
    era, 0: one era)."""
    n = int(client.get(prefix + "drops:n") or 0)
    era = (n - 1) // rotate if rotate > 0 and n > 0 else 0
    return [era, era - 1] if era > 0 else [0]


def read_records(client: Any, prefix: str, rotate: int, ids: Sequence[str]) -> list[bytes | None]:
    """The raw records of ``ids`` under ``prefix`` (None where there is none)."""
    if not ids:
        return []
    eras = live_eras(client, prefix, rotate)
    pipe = client.pipeline(transaction=False)
    for doc_id in ids:
        key = id_key(doc_id)
        for era in eras:
            pipe.hget(drop_hash(prefix, era, key), key[1:])
    found = pipe.execute()
    return [
        next((r for r in found[j * len(eras) : (j + 1) * len(eras)] if r is not None), None) for j in range(len(ids))
    ]
