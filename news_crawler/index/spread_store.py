"""The index spread over a Redis Cluster's masters, without a cross-slot transaction.

Each block table (table 3 in two halves), the sentence table and the id hashes live in hash
slots placed by sixths of the slot range (``spread_read.py``, ``PLACEMENTS``: a new index in
the compact layout, the sentence table in block table 0's slot; or the balanced one):

1. Begin (``spread_read.py``, on the ids' master, while the batch before is decided): the
   decisions recorded before for its ids; the others' simhashes registered under their ids
   in the begun hash. A simhash kept under another id makes this one its copy at distance
   0; the same id begun or kept is another worker's to decide at this moment: its record is
   waited for (if none comes, that worker died, and what it left is taken out and the
   document decided here).
2. Claim (``spread_claim.py``): the four block tables and the sentence table read and
   claimed at once, one atomic check-and-insert a table, all masters side by side. Then the
   batch is decided on what they report, exactly as one Lua call on one server would
   (``BatchView``, a ``MemoryStore``), so a lone writer gets the standalone server's answers. Near-duplicates
   share some table; there the later call finds the earlier one's entry, so never are two
   kept.
3. Record (``spread/finish.lua``), in the next batch's round, on the ids' master after its
   claims (the taking back of the entries of what was dropped goes ahead of them on each
   master): kept documents (their registration moved to the ids hash), drops (named by the
   id of what they duplicate), counts. A drop whose duplicate is gone meanwhile (another
   worker dropped it, or it was forgotten) is decided again once every batch is recorded;
   one whose duplicate another worker is still deciding waits for that worker's record
   first, so a drop always names a kept document.

Retention (``DEDUP_RETENTION_DAYS``): by time generations (``spread_generations.py``); a
run of batches reads every live generation and writes the newest.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from news_crawler.index.base import Decision, Document, Item, as_documents, check_document
from news_crawler.index.kept_ids import id_hash
from news_crawler.index.redis_store import RedisStore
from news_crawler.index.spread_scripts import entries
from news_crawler.index.spread_claim import claim, take_back_calls, undo
from news_crawler.index.spread_pending import SentCalls
from news_crawler.index.spread_read import (COMPACT, PLACEMENTS, SENTENCES_BY_IDS, Begun, begin, begin_call,
                                            begun_from, layout_of, read_decided, role_tag, run_scripts, table_role)
from news_crawler.index.spread_generations import SpreadGenerations
from news_crawler.index.spread_record import Row, decision_rows, finish_call, finished, forget
from news_crawler.index.spread_wait import await_decided, settled

logger = logging.getLogger(__name__)
_FORM = ("local f = redis.call('GET', KEYS[1]) if not f then f = redis.call('EXISTS', KEYS[2], KEYS[3], KEYS[4], "
         "KEYS[5], KEYS[6]) > 0 and '1' or '2' redis.call('SET', KEYS[1], f) end return f")
WAIT_SECONDS = 10.0  # for another worker deciding the same id (see _settled)
RETRIES = 10  # decisions again of a document whose duplicate lost its claim meanwhile, or left by a dead worker
_Early = tuple[list[Document], SentCalls, int] | None  # documents begun a round ahead, the calls sent, its number


class _Claimed(NamedTuple):
    """A batch claimed and decided on what the claims reported; its record still to make."""
    first: dict[str, Document]  # its distinct ids decided here
    begun: Begun
    rows: list[Row]
    take_back: list[tuple[Any, list[str], list[Any]]]  # the calls taking back the entries of what it dropped


class SpreadStore(RedisStore):
    def __init__(self, client: Any, namespace: str, *args: Any, new_layout: int = COMPACT, **kwargs: Any) -> None:
        super().__init__(client, namespace, *args, **kwargs)
        self.layout = layout_of(client, namespace, new_layout, self.sentence_rule is not None)  # or as recorded
        self.compact = self.layout >= SENTENCES_BY_IDS  # the one server's sentence entries and id records
        self.tags = {role: role_tag(namespace, role, self.layout) for role in PLACEMENTS[self.layout]}
        self.id_prefix = "{%s}:" % self.tags["ids"]  # and the stats, begun and form keys, of no generation
        self.stats_key = self.id_prefix + "stats"
        self.origins_key = self.id_prefix + "origins"  # lua/ids.lua: URLs filed by their origin's number
        self.generations = SpreadGenerations(self.tags, self.generations, self.layout)
        self.scripts = entries(client)  # spread_scripts.py: one script on the server
        self.legacy_docs = bool(client.exists(self.id_prefix + "docs"))
        # An index begun by this version files drop records by the id's key only (its form
        # key is 2); one begun before (1) may hold records filed by the id itself, read too.
        form = client.eval(_FORM, 6, *(self.id_prefix + k for k in ("form", "ids", "docids", "docs", "drops", "drops:old")))
        self.drops_by_id = int(form) == 1
        self.live = self.live_prefixes()  # the generations a run reads, newest (written) first

    # Where keys are (generations: spread_generations.py) ----------------------------------

    def bucket_key(self, table: int, block: int, prefix: str | None = None) -> str:
        role = table_role(self.layout, table, block)
        return f"{self.generations.role_prefix(role, prefix or self.live[0])}{table}{block:04x}"

    def sentence_bucket_key(self, key: int, prefix: str | None = None) -> str:
        """The bucket of sentence ``key`` (``spread_generations.py``: its form by layout)."""
        return self.generations.sentence_bucket_key(key, prefix or self.live[0])

    def sentence_buckets(self, key: int, prefix: str) -> list[tuple[str, int]]:
        """Compact entries name a kept document by its short ref, else by its whole simhash."""
        return [(self.sentence_bucket_key(key, prefix), 4 if self.compact else 8)]

    def docid_key(self, key: bytes, prefix: str | None = None) -> str:
        """Compact: the id hash named by the key's first two bytes (``spread/finish.lua``)."""
        return id_hash(prefix or self.live[0], key) if self.compact else super().docid_key(key, prefix)

    def slot_key(self, role: str) -> str:
        """A key in the slot of ``role`` ("t0".."t3", "t3b", "s"), naming it to a script that
        builds its bucket keys itself."""
        return "{%s}:v" % self.tags[role]

    # Deciding -----------------------------------------------------------------------------

    def decide_many(self, items: Sequence[Item]) -> list[Decision]:
        docs = as_documents(items)
        for doc in docs:  # before any batch is decided: all or nothing
            check_document(doc)
        self.generations.register()
        self.live = self.live_prefixes()
        return self._decide_all(docs)

    def _decide_all(self, docs: Sequence[Document], attempt: int = 0) -> list[Decision]:
        """Batch by batch, in one round each: the record of the batch before (and the taking
        back of what it dropped), this batch's claims, and the next batch begun. The
        documents a record cannot settle are decided again once every batch is recorded."""
        batches = [docs[start : start + self.batch_size] for start in range(0, len(docs), self.batch_size)]
        decided: dict[str, Decision] = {}
        again: list[Document] = []
        answers: list[tuple[Sequence[Document], dict[str, Decision]]] = []
        pending: _Claimed | None = None
        begun: _Early = None
        try:
            for n, batch in enumerate(batches):
                upcoming = batches[n + 1] if n + 1 < len(batches) else ()
                claimed, begun, recorded = self._round(batch, pending, begun, upcoming, attempt)
                if pending:
                    again += self._settle(pending, recorded, decided)
                pending = claimed
                answers.append((batch, claimed.begun.earlier))
        finally:
            if begun:  # a failure left the next batch's beginning unread
                begun[1].discard()
        if pending:
            again += self._settle(pending, self._record(pending.rows, pending.take_back), decided)
        if again:
            if attempt >= RETRIES:
                raise RuntimeError(f"{len(again)} documents not decided in {RETRIES} attempts; decide again")
            decided.update((d.id, dec) for d, dec in zip(again, self._decide_all(again, attempt + 1)))
        out, answered = [], set()
        for batch, earlier in answers:
            for doc in batch:
                if doc.id in earlier:
                    out.append(earlier[doc.id])
                elif doc.id not in answered:
                    out.append(decided[doc.id])
                    answered.add(doc.id)  # a later occurrence of the id is a replay of this one
                else:
                    out.append(replace(decided[doc.id], replayed=True))
        return out

    def _round(self, docs: Sequence[Document], pending: _Claimed | None, begun: _Early, upcoming: Sequence[Document],
               attempt: int) -> tuple[_Claimed, _Early, list[tuple[str, int]]]:
        """Claim ``docs`` and decide them on what the claims report, in the round that records
        ``pending`` (the batch before: its take-backs ahead of the claims, its record on the
        ids' master after them, while this batch is decided); ``upcoming`` is begun before
        that record, read in the next round (``spread_pending.py``), as ``begun`` was for
        ``docs``. The ids of ``pending`` are neither decided here (a later occurrence is a
        replay) nor begun ahead (they are begun in their turn, once its record is made)."""
        held = pending.first if pending else {}
        first: dict[str, Document] = {}
        for d in docs:
            if d.id not in held:
                first.setdefault(d.id, d)
        begun_now = self._begun(first, begun)
        ahead: dict[str, Document] = {}  # in order of first occurrence, as ``first``: registrations go in that order
        for d in upcoming:
            if d.id not in first and d.id not in held:
                ahead.setdefault(d.id, d)
        earlier = begun_now.earlier
        fresh = [d for d in first.values() if d.id not in earlier and d.id not in begun_now.elsewhere
                 and d.id not in begun_now.copies]
        before = list(pending.take_back) if pending else []
        upcoming_ = list(ahead.values())  # begun after the claims, while this batch is decided
        after = [begin_call(self, upcoming_)] if upcoming_ else []
        after += [finish_call(self, pending.rows)] if pending and pending.rows else []
        if fresh:
            claimed = claim(self, fresh, check_kept=attempt > 0, before=before, after=after)
            sent = claimed.sent
        else:
            claimed, sent = None, SentCalls(self.client, [*before, *after])
        next_begun = (upcoming_, sent, len(sent.calls) - len(after)) if upcoming_ else None
        local = dict(zip((d.id for d in fresh), claimed.view.decide_many(fresh))) if claimed else {}
        rows = decision_rows(first, begun_now, local, claimed.names if claimed else {})
        losers = [d for d in fresh if not local[d.id].kept]
        take_back = take_back_calls(self, losers, claimed.placed) if losers else []
        recorded = finished(sent.replies()[-1]) if pending and pending.rows else []
        return _Claimed(first, begun_now, rows, take_back), next_begun, recorded

    def _settle(self, batch: _Claimed, recorded: list[tuple[str, int]], decided: dict[str, Decision]) -> list[Document]:
        """Into ``decided``: the decisions of ``batch``'s rows, recorded; those the record could
        not settle (another worker deciding the same id, or what one duplicates) waited for.
        Returned: the documents to decide again (their duplicate gone, or left by one that died)."""
        waiting, again = [], []
        undecided: dict[int, list[Document]] = {}
        for (code, doc, dup, dist, rule), (name, replay) in zip(batch.rows, recorded):
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
            undo(self, [batch.first[i] for i in orphans])
            again += [batch.first[i] for i in orphans]
        return again

    def _begun(self, first: dict[str, Document], begun: _Early) -> Begun:
        """``begun`` (some of ``first`` begun a round ahead) with the rest of ``first`` begun now."""
        got = begun_from(begun[0], begun[1].replies()[begun[2]]) if begun else Begun({}, set(), set())
        done = {d.id for d in begun[0]} if begun else set()
        rest = [d for d in first.values() if d.id not in done]
        if not rest:
            return got
        more = self._begin(rest)
        return Begun({**got.earlier, **more.earlier}, got.elsewhere | more.elsewhere, got.copies | more.copies)

    def _await_decided(self, fps: list[int]) -> None:
        await_decided(self, fps, WAIT_SECONDS)

    def _settled(self, ids: list[str]) -> tuple[dict[str, Decision], list[str]]:
        return settled(self, ids, WAIT_SECONDS)

    def _read_decided(self, ids: list[str]) -> dict[str, Decision]:
        return read_decided(self, ids)

    def _begin(self, docs: list[Document]) -> Begun:
        return begin(self, docs)

    def _record(self, rows: list[Row], take_back: Sequence[Any] = ()) -> list[tuple[str, int]]:
        """Record ``rows`` (``spread/finish.lua``), and make the ``take_back`` calls beside it."""
        return finished(run_scripts(self.client, [finish_call(self, rows), *take_back])[0]) if rows else []

    def forget(self, doc_id: str) -> str:
        return forget(self, doc_id)
