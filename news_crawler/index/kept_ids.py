"""Reading kept ids (simhash -> doc id) as ``lua/ids.lua`` files them: in 65,536 small hashes
``<prefix>i<first two simhash bytes as hex>`` under the other six bytes, a URL as byte 1, its
origin's code in the origins hash and the rest of the URL (or byte 4, the code, and the rest
with every two digits in a row as one byte); a form over 64 bytes in pieces (byte 2, their
number and its first 62 bytes, then piece k under the six bytes and byte k); an id too long
even for that in the ``<prefix>ids`` hash (8-byte simhash -> id), where earlier versions filed
every id, with byte 0 in its small hash (``ids_near``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

_SHORT = re.compile(rb"([\x01\x04])(\d+)(.*)", re.S)
_PAIR = re.compile(rb"[\x80-\xe3]")  # byte 4's form: two digits in a row as one byte, 128 + their value
_IN_IDS = b"\0"  # in a small hash: the id is in the ids hash
_PIECES = b"\2"  # in a small hash: the first piece of a long form
_CHECK_WEIGHTS = (1, 3, 5, 7, 11, 13, 17, 19)


def id_hash(prefix: str, fp: bytes) -> str:
    """The small hash the id kept with 8-byte simhash ``fp`` is filed in."""
    return f"{prefix}i{fp[:2].hex()}"


def full_ids(client: Any, origins_key: str, values: Sequence[bytes | None], filed: Sequence[bool]) -> list[str | None]:
    """The ids values stand for: a value of a small hash (``filed``) may be a short URL, to
    be given its origin back; the ids hash holds ids whole."""
    shorts = [_SHORT.fullmatch(v) if f and v is not None and v[:1] in (b"\1", b"\4") else None
              for v, f in zip(values, filed)]
    codes = sorted({m.group(2) for m in shorts if m})
    origins = dict(zip(codes, client.hmget(origins_key, codes))) if codes else {}
    return [None if v is None else ((origins.get(m.group(2)) or b"?") + _rest(m) if m else v).decode()
            for v, m in zip(values, shorts)]


def _rest(m: re.Match) -> bytes:
    if m.group(1) == b"\1":
        return m.group(3)
    return _PAIR.sub(lambda p: b"%02d" % (p.group()[0] - 128), m.group(3))


def joined(value: bytes, pieces: Sequence[bytes | None]) -> bytes:
    """The whole form a filed value begins, given its further pieces (a long form's)."""
    if value[:1] != _PIECES:
        return value
    return value[2:] + b"".join(p or b"" for p in pieces)


def piece_fields(low: bytes, value: bytes) -> list[bytes]:
    """The fields of the further pieces of the value filed under ``low`` (none for a short one)."""
    return [low + bytes([k]) for k in range(1, value[1] + 1)] if value[:1] == _PIECES else []


def filed_entries(filed: dict[bytes, bytes]) -> dict[bytes, bytes]:
    """A small hash's entries by their six bytes, the pieces of long forms joined."""
    return {low: joined(v, [filed.get(f) for f in piece_fields(low, v)]) for low, v in filed.items() if len(low) == 6}


def read_ids(client: Any, prefix: str, origins_key: str, fps: Sequence[bytes]) -> list[str | None]:
    """The ids kept under ``prefix`` with the 8-byte simhashes ``fps`` (None where none is)."""
    if not fps:
        return []
    pipe = client.pipeline(transaction=False)
    for fp in fps:
        pipe.hget(id_hash(prefix, fp), fp[2:])
    values: list[bytes | None] = [None if v == _IN_IDS else v for v in pipe.execute()]
    long_ = [(i, piece_fields(fps[i][2:], v)) for i, v in enumerate(values) if v is not None and v[:1] == _PIECES]
    if long_:
        pipe = client.pipeline(transaction=False)
        for i, fields in long_:
            pipe.hmget(id_hash(prefix, fps[i]), fields)
        for (i, _), pieces in zip(long_, pipe.execute()):
            values[i] = joined(values[i], pieces)
    whole = [fp for fp, value in zip(fps, values) if value is None]
    in_ids = dict(zip(whole, client.hmget(prefix + "ids", whole))) if whole else {}
    return full_ids(client, origins_key, [in_ids[fp] if v is None else v for fp, v in zip(fps, values)],
                 [v is not None for v in values])


def short_ref(fp: bytes) -> bytes:
    """How a compact sentence entry names a kept 8-byte simhash (``lua/common.lua``): its
    first three bytes and a check byte of all eight."""
    return fp[:3] + bytes([sum(b * w for b, w in zip(fp, _CHECK_WEIGHTS)) % 256])


def ids_near(client: Any, prefix: str, origins_key: str, ref: bytes) -> list[tuple[bytes, str]]:
    """The 8-byte simhashes kept under ``prefix`` whose ``short_ref`` is ``ref``, and their ids."""
    fps = [fp for fp in (ref[:2] + low for low in client.hkeys(id_hash(prefix, ref)) if len(low) == 6)
           if short_ref(fp) == ref]
    return [(fp, i) for fp, i in zip(fps, read_ids(client, prefix, origins_key, fps)) if i is not None]


def all_ids(client: Any, prefix: str, origins_key: str, chunk: int = 4096) -> dict[bytes, str]:
    """Every id kept under ``prefix``, by 8-byte simhash (reads all 65,536 small hashes)."""
    whole: dict[bytes, bytes] = dict(client.hscan_iter(prefix + "ids", count=1000))
    found: dict[bytes, bytes] = {}
    for start in range(0, 1 << 16, chunk):
        pipe = client.pipeline(transaction=False)
        for high in range(start, start + chunk):
            pipe.hgetall(id_hash(prefix, high.to_bytes(2, "big")))
        for high, filed in zip(range(start, start + chunk), pipe.execute()):
            found.update((high.to_bytes(2, "big") + low, value) for low, value in filed_entries(filed).items()
                         if value != _IN_IDS)
    ids = full_ids(client, origins_key, list(found.values()), [True] * len(found)) + [v.decode() for v in whole.values()]
    return dict(zip([*found, *whole], (i or "?" for i in ids)))
