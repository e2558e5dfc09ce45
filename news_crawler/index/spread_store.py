"""The index spread over a Redis Cluster's masters, without a cross-slot transaction.

Each block table, the sentence table and the id hashes live in hash slots of their own,
chosen to fall in different sixths of the slot range (so an evenly split cluster of three
masters holds two of them each). A batch is decided in four steps:

1. Read (``spread_read.py``): the entries of each table near the batch's documents, and the
   records of ids decided before; one call a slot, all masters at once.
2. Decide: on what was read, exactly as one Lua call on one server would (``MemoryStore``
   preloaded with it), so a lone writer gets the standalone server's answers.
3. Claim (``spread_claim.py``): the documents to keep register their id (one already
   registered under the same simhash is another worker's to decide: its record is waited
   for; if none comes, that worker died, and what it left is taken out and the document
   decided here), then claim the four tables at once and the sentence table after them, one atomic
   check-and-insert a table, which finds what other workers kept since step 1 or inserts
   (unscanned when the table's version says nothing was written since). Near-duplicates
   share some table; there the later claim finds the earlier and loses, and its entries go.
4. Record: kept documents, drops (named by the id of what they duplicate), counts. A drop
   whose duplicate lost its own claim meanwhile is decided again.

Three near-duplicates decided at one moment can leave one dropped as a copy of one that
lost its own claim. Retention generations are not supported here.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from news_crawler.fingerprint.simhash64 import blocks
from news_crawler.index.base import Decision, Document, id_key
from news_crawler.index.drop_records import rule_and_day
from news_crawler.index.redis_store import RedisStore
from news_crawler.index.scripts import lua
from news_crawler.index.spread_claim import claim, undo
from news_crawler.index.spread_read import ROLES, BatchView, read_batch, read_decided, role_tag

_WITH_COMMON = ("near", "near_sentences", "claim_table", "claim_sentences")  # they use lua/common.lua
_ALONE = ("decided", "remove", "finish")
logger = logging.getLogger(__name__)
WAIT_SECONDS = 10.0  # for another worker deciding the same id (see _settled)
RETRIES = 10  # decisions again of a document whose duplicate lost its claim meanwhile, or left by a dead worker


class SpreadStore(RedisStore):
    def __init__(self, client: Any, namespace: str, *args: Any, **kwargs: Any) -> None:
        if kwargs.get("retention_days"):
            raise ValueError("DEDUP_RETENTION_DAYS is not supported by the spread index (DEDUP_CLUSTER_INDEX=spread)")
        super().__init__(client, namespace, *args, **kwargs)
        self.tags = {role: role_tag(namespace, role) for role in ROLES}
        self.id_prefix = "{%s}:" % self.tags["ids"]
        self.stats_key = self.id_prefix + "stats"
        here = Path(__file__).with_name("spread")
        self.scripts = {name: client.register_script(lua(f"spread/{name}.lua")) for name in _WITH_COMMON}
        self.scripts.update({name: client.register_script((here / f"{name}.lua").read_text(encoding="utf-8"))
                             for name in _ALONE})
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

    def sentence_buckets(self, key: int, prefix: str) -> list[tuple[str, int]]:
        return [(self.sentence_bucket_key(key), 8)]  # entries name the whole simhash

    def version_key(self, role: str) -> str:
        """Raised by every write to the table of ``role`` ("t0".."t3", "s"): a claim that finds
        the version it read knows the table is as it read it."""
        return "{%s}:v" % self.tags[role]

    # Deciding -----------------------------------------------------------------------------

    def _decide_batch(self, docs: Sequence[Document], attempt: int = 0) -> list[Decision]:
        read = self._read_batch(docs)
        earlier = read.earlier
        first: dict[str, Document] = {}
        for d in docs:
            if d.id not in earlier:
                first.setdefault(d.id, d)
        fresh = list(first.values())
        local = read.view.decide_many(fresh)
        names = read.names
        lost, elsewhere = claim(self, [d for d, dec in zip(fresh, local) if dec.kept], read.dead, read.versions)
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
        settled, orphans = self._settled(waiting)
        decided.update(settled)
        if orphans:  # registered under their own id and never recorded: that worker died mid-batch
            logger.warning("no decision recorded for %d articles %g s after another worker registered them "
                           "(it stopped between its claims and its record): deciding them here", len(orphans),
                           WAIT_SECONDS)
            undo(self, [first[i] for i in orphans])
            again += [first[i] for i in orphans]
        if again:
            if attempt >= RETRIES:
                raise RuntimeError(f"{len(again)} documents not decided in {RETRIES} attempts; decide again")
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

    def _settled(self, ids: list[str]) -> tuple[dict[str, Decision], list[str]]:
        """The decisions another worker records for ``ids`` (the same ids, decided at the same
        moment with the same simhash), waited for, as replays; and the ids with none after
        ``WAIT_SECONDS``."""
        out: dict[str, Decision] = {}
        deadline = time.monotonic() + WAIT_SECONDS
        while ids:
            found = self._read_decided(ids)
            out.update(found)
            ids = [i for i in ids if i not in found]
            if ids and time.monotonic() > deadline:
                return out, ids
            if ids:
                time.sleep(0.01)  # the other worker is between its claims and its record: milliseconds
        return out, []

    @staticmethod
    def _as_replay(d: Decision) -> Decision:
        return Decision(d.id, d.simhash, d.duplicate_of, d.distance, replayed=True, rule=d.rule)

    def _read_decided(self, ids: list[str]) -> dict[str, Decision]:
        return read_decided(self, ids)

    def _read_batch(self, docs: Sequence[Document]) -> BatchView:
        return read_batch(self, docs)

    def _record(self, rows: list[tuple[str, Document, int | None, int, str]]) -> list[tuple[str, int]]:
        if not rows:
            return []
        seconds = int(time.time())
        packed = []
        for code, doc, dup_fp, dist, rule in rows:
            doc_id, rule_ = doc.id.encode(), (rule or "").encode()
            packed += [code.encode(), doc.simhash.to_bytes(8, "big"),
                       b"\0" if dup_fp is None else b"\1" + dup_fp.to_bytes(8, "big"),
                       bytes([dist, len(rule_)]), rule_, id_key(doc.id), len(doc_id).to_bytes(4, "big"), doc_id]
        raw = self.scripts["finish"](keys=[self.id_prefix + "ids", self.id_prefix + "docids", self.id_prefix + "drops",
                                 self.stats_key], args=[seconds, time.strftime("%Y-%m-%d", time.gmtime(seconds)),
                                                        self.drops_rotate, b"".join(packed)])
        out, p = [], 0
        while p < len(raw):
            n = int.from_bytes(raw[p + 1 : p + 5], "big")
            out.append((raw[p + 5 : p + 5 + n].decode(), raw[p]))
            p += 5 + n
        return out

    def forget(self, doc_id: str) -> str:
        ids, docids, drops = (self.id_prefix + h for h in ("ids", "docids", "drops"))
        fp = self.kept_simhash(self.id_prefix, doc_id)
        pipe = self.client.pipeline(transaction=True)
        if fp is None:  # a record by the id's key, or by the id (earlier versions); in drops or drops:old
            where = [(h, f) for f in (id_key(doc_id), doc_id) for h in (drops, drops + ":old")]
            found = [(h, f, raw) for (h, f), raw in zip(where, (self.client.hget(h, f) for h, f in where)) if raw]
            if not found:
                return ""
            hash_, field, raw = found[0]
            pipe.hdel(hash_, field).hincrby(self.stats_key, "dropped", -1)
            rule, day = rule_and_day(raw)
            if rule == "sentences":
                pipe.hincrby(self.stats_key, "dropped:sentences", -1)
            day = "drops:" + day  # the day it was counted under
            if int(self.client.hget(self.stats_key, day) or 0) > 0:
                pipe.hincrby(self.stats_key, day, -1)
            pipe.execute()
            return "dropped"
        for t, block in enumerate(blocks(int.from_bytes(fp, "big"))):
            key = self.bucket_key(t, block)
            self.scripts["remove"](keys=[self.version_key(f"t{t}")], args=[6, key, fp[: 2 * t] + fp[2 * t + 2 :]])
        pipe.hdel(ids, fp).hdel(docids, id_key(doc_id)).hdel(self.id_prefix + "docs", doc_id)
        pipe.hincrby(self.stats_key, "kept", -1)
        pipe.execute()
        return "kept"

