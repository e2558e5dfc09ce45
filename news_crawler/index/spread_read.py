"""Spread index (``spread_store.py``): where its keys live, how its scripts reach the
masters (one pipeline, each call to its master, all at once), and the decisions recorded
before for a batch's ids, read when the batch begins, the others' simhashes registered then.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple

from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot
from redis.exceptions import NoScriptError

from news_crawler.fingerprint.simhash64 import from_hex
from news_crawler.index.base import Decision, Document, id_key
from news_crawler.index.drop_records import compact_records

# Where each role's hash tag falls, by sixths of the slot range (three masters hold two each).
# Layout 5, the compact one (a new index with DEDUP_CLUSTER_INDEX=spread): the sentence
# table in the slot of block table 0 (``SHARED_TAGS``), whose buckets name every simhash
# kept or being decided by its first two bytes, so that a sentence claim finds a short
# entry's document there in the same atomic call as table 0's claim; two block tables and
# the upper half of table 3's buckets (``SPLIT``: role t3b, its own slot); the lower half
# and the id hashes, filed as on one server (``lua/ids.lua``). Halving table 3 gives every
# master a fifth of the keys or more on a small index too, where the sentence table has a
# bucket a key. (Near-duplicates share a bucket, so a claim on a bucket's slot is all their
# race needs.) Layout 4 (indexes started so before): the same with table 3 whole beside the
# id hashes. Layout 3 (before that): two block tables; two; the sentence table and the id
# hashes in one slot (``SENTENCES_BY_IDS``), the short entries' documents found among the
# kept ids: that master does most of the work. Layout 2, the balanced one
# (spread-balanced): two block tables and the id hashes; two block tables; the sentence
# table alone, in 131,072 buckets of whole-simhash entries: a fifth of the keys on every
# master at any size, for more memory (one ids hash, one docids hash, 10-byte entries).
# Layout 1 (spread-balanced without the sentence rule, and earlier indexes): two tables; a
# table and the sentence table (65,536 buckets); a table and the id hashes.
PLACEMENTS = {1: {"t0": 0, "t3": 1, "t1": 2, "s": 3, "t2": 4, "ids": 5},
              2: {"t0": 0, "t1": 1, "ids": 0, "t2": 2, "t3": 3, "s": 4},
              3: {"t0": 0, "t1": 1, "t2": 2, "t3": 3, "s": 4, "ids": 4},
              4: {"t0": 0, "s": 0, "t1": 2, "t2": 3, "ids": 4, "t3": 5},
              5: {"t0": 0, "s": 0, "t1": 2, "t2": 3, "t3b": 3, "t3": 4, "ids": 5}}
COMPACT = 5  # the layout of DEDUP_CLUSTER_INDEX=spread
BY_TABLE_0 = (4, COMPACT)  # the layouts whose short sentence entries are found through table 0
SENTENCES_BY_IDS = 3  # the compact layout before those: short sentence entries found among the kept ids
BALANCED = 2  # the layout with the id hashes beside two tables (DEDUP_CLUSTER_INDEX=spread-balanced)
SHARED_TAGS = {SENTENCES_BY_IDS: {"ids": "s"}, 4: {"s": "t0"}, COMPACT: {"s": "t0"}}  # a role in another's slot
SPLIT = {COMPACT: {"t3": "t3b"}}  # a table whose buckets from 0x8000 up are in another role's slot


def table_role(layout: int, table: int, block: int) -> str:
    """The role whose slot holds bucket ``block`` of block table ``table``."""
    role = f"t{table}"
    return SPLIT[layout].get(role, role) if layout in SPLIT and block >= 0x8000 else role


def role_tag(namespace: str, role: str, layout: int) -> str:
    """A hash tag for ``role`` whose slot falls in the sixth of the slot range given by
    ``PLACEMENTS``; a role sharing another's slot (``SHARED_TAGS``) takes its tag. The id
    hashes' tag tells the layout of an index found without its record (``layout_of``):
    layout 5's is named ``id`` (its sixth is layout 1's, and layout 4's the other)."""
    role = SHARED_TAGS.get(layout, {}).get(role, role)
    name = "id" if layout == COMPACT and role == "ids" else role
    for n in range(100_000):
        tag = f"{namespace}.{name}{n or ''}"
        if key_slot(tag.encode()) * 6 // REDIS_CLUSTER_HASH_SLOTS == PLACEMENTS[layout][role]:
            return tag
    raise RuntimeError(f"no hash tag found for {namespace} {role}")  # not reached: about 1 in 6 fits


def layout_of(client: Any, namespace: str, new: int = COMPACT, sentences: bool = True) -> int:
    """The layout of the spread index of ``namespace``, recorded under ``<namespace>:spread:layout``
    by the first worker: that of an index found without a record (its id hashes' slot holds
    its keys: layout 1 was never recorded), else ``new``. Without the sentence rule the
    balanced layout is layout 1 and the compact one layout 3 (two block tables a master, then
    the id hashes): layouts 2 and 4 would leave the sentence table's master nearly empty."""
    if not sentences:
        new = {BALANCED: 1, COMPACT: SENTENCES_BY_IDS}.get(new, new)
    key = f"{namespace}:spread:layout"
    found = client.get(key)
    if found is None:
        held = [n for n in sorted(PLACEMENTS, reverse=True) if client.exists(
            *("{%s}:%s" % (role_tag(namespace, "ids", n), k) for k in ("form", "stats", "ids", "held", "generations")))]
        client.set(key, held[0] if held else new, nx=True)
        found = client.get(key)
    layout = int(found) if found.isdigit() else None
    if layout not in PLACEMENTS:
        raise ValueError(f"{key} names layout {found!r}, not one this version knows ({sorted(PLACEMENTS)})")
    return layout


