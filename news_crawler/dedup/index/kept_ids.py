"""Reading kept ids (simhash -> doc id) as ``lua/ids.lua`` files them: in 65,536 small hashes
``<prefix>i<first two simhash bytes as hex>`` under the other six bytes, a URL as byte 1, its
origin's code in the generation's ``<prefix>origins`` hash and the rest of the URL (or byte 4,
the code, and the rest with every two digits in a row as one byte); an id whose form is over
64 bytes in the ``<prefix>ids`` hash (8-byte simhash -> id), with byte 0 in its small hash."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

_SHORT = re.compile(rb"([\x01\x04])(\d+)(.*)", re.S)
_PAIR = re.compile(rb"[\x80-\xe3]")  # byte 4's form: two digits in a row as one byte, 128 + their value
_IN_IDS = b"\0"  # in a small hash: the id is in the ids hash
_CHECK_WEIGHTS = (1, 3, 5, 7, 11, 13, 17, 19)


def id_hash(prefix: str, fp: bytes) -> str:
    """The small hash the id kept with 8-byte simhash ``fp`` is filed in."""
    return f"{prefix}i{fp[:2].hex()}"


def _full_ids(client: Any, prefix: str, values: Sequence[bytes]) -> list[str]:
    """The ids filed values stand for, short URLs given their origin back."""
    shorts = [_SHORT.fullmatch(v) if v[:1] in (b"\1", b"\4") else None for v in values]
    codes = sorted({m.group(2) for m in shorts if m})
    origins = dict(zip(codes, client.hmget(prefix + "origins", codes))) if codes else {}
    return [((origins.get(m.group(2)) or b"?") + _rest(m) if m else v).decode() for v, m in zip(values, shorts)]


def _rest(m: re.Match[bytes]) -> bytes:
    if m.group(1) == b"\1":
        return m.group(3)
    return _PAIR.sub(lambda p: b"%02d" % (p.group()[0] - 128), m.group(3))


def read_ids(client: Any, prefix: str, fps: Sequence[bytes]) -> list[str | None]:
    """The ids kept under ``prefix`` with the 8-byte simhashes ``fps`` (None where none is)."""
    if not fps:
        return []
    pipe = client.pipeline(transaction=False)
    for fp in fps:
        pipe.hget(id_hash(prefix, fp), fp[2:])
    values: list[bytes | None] = pipe.execute()
    whole = [fp for fp, v in zip(fps, values) if v == _IN_IDS]
    in_ids = dict(zip(whole, client.hmget(prefix + "ids", whole))) if whole else {}
    named = iter(_full_ids(client, prefix, [v for v in values if v is not None and v != _IN_IDS]))
    out: list[str | None] = []
    for fp, v in zip(fps, values):
        whole_id = in_ids.get(fp)  # the ids hash holds ids whole
        out.append(None if v is None else (whole_id.decode() if whole_id else None) if v == _IN_IDS else next(named))
    return out


def short_ref(fp: bytes) -> bytes:
    """How a sentence entry names a kept 8-byte simhash (``lua/common.lua``): its first three
    bytes and a check byte of all eight."""
    return fp[:3] + bytes([sum(b * w for b, w in zip(fp, _CHECK_WEIGHTS)) % 256])


def ids_near(client: Any, prefix: str, ref: bytes) -> list[tuple[bytes, str]]:
    """The 8-byte simhashes kept under ``prefix`` whose ``short_ref`` is ``ref``, and their ids."""
    fps = [fp for fp in (ref[:2] + low for low in client.hkeys(id_hash(prefix, ref))) if short_ref(fp) == ref]
    return [(fp, i) for fp, i in zip(fps, read_ids(client, prefix, fps)) if i is not None]


def all_ids(client: Any, prefix: str, chunk: int = 4096) -> dict[bytes, str]:
    """Every id kept under ``prefix``, by 8-byte simhash (reads all 65,536 small hashes)."""
    fps: list[bytes] = []
    for start in range(0, 1 << 16, chunk):
        pipe = client.pipeline(transaction=False)
        for high in range(start, start + chunk):
            pipe.hkeys(id_hash(prefix, high.to_bytes(2, "big")))
        for high, lows in zip(range(start, start + chunk), pipe.execute()):
            fps += [high.to_bytes(2, "big") + low for low in lows]
    return {fp: i or "?" for fp, i in zip(fps, read_ids(client, prefix, fps))}
