"""Spread index (``spread_store.py``), phase C: the documents a worker decided to keep claim
their places. Their ids are registered first (so a worker that loses to one of them can name
it); then the four block tables and the sentence table are claimed at once, one atomic
check-and-insert a table on its own master. Two near-duplicates share a table: there the
later claim finds the earlier and loses. Should each lose in a different table, both go:
the record step then finds one of them named by the other's drop yet gone, and decides it
again (``finish.lua``), so one of them is kept. A loser's entries are taken back."""

from __future__ import annotations

from typing import Any

from news_crawler.fingerprint.simhash64 import blocks
from news_crawler.index.base import Document
from news_crawler.index.spread_read import run_scripts, sized

# ARGV[1] per document: its 8-byte simhash, 4 bytes of length, its id. REGISTER registers
# each simhash not registered yet and returns per document 4 bytes of length and the id
# registered before ('' when none); UNREGISTER removes each registration still this id's.
_EACH = ("local byte, sub, char, blob, p = string.byte, string.sub, string.char, ARGV[1], 1 "
         "local function each(f) while p <= #blob do local b1, b2, b3, b4 = byte(blob, p + 8, p + 11) "
         "local n = ((b1 * 256 + b2) * 256 + b3) * 256 + b4 f(sub(blob, p, p + 7), sub(blob, p + 12, p + 11 + n)) "
         "p = p + 12 + n end end ")
REGISTER = _EACH + ("local out = {} each(function(fp, id) local had = redis.call('HGET', KEYS[1], fp) or '' "
                    "if had == '' then redis.call('HSET', KEYS[1], fp, id) end local m = #had "
                    "out[#out + 1] = char(math.floor(m / 16777216), math.floor(m / 65536) % 256, "
                    "math.floor(m / 256) % 256, m % 256) .. had end) return table.concat(out)")
UNREGISTER = _EACH + ("each(function(fp, id) if redis.call('HGET', KEYS[1], fp) == id then "
                      "redis.call('HDEL', KEYS[1], fp) end end) return 0")
Lost = dict[str, tuple[int, int, str]]  # id -> (the simhash it lost to, distance, rule)


def claim(store: Any, keep: list[Document], dead: dict[int, list[int]], versions: dict[str, bytes]
          ) -> tuple[Lost, set[str]]:
    """Claim every table for ``keep``: the documents that lost, and the ids another worker is
    deciding at this moment (it records them)."""
    if not keep:
        return {}, set()
    # A simhash registered already is another document's: under the same id, another worker
    # is deciding it (its record is waited for); under another id, this one is its copy at
    # distance 0 and claims nothing.
    had = sized(store.client.eval(REGISTER, 1, store.id_prefix + "ids", registrations(keep)))
    elsewhere = {d.id for d, h in zip(keep, had) if h and h.decode() == d.id}
    lost: Lost = {d.id: (d.simhash, 0, "simhash") for d, h in zip(keep, had) if h and h.decode() != d.id}
    keep = [d for d in keep if d.id not in elsewhere and d.id not in lost]
    if not keep:
        return lost, elsewhere
    fps = b"".join(d.simhash.to_bytes(8, "big") for d in keep)
    calls = [(store.scripts["claim_table"], [store.version_key(f"t{t}")],
              [store.bucket_key(t, 0)[:-4], t, store.max_distance, versions[f"t{t}"], fps]) for t in range(4)]
    rule = store.sentence_rule
    signed = [d for d in keep if rule and len(d.sentences) >= rule.match]
    if signed:
        args: list[Any] = ["{%s}:" % store.tags["s"], rule.match, rule.max_distance, rule.length_slack,
                           versions.get("s", b"0")]
        packed = []
        for d in signed:
            skip = {fp for k in d.sentences for fp in dead.get(k, ())}
            packed += [d.simhash.to_bytes(8, "big"), bytes([len(d.sentences)]),
                       b"".join(k.to_bytes(3, "big") for k in d.sentences), bytes([d.length]),
                       len(skip).to_bytes(2, "big"), b"".join(fp.to_bytes(8, "big") for fp in skip)]
        args.append(b"".join(packed))
        calls.append((store.scripts["claim_sentences"], [store.version_key("s")], args))
    answers = run_scripts(store.client, calls)
    claimed: dict[str, list[int]] = {}  # tables each document holds entries in (4: the sentence table)
    for t, reply in enumerate(answers):
        rule_name = "sentences" if t == 4 else "simhash"
        for d, other in zip(signed if t == 4 else keep, lost_to(reply)):
            if other is None:
                claimed.setdefault(d.id, []).append(t)
            elif d.id not in lost:  # the tables come before the sentence table: a simhash match names it
                lost[d.id] = (other, bin(other ^ d.simhash).count("1"), rule_name)
    take_back(store, [d for d in keep if d.id in lost], claimed)
    return lost, elsewhere


def take_back(store: Any, losers: list[Document], claimed: dict[str, list[int]]) -> None:
    """Take the losers' entries out of the tables they had claimed."""
    for t in range(5):
        pairs: list[Any] = []
        for d in losers:
            if t not in claimed.get(d.id, ()):
                continue
            raw = d.simhash.to_bytes(8, "big")
            if t < 4:
                pairs += [store.bucket_key(t, blocks(d.simhash)[t]), raw[: 2 * t] + raw[2 * t + 2 :]]
            else:
                for k in d.sentences:
                    pairs += [store.sentence_bucket_key(k), bytes([k & 0xFF]) + raw + bytes([d.length])]
        if pairs:
            store.scripts["remove"](keys=[store.version_key(f"t{t}" if t < 4 else "s")],
                                    args=[6 if t < 4 else 10, *pairs])


def undo(store: Any, docs: list[Document]) -> None:
    """What a worker that died between its claims and its record left of ``docs``: their
    entries in every table and their ids registered under their simhashes, taken out, so
    that they can be decided afresh."""
    take_back(store, docs, {d.id: [0, 1, 2, 3, 4] for d in docs})
    store.client.eval(UNREGISTER, 1, store.id_prefix + "ids", registrations(docs))


def registrations(docs: list[Document]) -> bytes:
    out = []
    for d in docs:
        raw = d.id.encode()
        out += [d.simhash.to_bytes(8, "big"), len(raw).to_bytes(4, "big"), raw]
    return b"".join(out)


def lost_to(answers: bytes) -> list[int | None]:
    """A claim's answers: per document None (inserted) or the simhash it lost to."""
    out: list[int | None] = []
    p = 0
    while p < len(answers):
        if answers[p]:
            out.append(int.from_bytes(answers[p + 1 : p + 9], "big"))
            p += 9
        else:
            out.append(None)
            p += 1
    return out