class Begun(NamedTuple):
    earlier: dict[str, Decision]  # the ids decided before
    elsewhere: set[str]  # ids another worker is deciding at this moment (it records them)
    copies: set[str]  # ids whose simhash another id registered first: its copies at distance 0


def begin(store: Any, docs: Sequence[Document]) -> Begun:
    """The decisions recorded before for ``docs`` (one a distinct id), and the others'
    simhashes registered under their ids (``spread/decided.lua``)."""
    return begun_from(docs, run_scripts(store.client, [begin_call(store, docs)])[0])


def begin_call(store: Any, docs: Sequence[Document]) -> tuple[Any, list[str], list[Any]]:
    """The call of ``begin``, to send beside others."""
    return store.scripts["decided"], decided_keys(store), decided_args(store, docs, register=True)


def begun_from(docs: Sequence[Document], reply: bytes) -> Begun:
    answers = sized(reply)
    return Begun(parse_decided([d.id for d in docs], reply), {d.id for d, a in zip(docs, answers) if a == b"W"},
                 {d.id for d, a in zip(docs, answers) if a == b"L"})


def run_scripts(client: Any, calls: list[tuple[Any, list[str], list[Any]]]) -> list[Any]:
    """``script(keys, args)`` of every call (``spread_scripts.Entry``) in one pipeline: a
    cluster client sends each master its calls at once, in order, and they run side by side.
    The calls refused because their master lost its scripts (restarted, or flushed: all of
    them, so every call sent it) are sent again in their order once the scripts are loaded;
    the calls that ran are not run twice."""
    replies: list[Any] = [None] * len(calls)
    todo = list(range(len(calls)))
    for _ in range(2):
        pipe = client.pipeline(transaction=False)
        for i in todo:  # the node named: else the client asks a server where the keys are
            script, keys, args = calls[i]
            pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, script.name, *args,
                                 target_nodes=client.get_node_from_key(keys[0]))
        failed = []
        for i, reply in zip(todo, pipe.execute(raise_on_error=False)):
            if isinstance(reply, NoScriptError):
                failed.append(i)
            elif isinstance(reply, Exception):
                raise reply
            else:
                replies[i] = reply
        if not failed:
            return replies
        for script in {id(calls[i][0]): calls[i][0] for i in failed}.values():
            client.script_load(script.script)
        todo = failed
    raise RuntimeError("the index's scripts could not be loaded on every master")


def decided_keys(store: Any) -> list[str]:
    """The begun hash, then each live generation's id hashes (``spread/decided.lua``); in the
    compact layout the origins hash (the rest is found by the generations' prefixes)."""
    if store.compact:
        return [store.id_prefix + "begun", store.origins_key]
    return [store.id_prefix + "begun", *(prefix + k for prefix in store.live
                                         for k in ("docids", "ids", "docs", "drops", "drops:old"))]


def decided_args(store: Any, docs: Sequence[Document | str], register: bool = False) -> list[Any]:
    """Per id its key, simhash (zeros for a bare id) and the id itself, one string."""
    packed = []
    for doc in docs:
        doc_id, fp = (doc, 0) if isinstance(doc, str) else (doc.id, doc.simhash)
        raw = doc_id.encode()
        packed += [id_key(doc_id), fp.to_bytes(8, "big"), len(raw).to_bytes(4, "big"), raw]
    return ["1" if store.legacy_docs else "0", b"".join(packed), "1" if register else "0",
            "1" if store.drops_by_id else "0", *(("1", store.drops_rotate, *store.live) if store.compact else ("0",))]


def sized(blob: bytes) -> list[bytes]:
    """The strings of a script's one-string reply, each 4 bytes of length and its bytes."""
    out, p, end = [], 0, len(blob)
    while p < end:
        n = int.from_bytes(blob[p : p + 4], "big")
        out.append(blob[p + 4 : p + 4 + n])
        p += 4 + n
    return out


def parse_decided(ids: list[str], reply: bytes) -> dict[str, Decision]:
    out = {}
    for doc_id, a in zip(ids, sized(reply)):
        if a[:1] == b"K":
            out[doc_id] = Decision(doc_id, int.from_bytes(a[1:], "big"), replayed=True)
        elif a[:1] == b"d":
            (rec,) = compact_records([doc_id], [a[1:24]], [a[24:].decode()])
            out[doc_id] = Decision(doc_id, rec.simhash, rec.duplicate_of, rec.distance, replayed=True, rule=rec.rule)
        elif a[:1] == b"D":
            rec = json.loads(a[1:])
            out[doc_id] = Decision(doc_id, from_hex(rec["simhash"]), rec["duplicate_of"], rec["distance"],
                                   replayed=True, rule=rec.get("rule", "simhash"))
    return out


def read_decided(store: Any, ids: list[str]) -> dict[str, Decision]:
    """The earlier decisions of ``ids`` that have one."""
    ids = list(dict.fromkeys(ids))
    return parse_decided(ids, run_scripts(store.client, [(store.scripts["decided"], decided_keys(store),
                                                          decided_args(store, ids))])[0])
