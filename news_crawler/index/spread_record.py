"""Spread index (``spread_store.py``): what a batch records (``spread/finish.lua``), one row
a distinct id, packed for the script and its answers read back; and one article forgotten."""

from __future__ import annotations

import time
from typing import Any

from news_crawler.fingerprint.simhash64 import blocks
from news_crawler.index.base import Decision, Document, id_key
from news_crawler.index.drop_records import drop_hash, live_eras, rule_and_day
from news_crawler.index.spread_read import Begun, table_role

Row = tuple[str, Document, "int | None", int, str]  # code, document, simhash it duplicates, distance, rule


def decision_rows(first: dict[str, Document], begun: Begun, local: dict[str, Decision],
                  names: dict[str, int]) -> list[Row]:
    """The rows of the documents of ``first`` not decided before: 'W' another worker is
    deciding the id (it records it), 'L' a copy at distance 0 of the simhash another id
    registered first, 'K' kept, 'D' dropped (``local``: their decisions on what the claims
    reported; a duplicate is named by a placeholder of ``names`` or by an id of the batch)."""
    rows: list[Row] = []
    for doc in first.values():
        if doc.id in begun.earlier:
            continue
        if doc.id in begun.elsewhere:
            rows.append(("W", doc, None, 0, ""))
        elif doc.id in begun.copies:
            rows.append(("L", doc, doc.simhash, 0, "simhash"))
        elif local[doc.id].kept:
            rows.append(("K", doc, None, 0, ""))
        else:
            dec = local[doc.id]
            dup = names[dec.duplicate_of] if dec.duplicate_of in names else first[dec.duplicate_of].simhash
            rows.append(("D", doc, dup, dec.distance, dec.rule or ""))
    return rows


def finish_call(store: Any, rows: list[Row]) -> tuple[Any, list[str], list[Any]]:
    seconds = int(time.time())
    packed = []
    for code, doc, dup_fp, dist, rule in rows:
        doc_id, rule_ = doc.id.encode(), (rule or "").encode()
        packed += [code.encode(), doc.simhash.to_bytes(8, "big"),
                   b"\0" if dup_fp is None else b"\1" + dup_fp.to_bytes(8, "big"),
                   bytes([dist, len(rule_)]), rule_, id_key(doc.id), len(doc_id).to_bytes(4, "big"), doc_id]
    newest, *older = store.live
    args = [seconds, time.strftime("%Y-%m-%d", time.gmtime(seconds)), store.drops_rotate, b"".join(packed)]
    if store.compact:
        return (store.scripts["finish"], [store.origins_key, newest + "held", newest + "drops", store.stats_key,
                                          store.id_prefix + "begun"], [*args, "1", *store.live])
    return (store.scripts["finish"], [newest + "ids", newest + "docids", newest + "drops", store.stats_key,
                                      store.id_prefix + "begun", *(prefix + "ids" for prefix in older)], args)


def finished(raw: bytes) -> list[tuple[str, int]]:
    """Per row, the id it duplicates ('' when kept) and its replay code (see finish.lua)."""
    out, p = [], 0
    while p < len(raw):
        n = int.from_bytes(raw[p + 1 : p + 5], "big")
        out.append((raw[p + 5 : p + 5 + n].decode(), raw[p]))
        p += 5 + n
    return out


def forget(store: Any, doc_id: str) -> str:
    """Take one article out of the spread index: "kept" or "dropped" as it was, "" when unknown."""
    store.live = store.live_prefixes()
    for prefix in store.live:
        fp = store.kept_simhash(prefix, doc_id)
        if fp is not None:
            return _forget_kept(store, prefix, doc_id, fp)
    for prefix in store.live:
        if _forget_dropped(store, prefix, doc_id):
            return "dropped"
    return ""


def _forget_kept(store: Any, prefix: str, doc_id: str, fp: bytes) -> str:
    for t, block in enumerate(blocks(int.from_bytes(fp, "big"))):
        key = store.bucket_key(t, block, prefix)
        store.scripts["remove"](keys=[store.slot_key(table_role(store.layout, t, block))],
                                args=[6, key, fp[: 2 * t] + fp[2 * t + 2 :]])
    if store.compact:
        store.scripts["unfile"](keys=[store.stats_key], args=[prefix, id_key(doc_id), fp])
        return "kept"
    pipe = store.client.pipeline(transaction=True)
    pipe.hdel(prefix + "ids", fp).hdel(prefix + "docids", id_key(doc_id)).hdel(prefix + "docs", doc_id)
    pipe.hincrby(store.stats_key, "kept", -1)
    pipe.execute()
    return "kept"


def _forget_dropped(store: Any, prefix: str, doc_id: str) -> bool:
    """A drop record by the id's key in the small hashes of its era (the compact layout), or
    in drops or drops:old by the id's key or by the id (earlier versions)."""
    drops, key = prefix + "drops", id_key(doc_id)
    where = [(drop_hash(prefix, era, key), key[1:]) for era in live_eras(store.client, prefix, store.drops_rotate)]
    where += [(h, f) for f in (key, doc_id) for h in (drops, drops + ":old")]
    found = [(h, f, raw) for (h, f), raw in zip(where, (store.client.hget(h, f) for h, f in where)) if raw]
    if not found:
        return False
    hash_, field, raw = found[0]
    pipe = store.client.pipeline(transaction=True)
    pipe.hdel(hash_, field).hincrby(store.stats_key, "dropped", -1)
    rule, day = rule_and_day(raw)
    if rule == "sentences":
        pipe.hincrby(store.stats_key, "dropped:sentences", -1)
    day = "drops:" + day  # the day it was counted under
    if int(store.client.hget(store.stats_key, day) or 0) > 0:
        pipe.hincrby(store.stats_key, day, -1)
    pipe.execute()
    return True
