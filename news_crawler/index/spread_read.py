"""Spread index (``spread_store.py``): where its tables live, and its reads. A batch is read
in one round: each table's entries near the batch's documents and the decisions recorded
before for its ids, one script call a slot, every master at once. What is read becomes a
``MemoryStore`` that then decides the batch exactly as one Lua call on one server would."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NamedTuple

from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot
from redis.exceptions import NoScriptError

from news_crawler.fingerprint.simhash64 import blocks, from_hex
from news_crawler.index.base import Decision, Document, id_key
from news_crawler.index.drop_records import compact_records
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


class BatchView(NamedTuple):
    earlier: dict[str, Decision]  # the ids decided before
    view: MemoryStore  # what could decide the others
    names: dict[str, int]  # the view's placeholder names of kept documents ("\0<hex>") -> simhash
    dead: dict[int, list[int]]  # per sentence key, simhashes of forgotten documents found there
    versions: dict[str, bytes]  # each table's version when it was read


def read_batch(store: Any, docs: Sequence[Document]) -> BatchView:
    """What decides ``docs``: the entries near them (the rest can change no decision) and
    the decisions recorded before for their ids."""
    rule = store.sentence_rule
    fps = b"".join(d.simhash.to_bytes(8, "big") for d in docs)
    calls = [(store.scripts["decided"], decided_keys(store), decided_args(store, [d.id for d in docs]))]
    calls += [(store.scripts["near"], [store.version_key(f"t{t}")], [store.bucket_key(t, 0)[:-4], t, store.max_distance, fps])
              for t in range(4)]
    signed = [d for d in docs if rule and len(d.sentences) >= rule.match]
    if signed:
        recs = sorted(k.to_bytes(3, "big") + d.simhash.to_bytes(8, "big") + bytes([d.length])
                      for d in signed for k in d.sentences)
        calls.append((store.scripts["near_sentences"], [store.version_key("s")],
                      [store.sentence_bucket_key(0)[:-5], rule.max_distance, rule.length_slack, b"".join(recs)]))
    replies = run_scripts(store.client, calls)
    earlier = parse_decided([d.id for d in docs], replies[0])
    versions = {f"t{t}": replies[1 + t][0] for t in range(4)}
    tables: dict[tuple[int, int], list[int]] = {}
    split = [blocks(d.simhash) for d in docs]
    for t in range(4):
        low_bits = 48 - 16 * t  # an entry is the simhash without block t: the bits below it stay
        low_mask = (1 << low_bits) - 1
        for b, entries in zip(dict.fromkeys(s[t] for s in split), _counted(replies[1 + t][1], 6)):
            if entries:
                middle = b << low_bits
                tables[(t, b)] = [((v >> low_bits) << (low_bits + 16)) | middle | (v & low_mask)
                                  for v in (int.from_bytes(e, "big") for e in entries)]
    sentences: dict[int, list[tuple[int, int]]] = {}
    if signed:
        versions["s"] = replies[5][0]
        keys = dict.fromkeys(sorted(k for d in signed for k in d.sentences))
        for k, entries in zip(keys, _counted(replies[5][1], 9)):
            if entries:
                sentences[k] = [(int.from_bytes(e[:8], "big"), e[8]) for e in entries]
    kept = {fp for fps_ in tables.values() for fp in fps_}
    maybe = list({fp for entries in sentences.values() for fp, _ in entries} - kept)
    if maybe:  # sentence entries of forgotten documents name no kept simhash: skip them
        live = store.client.hmget(store.id_prefix + "ids", [fp.to_bytes(8, "big") for fp in maybe])
        kept |= {fp for fp, i in zip(maybe, live) if i is not None}
    names = {f"\0{fp:016x}": fp for fp in kept}
    view = MemoryStore(store.max_distance, rule)
    view.preload(tables, sentences, {fp: name for name, fp in names.items()})
    dead = {k: [fp for fp, _ in v if fp not in kept] for k, v in sentences.items()}
    return BatchView(earlier, view, names, dead, versions)


def _counted(blob: bytes, size: int) -> list[list[bytes]]:
    """Groups of ``size``-byte entries, each group a 2-byte count and its entries."""
    out: list[list[bytes]] = []
    p, end, none = 0, len(blob), []
    while p < end:
        n = (blob[p] << 8) | blob[p + 1]
        p += 2
        if n:
            out.append([blob[q : q + size] for q in range(p, p + n * size, size)])
            p += n * size
        else:
            out.append(none)
    return out


def run_scripts(client: Any, calls: list[tuple[Any, list[str], list[Any]]]) -> list[Any]:
    """``script(keys=keys, args=args)`` of every call in one pipeline: a cluster client
    sends each master its calls at once, and they run side by side."""
    for _ in range(2):
        pipe = client.pipeline(transaction=False)
        for script, keys, args in calls:  # the node named: else the client asks a server where the keys are
            pipe.execute_command("EVALSHA", script.sha, len(keys), *keys, *args,
                                 target_nodes=client.get_node_from_key(keys[0]))
        try:
            return pipe.execute()
        except NoScriptError:  # a master restarted or its scripts were flushed: load them again
            for script in {id(s): s for s, _, _ in calls}.values():
                client.script_load(script.script)
    raise RuntimeError("the index's scripts could not be loaded on every master")


def decided_keys(store: Any) -> list[str]:
    return [store.id_prefix + k for k in ("docids", "ids", "docs", "drops", "drops:old")]


def decided_args(store: Any, ids: list[str]) -> list[Any]:
    packed = []
    for doc_id in ids:
        raw = doc_id.encode()
        packed += [id_key(doc_id), len(raw).to_bytes(4, "big"), raw]
    return ["1" if store.legacy_docs else "0", b"".join(packed)]


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
