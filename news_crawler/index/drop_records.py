"""Drop records as ``lua/drops.lua`` files them: byte 3, the simhash, distance, rule, time in
seconds and the kept document's simhash, in small hashes ``<prefix>d<era>:<hex>`` by the
dropped id's key (the spread layout files the same records in its ``drops`` hash by the
key); and the records of earlier versions in the ``drops`` hash (and ``drops:old``) by the
whole id: byte 2 with the id duplicated as kept ids are filed, or JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from news_crawler.fingerprint.simhash64 import from_hex
from news_crawler.index.base import SIMHASH, DropRecord, id_key
from news_crawler.index.kept_ids import full_ids, read_ids

_RULES = {0: SIMHASH, 1: "sentences"}
_HASH_SHIFT = 3  # 8,192 hashes an era: an id key's first 13 bits name one


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


def read_records(client: Any, prefix: str, rotate: int, ids: Sequence[bytes | str]) -> list[bytes | None]:
    """The raw records of ``ids`` under ``prefix`` (None where there is none)."""
    if not ids:
        return []
    names = [i.decode() if isinstance(i, bytes) else i for i in ids]
    eras = live_eras(client, prefix, rotate)
    pipe = client.pipeline(transaction=False)
    for name in names:
        key = id_key(name)
        for era in eras:
            pipe.hget(drop_hash(prefix, era, key), key[1:])
    keys = [id_key(name) for name in names]
    for hash_ in ("drops", "drops:old"):  # by key (the spread layout), by id (earlier versions)
        pipe.hmget(prefix + hash_, keys)
        pipe.hmget(prefix + hash_, names)
    *found, by_key, by_id, old_by_key, old_by_id = pipe.execute()
    out = []
    for j in range(len(names)):
        filed = next((r for r in found[j * len(eras) : (j + 1) * len(eras)] if r is not None), None)
        out.append(next((r for r in (filed, by_key[j], old_by_key[j], by_id[j], old_by_id[j]) if r is not None), None))
    return out


def compact_records(ids: Sequence[str], raws: Sequence[bytes], names: Sequence[str]) -> list[DropRecord]:
    """Records of byte 2 or 3 (the first 15 bytes alike), the ids they duplicate ``names``."""
    return [DropRecord(doc_id, int.from_bytes(raw[1:9], "big"), name, raw[9],
                       datetime.fromtimestamp(int.from_bytes(raw[11:15], "big"), timezone.utc).isoformat(timespec="seconds"),
                       _RULES.get(raw[10], SIMHASH)) for doc_id, raw, name in zip(ids, raws, names)]


def rule_and_day(raw: bytes) -> tuple[str, str]:
    """A record's rule and the UTC day (YYYY-MM-DD) it was counted under."""
    if raw[:1] in (b"\2", b"\3"):
        (rec,) = compact_records([""], [raw], [""])
        return rec.rule, rec.time[:10]
    rec = json.loads(raw)
    return rec.get("rule", SIMHASH), rec.get("time", "")[:10]


def drop_records(client: Any, origins_key: str, ids: Sequence[bytes | str], raws: Sequence[bytes],
                 prefixes: Sequence[str] = ()) -> list[DropRecord]:
    """The records ``raws`` of the dropped documents ``ids``, the ids they duplicate whole: a
    compact record's kept simhash is looked up in ``prefixes`` (the live generations, newest
    first); "" where it is kept in none (forgotten or expired since)."""
    named = [raw[15:] if raw[:1] == b"\2" else None for raw in raws]
    # Byte 0 then the id whole; else the id as kept ids are filed.
    whole = [n[1:] if n is not None and n[:1] == b"\0" else n for n in named]
    dups = full_ids(client, origins_key, whole, [n is not None and n[:1] != b"\0" for n in named])
    kept = {raw[15:23] for raw in raws if raw[:1] == b"\3"}
    kept_ids: dict[bytes, str] = {}
    for prefix in prefixes:
        left = sorted(kept - kept_ids.keys())
        if not left:
            break
        kept_ids.update((fp, i) for fp, i in zip(left, read_ids(client, prefix, origins_key, left)) if i is not None)
    out = []
    for doc_id, raw, dup in zip(ids, raws, dups):
        doc_id = doc_id.decode() if isinstance(doc_id, bytes) else doc_id
        if raw[:1] in (b"\2", b"\3"):
            dup = kept_ids.get(raw[15:23], "") if raw[:1] == b"\3" else dup
            out.extend(compact_records([doc_id], [raw], [dup or ""]))
        else:
            rec = json.loads(raw)
            out.append(DropRecord(doc_id, from_hex(rec["simhash"]), rec["duplicate_of"], rec["distance"],
                                  rec.get("time", ""), rec.get("rule", SIMHASH)))
    return out
