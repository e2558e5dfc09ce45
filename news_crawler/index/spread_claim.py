"""Spread index (``spread_store.py``): the tables read and claimed at once. Every document
of a batch is checked and inserted in each block table and in the sentence table by one
atomic script a table (``spread/claim_table.lua``, ``spread/claim_sentences.lua``; in the
compact layout table 0 and the sentence table share a slot and one call,
``spread/claim_table_and_sentences.lua``), all masters at once: a script reports the
entries near each document as the table was when the call began, and inserts the
document's entry only where it finds none (a document near one kept, or being kept by
another worker, is never kept). What they report becomes a
``BatchView`` that decides the batch exactly as one Lua call on one server would; the
entries of the documents it drops are then taken back. Two near-duplicates share a block
table, where the call that comes second finds the first one's entry: never are both kept."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from news_crawler.fingerprint.simhash64 import blocks
from news_crawler.index.base import Document
from news_crawler.index.kept_ids import short_ref
from news_crawler.index.memory import BatchView
from news_crawler.index.spread_pending import SentCalls
from news_crawler.index.spread_read import BY_TABLE_0, SPLIT, run_scripts, table_role

SENTENCE_TABLE = 4  # in ``Claimed.placed``, after the block tables 0..3


class Claimed(NamedTuple):
    view: BatchView  # the entries reported, ready to decide the batch
    names: dict[str, int]  # the view's placeholder names of kept documents ("\0<hex>") -> simhash
    placed: dict[str, list[int]]  # per id, the tables its entries were inserted in
    before: list[Any]  # the replies of the calls sent before the claims
    sent: Any  # every call sent (spread_pending.SentCalls): the replies of those sent after them still to read


def claim(store: Any, docs: list[Document], check_kept: bool = False,
          before: Sequence[tuple[Any, list[str], list[Any]]] = (),
          after: Sequence[tuple[Any, list[str], list[Any]]] = ()) -> Claimed:
    """Read and claim every table for ``docs`` (distinct ids), all in one round with the
    ``before`` calls (on each master they run ahead of its claims) and the ``after`` calls
    (after them; their replies are not waited for). With ``check_kept`` (a batch decided
    again), sentence entries are inserted whatever they meet, and those they meet are
    checked to name documents still kept (forgetting leaves a document's sentence entries
    behind; the compact layouts' claims check it themselves)."""
    rule = store.sentence_rule
    signed = [d for d in docs if rule and len(d.sentences) >= rule.match]
    newest, *older = store.live  # the live generations' prefixes, newest first
    parts = table_parts(store.layout, docs)
    calls = [(store.scripts["claim_table"], [store.slot_key(table_role(store.layout, t, block))],
              [store.bucket_key(t, block, newest)[:-4], t, store.max_distance,
               b"".join(d.simhash.to_bytes(8, "big") for d in part), *(store.bucket_key(t, block, p)[:-4] for p in older)])
             for t, block, part in parts]
    if signed:
        packed = []
        for d in signed:
            packed += [d.simhash.to_bytes(8, "big"), bytes([len(d.sentences)]),
                       b"".join(k.to_bytes(3, "big") for k in d.sentences), bytes([d.length])]
        mode = ("T" if check_kept else "t") if store.layout in BY_TABLE_0 else ("1" if check_kept else "0")
        head = [store.generations.role_prefix("s", newest), rule.match, rule.max_distance, rule.length_slack, mode,
                b"".join(packed)]
        older_s = [store.generations.role_prefix("s", p) for p in older]
        if store.layout in BY_TABLE_0:  # with table 0's claim, in one call (claim_table_and_sentences.lua)
            script, keys, args = calls[0]
            calls[0] = (store.scripts["claim_table_and_sentences"], keys, [len(args), *args, *head, *older_s])
        elif store.compact:
            calls.append((store.scripts["claim_short"], [store.id_prefix + "begun"], [*head, *older_s]))
        else:
            calls.append((store.scripts["claim_sentences"], [store.slot_key("s")], [*head, store.layout, *older_s]))
    sent = SentCalls(store.client, [*before, *calls, *after])
    ahead, replies = len(before), sent.replies(len(before) + len(calls))
    ahead_replies, replies = replies[:ahead], replies[ahead:]
    if signed and store.layout in BY_TABLE_0:
        replies = [replies[0][0], *replies[1 : len(parts)], replies[0][1]]
    placed: dict[str, list[int]] = {d.id: [] for d in docs}
    tables = _table_entries(parts, replies[: len(parts)], placed)
    sentences = _sentence_entries(signed, replies[len(parts)], placed) if signed else {}
    kept = {fp for entries in tables.values() for fp in entries.values()}
    maybe = list({fp for entries in sentences.values() for fp, _ in entries.values()} - kept)
    if check_kept and maybe and not store.compact:  # a compact claim reported only documents it found
        for prefix in store.live:
            if maybe:
                live = store.client.hmget(prefix + "ids", [fp.to_bytes(8, "big") for fp in maybe])
                kept |= {fp for fp, i in zip(maybe, live) if i is not None}
                maybe = [fp for fp in maybe if fp not in kept]
    else:
        kept.update(maybe)
    names = {f"\0{fp:016x}": fp for fp in kept}
    view = BatchView(store.max_distance, rule)
    view.preload({k: [v[p] for p in sorted(v)] for k, v in tables.items()},
                 {k: [v[p] for p in sorted(v)] for k, v in sentences.items()},
                 {fp: name for name, fp in names.items()})
    return Claimed(view, names, placed, ahead_replies, sent)


def table_parts(layout: int, docs: list[Document]) -> list[tuple[int, int, list[Document]]]:
    """The claims of the block tables, table 0's first: (table, a block of the claim's
    slot, its documents). A table split over two slots (``SPLIT``) has a claim for each
    half of its buckets."""
    parts = []
    for t in range(4):
        if f"t{t}" not in SPLIT.get(layout, {}):
            parts.append((t, 0, docs))
            continue
        for half in (0, 0x8000):
            part = [d for d in docs if (blocks(d.simhash)[t] & 0x8000) == half]
            if part:
                parts.append((t, half, part))
    return parts


def _table_entries(parts: list[tuple[int, int, list[Document]]], replies: list[bytes], placed: dict[str, list[int]]
                   ) -> dict[tuple[int, int], dict[int, int]]:
    """Per (table, block), the simhashes reported by their generation (newest first) and
    place in the bucket, as one number."""
    tables: dict[tuple[int, int], dict[int, int]] = {}
    for (t, _, docs), reply in zip(parts, replies):
        low_bits = 48 - 16 * t  # an entry is the simhash without block t: the bits below it stay
        low_mask = (1 << low_bits) - 1
        p = 0
        for d in docs:
            n = (reply[p] << 8) | reply[p + 1]
            p += 2
            if not n:
                placed[d.id].append(t)
                continue
            b = (d.simhash >> (48 - 16 * t)) & 0xFFFF
            bucket = tables.setdefault((t, b), {})
            middle = b << low_bits
            for q in range(p, p + 10 * n, 10):
                v = int.from_bytes(reply[q + 4 : q + 10], "big")
                bucket[int.from_bytes(reply[q : q + 4], "big")] = (
                    ((v >> low_bits) << (low_bits + 16)) | middle | (v & low_mask))
            p += 10 * n
    return tables


def _sentence_entries(signed: list[Document], reply: bytes, placed: dict[str, list[int]]
                      ) -> dict[int, dict[tuple[int, int], tuple[int, int]]]:
    """Per sentence key, the (simhash, length code) entries reported by their generation
    (newest first) and place in the bucket, as one number, and simhash (a compact entry's
    short ref may name two)."""
    sentences: dict[int, dict[tuple[int, int], tuple[int, int]]] = {}
    p = 0
    for d in signed:
        if reply[p]:
            placed[d.id].append(SENTENCE_TABLE)
        groups = reply[p + 1]
        p += 2
        for _ in range(groups):
            key = d.sentences[reply[p] - 1]
            n = (reply[p + 1] << 8) | reply[p + 2]
            p += 3
            found = sentences.setdefault(key, {})
            for q in range(p, p + 13 * n, 13):
                fp = int.from_bytes(reply[q + 4 : q + 12], "big")
                found[int.from_bytes(reply[q : q + 4], "big"), fp] = (fp, reply[q + 12])
            p += 13 * n
    return sentences


def take_back_calls(store: Any, losers: list[Document], placed: dict[str, list[int]]) -> list[tuple[Any, list, list]]:
    """The calls that take the losers' entries out of the tables they were inserted in."""
    by_role: dict[str, list[Any]] = {}  # in the tables' order, the sentence table last
    for t in range(5):
        for d in losers:
            if t not in placed.get(d.id, ()):
                continue
            raw = d.simhash.to_bytes(8, "big")
            if t < SENTENCE_TABLE:
                block = blocks(d.simhash)[t]
                by_role.setdefault(table_role(store.layout, t, block), []).extend(
                    (store.bucket_key(t, block), raw[: 2 * t] + raw[2 * t + 2 :]))
            else:
                ref = short_ref(raw) if store.compact else raw
                for k in d.sentences:
                    by_role.setdefault("s", []).extend(
                        (store.sentence_bucket_key(k), bytes([k & 0xFF]) + ref + bytes([d.length])))
    return [(store.scripts["remove"], [store.slot_key(role)], [6 if role != "s" or store.compact else 10, *pairs])
            for role, pairs in by_role.items()]


def undo(store: Any, docs: list[Document]) -> None:
    """What a worker that died between its claims and its record left of ``docs``: their
    entries in every table and their registrations (the begun hash), taken out, so that
    they can be decided afresh."""
    calls = take_back_calls(store, docs, {d.id: [0, 1, 2, 3, SENTENCE_TABLE] for d in docs})
    if calls:
        run_scripts(store.client, calls)
    store.client.eval(UNREGISTER, 1, store.id_prefix + "begun", registrations(docs))


# ARGV[1] per document: its 8-byte simhash, 4 bytes of length, its id. Removes each
# registration still this id's.
UNREGISTER = ("local byte, sub, blob, p = string.byte, string.sub, ARGV[1], 1 "
              "while p <= #blob do local b1, b2, b3, b4 = byte(blob, p + 8, p + 11) "
              "local n = ((b1 * 256 + b2) * 256 + b3) * 256 + b4 local fp, id = sub(blob, p, p + 7), "
              "sub(blob, p + 12, p + 11 + n) if redis.call('HGET', KEYS[1], fp) == id then "
              "redis.call('HDEL', KEYS[1], fp) end p = p + 12 + n end return 0")


def registrations(docs: list[Document]) -> bytes:
    out = []
    for d in docs:
        raw = d.id.encode()
        out += [d.simhash.to_bytes(8, "big"), len(raw).to_bytes(4, "big"), raw]
    return b"".join(out)
