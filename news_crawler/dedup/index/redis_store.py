"""The index in Redis: one Lua call on the newest generation decides a whole batch atomically;
older generations (retention, ``generations.py``) are read in calls of their own."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, tzinfo
from typing import Any, NamedTuple, cast

import numpy as np
import redis
from redis.cluster import RedisCluster

from news_crawler import defaults
from news_crawler.dedup.index.base import (
    SENTENCES,
    SIMHASH,
    Decision,
    Document,
    DropRecord,
    FingerprintStore,
    Item,
    Match,
    SentenceRule,
    as_documents,
    check_document,
    id_key,
)
from news_crawler.dedup.index.drop_records import decode, read_records
from news_crawler.dedup.index.generations import Generations
from news_crawler.dedup.index.kept_ids import all_ids, ids_near, read_ids
from news_crawler.dedup.index.layout import DEFAULT_BLOCKS, Layout
from news_crawler.dedup.index.scripts import lua

_DECIDE_LUA = lua("decide.lua", "ids.lua", "drops.lua")
_FORGET_LUA = lua("forget.lua", "ids.lua", "drops.lua")
KEPT, DUPLICATE, KEPT_BEFORE, DROPPED_BEFORE, NAMED_ELSEWHERE, SUPERSEDED = range(6)  # decide.lua's statuses
_MOVES = 32  # links from a superseded original to the one that took its place followed, at most (lua/ids.lua)
_SEALED = -1
_AFRESH = b"\1"  # a prior's flag: the drop record in the newest generation is stale
_RULE_BYTES = {SIMHASH: 1, SENTENCES: 2}


class Row(NamedTuple):
    """``decide.lua``'s answer for one document (see its header)."""

    place: int  # the document's place in the call
    status: int
    duplicate_of: str
    distance: int
    stored: bytes  # a simhash (8 bytes), or for NAMED_ELSEWHERE the raw drop record
    rule: str
    shared: int  # sentences shared, for the sentence rule

    @classmethod
    def parse(cls, raw: list[Any]) -> list[Row]:
        return [
            cls(int(p), int(s), dup.decode(), int(d), stored, rule.decode(), int(n))
            for p, s, dup, d, stored, rule, n in zip(*[iter(raw)] * 7)
        ]

    def better_than(self, other: Row | None) -> bool:
        """A match of an older generation that beats ``other`` (one of a newer one): the
        simhash rule before the sentence rule, then the nearer, or the more sentences shared."""
        if other is None:
            return True
        if self.rule != other.rule:
            return self.rule == SIMHASH
        if self.rule == SIMHASH:
            return self.distance < other.distance
        return (self.shared, -self.distance) > (other.shared, -other.distance)


_SCAN_BUCKETS = 4096  # table-0 buckets read at once by ``nearest``


def _head(bucket: int, shift: np.uint64, width: int) -> np.uint64:
    """The bytes a bucket's name gives its entries (its whole bytes), in place above them."""
    return np.uint64(0) if width == 8 else (np.uint64(bucket) >> shift) << np.uint64(8 * width)


def _entries(bucket: bytes, width: int) -> np.ndarray:
    """The ``width``-byte big-endian entries of a table bucket as integers."""
    entries = np.frombuffer(bucket, dtype=np.uint8).reshape(-1, width).astype(np.uint64)
    out = np.zeros(len(entries), dtype=np.uint64)
    for i in range(width):
        out = (out << np.uint64(8)) | entries[:, i]
    return out


