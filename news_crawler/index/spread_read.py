"""Spread index (``spread_store.py``): where its tables live, and its reads: what the buckets
of a batch hold, as a ``MemoryStore`` that then decides the batch exactly as one Lua call
on one server would, and the decisions recorded before for a batch's ids."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot

from news_crawler.fingerprint.simhash64 import blocks, from_hex
from news_crawler.index.base import Decision, Document, id_key
from news_crawler.index.memory import MemoryStore

ROLES = ("t0", "t1", "t2", "t3", "s", "ids")
_SIXTH = {"t0": 0, "t3": 1, "t1": 2, "s": 3, "t2": 4, "ids": 5}  # three masters: two tables each, or a table and ids


def role_tag(namespace: str, role: str) -> str:
    """A hash tag for ``role`` whose slot falls in the sixth of the slot range given by ``_SIXTH``."""
    for n in range(100_000):
        tag = f"{namespace}.{role}{n or ''}"
        if key_slot(tag.encode()) * 6 // REDIS_CLUSTER_HASH_SLOTS == _SIXTH[role]:
            return tag
    raise RuntimeError(f"no hash tag found for {namespace} {role}")  # not reached: about 1 in 6 fits


def read_view(store: Any, docs: Sequence[Document]) -> tuple[MemoryStore, dict[str, int], dict[int, list[int]]]:
    """A ``MemoryStore`` holding what the buckets of ``docs`` hold; its placeholder names
    of those documents (``"\\0<hex>"``) -> their simhashes; per sentence key, the
    simhashes of forgotten documents found there."""
    table_keys = sorted({(t, b) for d in docs for t, b in enumerate(blocks(d.simhash))})
    rule = store.sentence_rule
    sentence_keys = sorted({k for d in docs for k in d.sentences}) if rule else []
    raw: list[bytes] = []
    for t in range(4):  # one call a table: its buckets share a slot
        raw += read_buckets(store, store.bucket_key(t, 0)[:-4], [b for u, b in table_keys if u == t])
    if sentence_keys:
        raw += read_buckets(store, store.sentence_bucket_key(0)[:-4], [k >> 8 for k in sentence_keys])
    tables: dict[tuple[int, int], list[int]] = {}
    for (t, b), bucket in zip(table_keys, raw):
        rem = [bucket[p : p + 6] for p in range(0, len(bucket or b""), 6)]
        tables[(t, b)] = [int.from_bytes(e[: 2 * t] + b.to_bytes(2, "big") + e[2 * t :], "big") for e in rem]
    sentences: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for k, bucket in zip(sentence_keys, raw[len(table_keys) :]):
        bucket = bucket or b""
        for p in range(0, len(bucket), 10):
            if bucket[p] == k & 0xFF:
                sentences[k].append((int.from_bytes(bucket[p + 1 : p + 9], "big"), bucket[p + 9]))
    kept = {fp for fps in tables.values() for fp in fps}
    maybe = list({fp for entries in sentences.values() for fp, _ in entries} - kept)
    if maybe:  # sentence entries of forgotten documents name no kept simhash: skip them
        live = store.client.hmget(store.id_prefix + "ids", [fp.to_bytes(8, "big") for fp in maybe])
        kept |= {fp for fp, i in zip(maybe, live) if i is not None}
    names = {f"\0{fp:016x}": fp for fp in kept}
    view = MemoryStore(store.max_distance, rule)
    view.preload(tables, dict(sentences), {fp: name for name, fp in names.items()})
    return view, names, {k: [fp for fp, _ in v if fp not in kept] for k, v in sentences.items()}


def read_buckets(store: Any, prefix: str, numbers: list[int]) -> list[bytes]:
    """The buckets ``<prefix><number as 4 hex digits>`` in one call and one reply."""
    if not numbers:
        return []
    blob = store.read_script(keys=[prefix + "0000"], args=[prefix, *[n.to_bytes(2, "big") for n in numbers]])
    out, p = [], 0
    for _ in numbers:
        n = int.from_bytes(blob[p : p + 4], "big")
        out.append(blob[p + 4 : p + 4 + n])
        p += 4 + n
    return out


def read_decided(store: Any, ids: list[str]) -> dict[str, Decision]:
    """The earlier decisions of ``ids`` that have one (HMGETs of the id hashes)."""
    ids = list(dict.fromkeys(ids))
    kept = store.client.hmget(store.id_prefix + "docids", [id_key(i) for i in ids])
    found = [fp for fp in kept if fp is not None]
    owners = dict(zip(found, store.client.hmget(store.id_prefix + "ids", found))) if found else {}
    kept = [fp if fp is not None and owners.get(fp) == i.encode() else None for i, fp in zip(ids, kept)]
    if store.legacy_docs and None in kept:  # id -> simhash, as earlier versions wrote it
        kept = [k if k is not None else old for k, old in zip(kept, store.client.hmget(store.id_prefix + "docs", ids))]
    dropped = store.client.hmget(store.id_prefix + "drops", ids)
    if None in dropped and store.drops_rotate:  # records moved to drops:old (decide.lua, ARGV[8])
        older = store.client.hmget(store.id_prefix + "drops:old", ids)
        dropped = [d if d is not None else o for d, o in zip(dropped, older)]
    out = {}
    for doc_id, k, d in zip(ids, kept, dropped):
        if k is not None:
            out[doc_id] = Decision(doc_id, int.from_bytes(k, "big"), replayed=True)
        elif d is not None:
            rec = json.loads(d)
            out[doc_id] = Decision(doc_id, from_hex(rec["simhash"]), rec["duplicate_of"], rec["distance"],
                                   replayed=True, rule=rec.get("rule", "simhash"))
    return out
