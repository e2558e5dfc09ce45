"""The index spread over a Redis Cluster's masters, without a cross-slot transaction.

Each block table, the sentence table and the id hashes live in hash slots of their own,
chosen to fall in different sixths of the slot range (so an evenly split cluster of three
masters holds two of them each). A batch is decided in four steps:

1. Read: every bucket the batch's documents fall in, and the records of ids decided before.
2. Decide: on what was read, exactly as one Lua call on one server would (``MemoryStore``
   preloaded with it), so a lone writer gets the standalone server's answers.
3. Claim: the documents to keep register their id (one already registered under the same
   simhash is another worker's to decide: its record is waited for), then claim the tables
   in one order, 0 to 3 and the sentence table, one atomic call a table, which finds what
   other workers kept since step 1 or inserts. Near-duplicates share some table; in the
   first they share the later claim finds the earlier and loses, and its entries go again.
4. Record: kept documents, drops (named by the id of what they duplicate), counts.

Three near-duplicates decided at one moment can leave one dropped as a copy of one that
lost its own claim. Retention generations are not supported here.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from news_crawler.fingerprint.simhash64 import blocks
from news_crawler.index.base import Decision, Document, id_key, now_iso
from news_crawler.index.memory import MemoryStore
from news_crawler.index.redis_store import RedisStore
from news_crawler.index.scripts import lua
from news_crawler.index.spread_read import ROLES, read_decided, read_view, role_tag

_LUA = Path(__file__).with_name("spread")
# Register ids before claiming; per document the id already registered under its simhash, or ''.
_REGISTER = ("local out = {} for i = 1, #ARGV, 2 do local had = redis.call('HGET', KEYS[1], ARGV[i]) "
             "if not had then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end out[#out + 1] = had or '' end "
             "return out")
WAIT_SECONDS = 10.0  # for another worker deciding the same id (see _settled)
RETRIES = 10  # decisions again of a document whose duplicate lost its claim meanwhile
class SpreadStore(RedisStore):
    def __init__(self, client: Any, namespace: str, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("retention_days"):
            raise ValueError("DEDUP_RETENTION_DAYS is not supported by the spread index (DEDUP_CLUSTER_INDEX=spread)")
        super().__init__(client, namespace, *args, **kwargs)
        self.tags = {role: role_tag(namespace, role) for role in ROLES}
        self.id_prefix = "{%s}:" % self.tags["ids"]
        self.stats_key = self.id_prefix + "stats"
        self._claim_table = client.register_script(lua("spread/claim_table.lua"))
        self._claim_sentences = client.register_script(lua("spread/claim_sentences.lua"))
        self._remove = client.register_script((_LUA / "remove.lua").read_text(encoding="utf-8"))
        self._finish = client.register_script((_LUA / "finish.lua").read_text(encoding="utf-8"))
        self.read_script = client.register_script((_LUA / "read.lua").read_text(encoding="utf-8"))
        self.legacy_docs = bool(client.exists(self.id_prefix + "docs"))

    # Where keys are -----------------------------------------------------------------------

    def prefix(self, generation: int | None = None) -> str:
        return self.id_prefix

    def live_prefixes(self) -> list[str]:
        return [self.id_prefix]

    def table_prefix(self, table: int) -> str:
        return "{%s}:" % self.tags[f"t{table}"]

    def bucket_key(self, table: int, block: int, prefix: str | None = None) -> str:
        return f"{self.table_prefix(table)}{table}{block:04x}"

    def sentence_bucket_key(self, key: int, prefix: str | None = None) -> str:
        return "{%s}:s%04x" % (self.tags["s"], key >> 8)

    # Deciding -----------------------------------------------------------------------------

    def _decide_batch(self, docs: Sequence[Document], attempt: int = 0) -> list[Decision]:
        earlier = self._read_decided([d.id for d in docs])
        first: dict[str, Document] = {}
        for d in docs:
            if d.id not in earlier:
                first.setdefault(d.id, d)
        fresh = list(first.values())
        view, names, dead = self._read_view(fresh)
        local = view.decide_many(fresh)
        lost, elsewhere = self._claim([d for d, dec in zip(fresh, local) if dec.kept], dead)
        rows = []
        for doc, dec in zip(fresh, local):
            if doc.id in elsewhere:  # another worker is deciding this id: it records the decision
                rows.append(("W", doc, None, 0, ""))
            elif doc.id in lost:
                rows.append(("L", doc, *lost[doc.id]))
            elif dec.kept:
                rows.append(("K", doc, None, 0, ""))
            else:  # a placeholder name (read from the tables) or an id of this batch
                dup = names[dec.duplicate_of] if dec.duplicate_of in names else first[dec.duplicate_of].simhash
                rows.append(("D", doc, dup, dec.distance, dec.rule))
        decided = {}
        waiting, again = [], []
        for (code, doc, _, dist, rule), (name, replay) in zip(rows, self._record(rows)):
            if replay == 2:  # what it duplicates lost its own claim meanwhile: decide it again
                again.append(doc)
            elif replay:
                waiting.append(doc.id)
            elif code == "K":
                decided[doc.id] = Decision(doc.id, doc.simhash)
            else:
                decided[doc.id] = Decision(doc.id, doc.simhash, name, dist, rule=rule)
        decided.update(self._settled(waiting))
        if again:
            if attempt >= RETRIES:
                raise RuntimeError(f"{len(again)} documents lost their duplicate {RETRIES} times in a row; decide again")
            decided.update((d.id, dec) for d, dec in zip(again, self._decide_batch(again, attempt + 1)))
        out, answered = [], set()
        for doc in docs:
            if doc.id in earlier:
                out.append(earlier[doc.id])
            elif doc.id not in answered:
                out.append(decided[doc.id])
                answered.add(doc.id)  # a later occurrence of the id is a replay of this one
            else:
                out.append(self._as_replay(decided[doc.id]))
        return out

    def _settled(self, ids: list[str]) -> dict[str, Decision]:
        """The decisions another worker records for ``ids`` (the same ids, decided at the same
        moment with the same simhash): waited for, as replays."""
        out: dict[str, Decision] = {}
        deadline = time.monotonic() + WAIT_SECONDS
        while ids:
            found = self._read_decided(ids)
            out.update(found)
            ids = [i for i in ids if i not in found]
            if ids and time.monotonic() > deadline:
                raise RuntimeError(f"no decision recorded for {ids[:3]} by the worker deciding them; decide again")
            if ids:
                time.sleep(0.01)  # the other worker is between its claims and its record: milliseconds
        return out

    @staticmethod
    def _as_replay(d: Decision) -> Decision:
        return Decision(d.id, d.simhash, d.duplicate_of, d.distance, replayed=True, rule=d.rule)

    def _read_decided(self, ids: list[str]) -> dict[str, Decision]:
        return read_decided(self, ids)

    def _read_view(self, docs: Sequence[Document]) -> tuple[MemoryStore, dict[str, int], dict[int, list[int]]]:
        return read_view(self, docs)

    def _claim(self, keep: list[Document], dead: dict[int, list[int]]
               ) -> tuple[dict[str, tuple[int, int, str]], set[str]]:
        """Claim every table for ``keep`` in order; the documents that lost, with the simhash,
        distance and rule they lost by."""
        if not keep:
            return {}, set()
        # Register the ids first: a worker that loses a claim to one of these names it by them.
        # A simhash registered already is another document's: under the same id, another
        # worker is deciding it (its record is waited for); under another id, this one is its
        # copy at distance 0 and claims nothing.
        had = self.client.eval(_REGISTER, 1, self.id_prefix + "ids",
                               *[x for d in keep for x in (d.simhash.to_bytes(8, "big"), d.id)])
        elsewhere = {d.id for d, h in zip(keep, had) if h and h.decode() == d.id}
        copies = {d.id: (d.simhash, 0, "simhash") for d, h in zip(keep, had) if h and h.decode() != d.id}
        keep = [d for d in keep if d.id not in elsewhere and d.id not in copies]
        lost: dict[str, tuple[int, int, str]] = dict(copies)
        claimed: dict[str, list[int]] = {}  # tables each document holds an entry in
        for t in range(4):
            alive = [d for d in keep if d.id not in lost]
            if not alive:
                break
            answers = self._claim_table(keys=[self.bucket_key(t, 0)], args=[
                self.table_prefix(t), t, self.max_distance, *[d.simhash.to_bytes(8, "big") for d in alive]])
            for d, other in zip(alive, answers):
                if other:
                    fp = int.from_bytes(other, "big")
                    lost[d.id] = (fp, bin(fp ^ d.simhash).count("1"), "simhash")
                else:
                    claimed.setdefault(d.id, []).append(t)
        rule = self.sentence_rule
        alive = [d for d in keep if d.id not in lost and rule and len(d.sentences) >= rule.match]
        if alive:
            args: list[Any] = ["{%s}:" % self.tags["s"], rule.match, rule.max_distance, rule.length_slack]
            for d in alive:
                skip = {fp for k in d.sentences for fp in dead.get(k, ())}
                args += [d.simhash.to_bytes(8, "big"), b"".join(k.to_bytes(3, "big") for k in d.sentences), d.length,
                         b"".join(fp.to_bytes(8, "big") for fp in skip)]
            for d, other in zip(alive, self._claim_sentences(keys=[self.sentence_bucket_key(0)], args=args)):
                if other:
                    fp = int.from_bytes(other, "big")
                    lost[d.id] = (fp, bin(fp ^ d.simhash).count("1"), "sentences")
        self._take_back([d for d in keep if d.id in lost], claimed)
        return lost, elsewhere

    def _take_back(self, losers: list[Document], claimed: dict[str, list[int]]) -> None:
        """Take the losers' entries out of the tables they had claimed."""
        for t in range(4):
            pairs: list[Any] = []
            for d in losers:
                if t in claimed.get(d.id, ()):
                    block = blocks(d.simhash)[t]
                    raw = d.simhash.to_bytes(8, "big")
                    pairs += [self.bucket_key(t, block), raw[: 2 * t] + raw[2 * t + 2 :]]
            if pairs:
                self._remove(keys=[self.bucket_key(t, 0)], args=[6, *pairs])

    def _record(self, rows: list[tuple[str, Document, int | None, int, str]]) -> list[tuple[str, int]]:
        if not rows:
            return []
        time_ = now_iso()
        args: list[Any] = [time_, time_[:10], self.drops_rotate]
        for code, doc, dup_fp, dist, rule in rows:
            args += [code, doc.id, doc.simhash.to_bytes(8, "big"),
                     dup_fp.to_bytes(8, "big") if dup_fp is not None else b"", dist, rule or "", id_key(doc.id)]
        raw = self._finish(keys=[self.id_prefix + "ids", self.id_prefix + "docids", self.id_prefix + "drops",
                                 self.stats_key], args=args)
        return [(raw[i].decode(), int(raw[i + 1])) for i in range(0, len(raw), 2)]

    def forget(self, doc_id: str) -> str:
        ids, docids, drops = (self.id_prefix + h for h in ("ids", "docids", "drops"))
        fp = self.kept_simhash(self.id_prefix, doc_id)
        pipe = self.client.pipeline(transaction=True)
        if fp is None:
            if self.client.hget(drops, doc_id) is None:
                drops += ":old"
            raw = self.client.hget(drops, doc_id)
            if raw is None:
                return ""
            pipe.hdel(drops, doc_id).hincrby(self.stats_key, "dropped", -1)
            if json.loads(raw).get("rule") == "sentences":
                pipe.hincrby(self.stats_key, "dropped:sentences", -1)
            pipe.execute()
            return "dropped"
        for t, block in enumerate(blocks(int.from_bytes(fp, "big"))):
            key = self.bucket_key(t, block)
            self._remove(keys=[key], args=[6, key, fp[: 2 * t] + fp[2 * t + 2 :]])
        pipe.hdel(ids, fp).hdel(docids, id_key(doc_id)).hdel(self.id_prefix + "docs", doc_id)
        pipe.hincrby(self.stats_key, "kept", -1)
        pipe.execute()
        return "kept"