class RedisStore(FingerprintStore):
    """Each generation's keys (under its prefix, ``generations.py``): ``<table>:<bucket hex>``
    buckets of entries (``layout.py``), ``S<hex>`` sentence buckets of 6-byte entries, ``i<hex>``
    small hashes filing kept ids by simhash (``ids`` for long ones, ``origins`` numbering URL
    origins: ``kept_ids.py``), ``k<hex>`` small hashes filing their simhashes by id key,
    ``held`` counting them, ``d<era>:<hex>`` small hashes of drop records by id key
    (``drop_records.py``), ``drops:recent`` and ``stats`` (see ``decide.lua``).

    Retention (``retention_days`` > 0): a document is decided against every live generation
    and kept into the newest. A namespace keeps the layout it was begun with: a store with
    another refuses it in one line (``IndexFormatError``), but a ``reader``'s (a command that
    only looks: explain, stats, drops, story, status) takes the recorded one."""

    def __init__(
        self,
        client: redis.Redis,
        namespace: str = defaults.DEDUP_NAMESPACE,
        max_distance: int = defaults.DEDUP_MAX_DISTANCE,
        batch_size: int = defaults.DEDUP_BATCH_SIZE,
        sentences: SentenceRule | None = None,
        retention_days: float = defaults.DEDUP_RETENTION_DAYS,
        generation_days: float = defaults.DEDUP_GENERATION_DAYS,
        clock: Callable[[], float] = time.time,
        drops_max: int = defaults.DEDUP_DROPS_MAX,
        zone: tzinfo = UTC,
        original: str = defaults.DEDUP_ORIGINAL,
        blocks: tuple[int, ...] = DEFAULT_BLOCKS,
        reader: bool = False,
    ) -> None:
        super().__init__(max_distance, sentences, original, blocks)
        if not namespace or any(c.isspace() for c in namespace):
            raise ValueError(f"namespace must be a non-empty word without spaces, got {namespace!r}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        if client.get_connection_kwargs().get("decode_responses"):
            raise ValueError("RedisStore needs a client with decode_responses=False: buckets are binary")
        self.client = client
        self.namespace = namespace
        self.batch_size = batch_size
        self.retention_days = retention_days
        self.clock = clock
        self.zone = zone  # the days of the daily drop counts
        self.drops_rotate = max(1, drops_max // 2) if drops_max > 0 else 0  # records an era, see lua/drops.lua
        self.generations = Generations(
            client,
            namespace,
            retention_days,
            generation_days,
            clock,
            self.drops_rotate,
            self.layout,
            self._adopt if reader else None,
        )
        self._layout_lua = self.layout.lua()
        self._decide = client.register_script(_DECIDE_LUA)
        self._forget = client.register_script(_FORGET_LUA)

    def _adopt(self, layout: Layout) -> None:
        """A reader's store takes the layout its namespace records (a writer's refuses another)."""
        self.layout, self.max_distance, self._layout_lua = layout, layout.max_distance, layout.lua()

    def live_prefixes(self) -> list[str]:
        """The live generations' key prefixes, newest (the one written) first."""
        return self.generations.live()

    def expire(self) -> list[int]:
        return self.generations.expire()

    # Deciding ----------------------------------------------------------------------------

    def decide_many(self, items: Sequence[Item]) -> list[Decision]:
        docs = as_documents(items)
        for doc in docs:  # before any batch is decided: all or nothing
            check_document(doc)
        out: list[Decision] = []
        for start in range(0, len(docs), self.batch_size):
            out.extend(self._decide_batch(docs[start : start + self.batch_size]))
        return out

    def _doc_args(self, docs: Sequence[Document]) -> list[list[bytes | str | int]]:
        """What ``decide.lua`` takes of each document, but its prior (built once a batch)."""
        rule = self.sentence_rule
        permuted = self.layout.permute_all(np.array([doc.simhash for doc in docs], dtype=np.uint64))
        out: list[list[bytes | str | int]] = []
        for doc, pfps in zip(docs, permuted.astype(">u8")):
            keys = b"".join(k.to_bytes(3, "big") for k in doc.sentences) if rule else b""
            published = b"" if doc.published is None else b"".join(t.to_bytes(4, "big") for t in doc.published)
            fp = doc.simhash.to_bytes(8, "big")
            out.append([fp, pfps.tobytes(), doc.id, id_key(doc.id), keys, doc.length, published])
        return out

    def _call(
        self, prefix: str, docs: Sequence[list[bytes | str | int]], priors: Sequence[bytes], write: bool
    ) -> list[Row] | None:
        """``decide.lua`` on one generation for documents given by their ``_doc_args``; None
        when it refused to write (sealed)."""
        seconds = int(self.clock())
        rule = self.sentence_rule
        args: list[bytes | str | int | float] = [
            self.max_distance,
            seconds,
            datetime.fromtimestamp(seconds, self.zone).date().isoformat(),
            prefix,
            rule.match if rule else 0,
            rule.max_distance if rule else 0,
            rule.length_slack if rule else 0,
            self.drops_rotate,
            int(write),
            int(self.original == "earliest"),
            self._layout_lua,
        ]
        for doc, prior in zip(docs, priors):
            args += doc
            args.append(prior)
        raw = self._decide(keys=[prefix + "stats"], args=args)
        return None if raw and raw[0] == _SEALED else Row.parse(raw)

    def _read(self, prefix: str, docs: Sequence[list[bytes | str | int]]) -> list[Row]:
        """``decide.lua`` on one generation, without writing: the documents it holds something of."""
        return self._call(prefix, docs, [b""] * len(docs), False) or []

    def _named(self, fp: bytes, prefixes: Sequence[str]) -> str | None:
        """The id kept with simhash ``fp`` in the first of ``prefixes`` holding one, or the
        id of the story's original that took its place there (``decide.lua``, status 5)."""
        for prefix in prefixes:
            at = fp
            for _ in range(_MOVES + 1):
                (found,) = read_ids(self.client, prefix, [at])
                if found is not None:
                    return found
                moved = cast(bytes | None, self.client.hget(prefix + "moved", at))
                if moved is None:
                    break
                at = moved
        return None

    def _replay(self, doc: Document, row: Row, prefixes: Sequence[str]) -> Decision | None:
        """The earlier decision a row reports, or None: not decided there, or its drop record
        names a document no generation keeps any more (it is decided afresh)."""
        if row.status == KEPT_BEFORE:
            return Decision(doc.id, int.from_bytes(row.stored, "big"), replayed=True)
        if row.status == DROPPED_BEFORE:
            return Decision(doc.id, int.from_bytes(row.stored, "big"), row.duplicate_of, row.distance, True, row.rule)
        if row.status == NAMED_ELSEWHERE:
            rec = decode(row.stored)
            named = self._named(rec.kept, prefixes)
            return None if named is None else Decision(doc.id, rec.simhash, named, rec.distance, True, rec.rule)
        return None

    def _decide_batch(self, docs: Sequence[Document]) -> list[Decision]:
        out: dict[int, Decision] = {}
        afresh: set[int] = set()
        doc_args = self._doc_args(docs)
        while len(out) < len(docs):
            newest, *older = prefixes = self.generations.live(begin=True)
            todo = [i for i in range(len(docs)) if i not in out]
            best: dict[int, Row] = {}  # the best match older generations hold
            for prefix in older:  # sealed: read without a race, newest first
                for row in self._read(prefix, [doc_args[i] for i in todo]):
                    i = todo[row.place]
                    replay = self._replay(docs[i], row, prefixes)
                    if replay is not None:
                        out[i] = replay
                    elif row.status == DUPLICATE and row.better_than(best.get(i)):
                        best[i] = row
                todo = [i for i in todo if i not in out]
            priors = [(_AFRESH if i in afresh else b"\0") + self._prior(best.get(i)) for i in todo]
            rows = self._call(newest, [doc_args[i] for i in todo], priors, True)
            if rows is None:  # sealed by a process that began a newer generation: decide there
                self.generations.refresh()
                continue
            for row in rows:
                i = todo[row.place]
                doc = docs[i]
                if row.status == KEPT:
                    out[i] = Decision(doc.id, doc.simhash)
                elif row.status == SUPERSEDED:
                    out[i] = Decision(doc.id, doc.simhash, supersedes=(row.duplicate_of,))
                elif row.status == DUPLICATE:
                    out[i] = Decision(doc.id, doc.simhash, row.duplicate_of, row.distance, rule=row.rule)
                else:
                    replay = self._replay(doc, row, older)
                    if replay is None:
                        afresh.add(i)  # its record names a document kept nowhere now
                    else:
                        out[i] = replay
        return [out[i] for i in range(len(docs))]

    @staticmethod
    def _prior(row: Row | None) -> bytes:
        if row is None:
            return b""
        return bytes([_RULE_BYTES[row.rule], row.distance, row.shared]) + row.stored + row.duplicate_of.encode()

    # Reading -------------------------------------------------------------------------------

    def lookup(self, doc_id: str) -> Decision | None:
        doc = Document(doc_id, 0)
        prefixes = self.live_prefixes()
        args = self._doc_args([doc])
        for prefix in prefixes:
            for row in self._read(prefix, args):
                if row.status in (KEPT_BEFORE, DROPPED_BEFORE, NAMED_ELSEWHERE):
                    return self._replay(doc, row, prefixes)
        return None

    def forget(self, doc_id: str) -> str:
        for prefix in self.live_prefixes():
            result: bytes = self._forget(
                keys=[prefix + "stats"],
                args=[doc_id, prefix, id_key(doc_id), self.drops_rotate, self._utc_offset(), self._layout_lua],
            )
            if result:
                return result.decode()
        return ""

    def _utc_offset(self) -> int:
        """Seconds the zone is ahead of UTC now: where a day of the drop counts begins."""
        offset = datetime.now(self.zone).utcoffset()
        return int(offset.total_seconds()) if offset else 0

    def sentence_holders(self, sentences: Sequence[int], length: int) -> list[list[tuple[str, int]]]:
        slack = (self.sentence_rule or SentenceRule()).length_slack
        found: list[dict[int, str]] = [{} for _ in sentences]  # per key: kept simhash -> its id
        for prefix in self.live_prefixes():
            buckets = self._mget([f"{prefix}S{key >> 8:04x}" for key in sentences])
            near: dict[bytes, list[tuple[bytes, str]]] = {}  # short ref -> the kept simhashes it names
            for held, key, bucket in zip(found, sentences, buckets):
                for p in range(0, len(bucket), 6):
                    entry = bucket[p : p + 6]
                    if entry[0] != key & 0xFF or abs(entry[5] - length) > slack:
                        continue
                    if entry[1:5] not in near:
                        near[entry[1:5]] = ids_near(self.client, prefix, entry[1:5])
                    for fp, kept in near[entry[1:5]]:
                        held.setdefault(int.from_bytes(fp, "big"), kept)
        return [[(kept, fp) for fp, kept in held.items()] for held in found]

    def _mget(self, keys: list[str]) -> list[bytes]:
        """The strings at ``keys`` (b"" where none is)."""
        values = cast(list[bytes | None], self.client.mget(keys)) if keys else []
        return [value or b"" for value in values]

    def nearest(self, simhash: int, limit: int = 10) -> list[Match]:
        # Table 0 holds every kept fingerprint once, permuted (layout.py): the bucket names its
        # first bits, the entry the bytes after them. Read in chunks of buckets, the nearest of
        # each kept.
        layout = self.layout
        bits, width = layout.bucket_bits(0), layout.entry_bytes(0)
        head_shift = np.uint64(bits - 8 * (8 - width))  # the bucket's bits beyond the entry's head bytes
        near: list[tuple[int, int, str]] = []  # (distance, simhash, generation prefix)
        query = np.uint64(simhash)
        digits = -(-bits // 4)
        for prefix in self.live_prefixes():
            for start in range(0, 1 << bits, _SCAN_BUCKETS):
                stop = min(start + _SCAN_BUCKETS, 1 << bits)
                buckets = self._mget([f"{prefix}0:{b:0{digits}x}" for b in range(start, stop)])
                parts = [_entries(b, width) | _head(start + n, head_shift, width) for n, b in enumerate(buckets) if b]
                if not parts:
                    continue
                fps = layout.unpermute_all(np.concatenate(parts), 0)
                bits_off = np.unpackbits((fps ^ query).view(np.uint8).reshape(-1, 8), axis=1).sum(axis=1)
                for at in np.argsort(bits_off, kind="stable")[:limit]:
                    near.append((int(bits_off[at]), int(fps[at]), prefix))
                near = sorted(near)[:limit]
        out = []
        for d, fp, prefix in near:
            (name,) = read_ids(self.client, prefix, [fp.to_bytes(8, "big")])
            out.append(Match(name or "?", fp, d, layout.shared_table(simhash, fp)))
        return sorted(out, key=lambda m: (m.distance, m.id))

    def drops(self, limit: int = 100) -> list[DropRecord]:
        """Drop records, newest first: each live generation's last drops from its
        ``drops:recent`` list (10,000 at most)."""
        out: list[DropRecord] = []
        seen: set[str] = set()
        prefixes = self.live_prefixes()
        for prefix in prefixes:
            start, page = 0, max(limit, 100)
            while len(out) < limit:
                listed = cast(list[bytes], self.client.lrange(prefix + "drops:recent", start, start + page - 1))
                recent = [i for i in dict.fromkeys(i.decode() for i in listed) if i not in seen]
                for doc_id, raw in zip(recent, read_records(self.client, prefix, self.drops_rotate, recent)):
                    if raw is not None and len(out) < limit:  # else forgotten since
                        seen.add(doc_id)
                        rec = decode(raw)
                        out.append(
                            DropRecord(
                                doc_id,
                                rec.simhash,
                                self._named(rec.kept, prefixes) or "",
                                rec.distance,
                                rec.time,
                                rec.rule,
                            )
                        )
                if len(listed) < page:
                    break
                start += page
        return out

    def kept_documents(self) -> dict[str, int]:
        """Every kept document of the live generations: id -> simhash (a slow read, for
        tests and audits)."""
        return {
            i: int.from_bytes(fp, "big")
            for prefix in self.live_prefixes()
            for fp, i in all_ids(self.client, prefix).items()
        }

    def held(self, prefix: str) -> int:
        """Kept fingerprints under the generation ``prefix``."""
        return int(self.client.get(prefix + "held") or 0)

    def counts(self) -> dict[str, int]:
        out = {"kept": 0, "dropped": 0}
        for key in [self.generations.stats_key, *(p + "stats" for p in self.live_prefixes())]:
            for field, value in cast(dict[bytes, bytes], self.client.hgetall(key)).items():
                out[field.decode()] = out.get(field.decode(), 0) + int(value)
        return out

    def memory_used(self) -> int:
        """Bytes the whole server uses (``INFO memory``), every node's on a cluster."""
        if self.generations.cluster:
            per_node = cast(Any, self.client).info("memory", target_nodes=RedisCluster.ALL_NODES)
            return sum(int(info["used_memory"]) for info in per_node.values())
        return int(self.client.info("memory")["used_memory"])

    def report(self) -> dict[str, object]:
        """What ``news-dedup stats`` and ``news-crawler status`` show of the index."""
        counts = self.counts()
        self.live_prefixes()  # the namespace's layout read (a reader's store takes it)
        return {
            "namespace": self.namespace,
            "layout": self.layout.describe(),
            "fingerprints": sum(self.held(prefix) for prefix in self.live_prefixes()),
            "kept": counts["kept"],
            "dropped": counts["dropped"],
            "dropped_today": counts.get("drops:" + datetime.now(self.zone).date().isoformat(), 0),
            "dropped_by_sentences": counts.get("dropped:sentences", 0),
            "retention_days": self.retention_days,
            "redis_memory_bytes": self.memory_used(),
        }
