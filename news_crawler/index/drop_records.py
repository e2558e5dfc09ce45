"""Reading drop records as ``lua/drops.lua`` writes them (byte 2, the simhash, distance,
rule, time in seconds, the id duplicated as kept ids are filed), and the JSON records of
earlier versions and of the spread layout."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from news_crawler.fingerprint.simhash64 import from_hex
from news_crawler.index.base import SIMHASH, DropRecord
from news_crawler.index.kept_ids import full_ids

_RULES = {0: SIMHASH, 1: "sentences"}


def drop_records(client: Any, origins_key: str, ids: Sequence[bytes | str], raws: Sequence[bytes]) -> list[DropRecord]:
    """The records ``raws`` of the dropped documents ``ids``, the ids they duplicate whole."""
    compact = [raw[:1] == b"\2" for raw in raws]
    named = [raw[15:] if c else None for raw, c in zip(raws, compact)]
    # Byte 0 then the id whole; else the id as kept ids are filed.
    whole = [n[1:] if n is not None and n[:1] == b"\0" else n for n in named]
    dups = full_ids(client, origins_key, whole, [n is not None and n[:1] != b"\0" for n in named])
    out = []
    for doc_id, raw, c, dup in zip(ids, raws, compact, dups):
        doc_id = doc_id.decode() if isinstance(doc_id, bytes) else doc_id
        if c:
            when = datetime.fromtimestamp(int.from_bytes(raw[11:15], "big"), timezone.utc).isoformat(timespec="seconds")
            out.append(DropRecord(doc_id, int.from_bytes(raw[1:9], "big"), dup or "", raw[9], when,
                                  _RULES.get(raw[10], SIMHASH)))
        else:
            rec = json.loads(raw)
            out.append(DropRecord(doc_id, from_hex(rec["simhash"]), rec["duplicate_of"], rec["distance"],
                                  rec.get("time", ""), rec.get("rule", SIMHASH)))
    return out
