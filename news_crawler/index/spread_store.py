"""The index spread over a Redis Cluster's masters, without a cross-slot transaction.

Each block table, the sentence table and the id hashes live in hash slots of their own,
chosen to fall in different sixths of the slot range (so an evenly split cluster of three
masters holds two of them each). A batch is decided in three round trips:

1. Begin (``spread_read.py``, on the ids' master, in the round of the batch before's
   claims): the decisions recorded before for its ids; the others' simhashes registered
   under their ids in the begun hash. A simhash kept under another id makes this one its
   copy at distance 0; the same id begun or kept is another worker's to decide at this
   moment: its record is waited for (if none comes, that worker died, and what it left is
   taken out and the document decided here).
2. Claim (``spread_claim.py``): the four block tables and the sentence table read and
   claimed at once, one atomic check-and-insert a table, all masters side by side. Then the
   batch is decided on what they report, exactly as one Lua call on one server would
   (``MemoryStore``), so a lone writer gets the standalone server's answers. Near-duplicates
   share some table; there the later call finds the earlier one's entry, so never are two
   kept.
3. Record (``spread/finish.lua``) beside taking back the entries of what was dropped: kept
   documents (their registration moved to the ids hash), drops (named by the id of what
   they duplicate), counts. A drop whose duplicate is gone meanwhile (another worker
   dropped it, or it was forgotten) is decided again; one whose duplicate another worker
   is still deciding waits for that worker's record first, so a drop always names a kept
   document.

Retention generations are not supported here.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from news_crawler.index.base import Decision, Document, Item, as_documents, check_document
from news_crawler.index.redis_store import RedisStore
from news_crawler.index.scripts import lua
from news_crawler.index.spread_claim import claim, take_back_calls, undo
from news_crawler.index.spread_read import (ROLES, Begun, begin, begin_call, begun_from, read_decided, role_tag,
                                            run_scripts)
from news_crawler.index.spread_record import Row, decision_rows, finish_call, finished, forget

_WITH_COMMON = ("claim_table", "claim_sentences")  # they use lua/common.lua
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

    def slot_key(self, role: str) -> str:
        """A key in the slot of ``role`` ("t0".."t3", "s"), naming it to a script that builds
        its bucket keys itself."""
        return "{%s}:v" % self.tags[role]

    # Deciding -----------------------------------------------------------------------------

    def decide_many(self, items: Sequence[Item]) -> list[Decision]:
        """Batch by batch, each next batch begun (``spread_read.begin``) in the round of this
        one's claims, on the ids' master while the tables' masters claim."""
        docs = as_documents(items)
        for doc in docs:  # before any batch is decided: all or nothing
            check_document(doc)
        batches = [docs[start : start + self.batch_size] for start in range(0, len(docs), self.batch_size)]
        out: list[Decision] = []
        begun = None
        for n, batch in enumerate(batches):
            decided, begun = self._decide_round(batch, begun=begun, upcoming=batches[n + 1] if n + 1 < len(batches) else ())
            out.extend(decided)
        return out

    def _decide_batch(self, docs: Sequence[Document], attempt: int = 0) -> list[Decision]:
        return self._decide_round(docs, attempt)[0]

    def _decide_round(self, docs: Sequence[Document], attempt: int = 0, begun: tuple[list[Document], Begun] | None = None,
                upcoming: Sequence[Document] = ()) -> tuple[list[Decision], tuple[list[Document], Begun] | None]:
        """The decisions of ``docs`` and, when ``upcoming`` is given, that batch begun: those
        of its documents whose id is not in this batch (the others are begun in their turn).
        ``begun``: this batch's documents begun so, in the round of the batch before."""
        first: dict[str, Document] = {}
        for d in docs:
            first.setdefault(d.id, d)
        begun = self._begun(first, begun)
        ahead: dict[str, Document] = {}  # in order of first occurrence, as ``first``: registrations go in that order
        for d in upcoming:
            if d.id not in first:
                ahead.setdefault(d.id, d)
        earlier = begun.earlier
        fresh = [d for d in first.values() if d.id not in earlier and d.id not in begun.elsewhere
                 and d.id not in begun.copies]
        beside = [begin_call(self, list(ahead.values()))] if ahead else []
        claimed = claim(self, fresh, check_kept=attempt > 0, beside=beside) if fresh else None
        if ahead:
            replies = claimed.beside if claimed else run_scripts(self.client, beside)
            next_begun = (list(ahead.values()), begun_from(list(ahead.values()), replies[0]))
        else:
            next_begun = None
        local = dict(zip((d.id for d in fresh), claimed.view.decide_many(fresh))) if claimed else {}
        rows = decision_rows(first, begun, local, claimed.names if claimed else {})
        losers = [d for d in fresh if not local[d.id].kept]
        recorded = self._record(rows, take_back_calls(self, losers, claimed.placed) if losers else [])
        decided = self._settle(rows, recorded, first, attempt)
        out, answered = [], set()
        for doc in docs:
            if doc.id in earlier:
                out.append(earlier[doc.id])
            elif doc.id not in answered:
                out.append(decided[doc.id])
                answered.add(doc.id)  # a later occurrence of the id is a replay of this one
            else:
                out.append(self._as_replay(decided[doc.id]))
        return out, next_begun

    def _settle(self, rows: list[Row], recorded: list[tuple[str, int]], first: dict[str, Document],
                attempt: int) -> dict[str, Decision]:
        """The decisions of the rows recorded; those the record could not settle (another
        worker deciding the same id or what one duplicates, or a duplicate gone) waited for
        or decided again."""
        decided: dict[str, Decision] = {}
        waiting, again = [], []
        undecided: dict[int, list[Document]] = {}
        for (code, doc, dup, dist, rule), (name, replay) in zip(rows, recorded):
            if replay == 2:  # what it duplicates is gone meanwhile: decide it again
                again.append(doc)
            elif replay == 3:  # what it duplicates is being decided by another worker: wait for it
                undecided.setdefault(dup, []).append(doc)
            elif replay:
                waiting.append(doc.id)
            elif code == "K":
                decided[doc.id] = Decision(doc.id, doc.simhash)
            else:
                decided[doc.id] = Decision(doc.id, doc.simhash, name, dist, rule=rule)
        if undecided:
            self._await_decided(list(undecided))
            again += [d for docs_ in undecided.values() for d in docs_]
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
            decided.update((d.id, dec) for d, dec in zip(again, self._decide_round(again, attempt + 1)[0]))
        return decided

    def _begun(self, first: dict[str, Document], begun: tuple[list[Document], Begun] | None) -> Begun:
        """``begun`` (some of ``first`` begun a round ahead) with the rest of ``first`` begun now."""
        early, got = begun if begun else ([], Begun({}, set(), set()))
        done = {d.id for d in early}
        rest = [d for d in first.values() if d.id not in done]
        if not rest:
            return got
        more = self._begin(rest)
        return Begun({**got.earlier, **more.earlier}, got.elsewhere | more.elsewhere, got.copies | more.copies)

    def _await_decided(self, fps: list[int]) -> None:
        """Wait until other workers have recorded the documents begun under ``fps``; one
        still begun after ``WAIT_SECONDS`` was left by a worker that died: taken out."""
        deadline, begun = time.monotonic() + WAIT_SECONDS, self.id_prefix + "begun"
        while True:
            ids = self.client.hmget(begun, [fp.to_bytes(8, "big") for fp in fps])
            left = [(fp, i.decode()) for fp, i in zip(fps, ids) if i is not None]
            if not left:
                return
            if time.monotonic() > deadline:
                logger.warning("%d articles begun by another worker %g s ago and never recorded (it stopped "
                               "mid-batch): taken out", len(left), WAIT_SECONDS)
                undo(self, [Document(i, fp) for fp, i in left])
                return
            time.sleep(0.01)  # the other worker is between its claims and its record: milliseconds

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

    def _begin(self, docs: list[Document]) -> Begun:
        return begin(self, docs)

    def _record(self, rows: list[Row], take_back: Sequence[tuple[Any, list[str], list[Any]]] = ()
                ) -> list[tuple[str, int]]:
        """Record ``rows`` (``spread/finish.lua``), and make the ``take_back`` calls beside it."""
        return finished(run_scripts(self.client, [finish_call(self, rows), *take_back])[0]) if rows else []

    def forget(self, doc_id: str) -> str:
        return forget(self, doc_id)
