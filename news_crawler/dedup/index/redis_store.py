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
from news_crawler.dedup.index import archive as archives
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
from news_crawler.errors import UserError

_DECIDE_LUA = lua("decide.lua", "ids.lua", "drops.lua")
_FORGET_LUA = lua("forget.lua", "ids.lua", "drops.lua")
KEPT, DUPLICATE, KEPT_BEFORE, DROPPED_BEFORE, NAMED_ELSEWHERE, SUPERSEDED = range(6)  # decide.lua's statuses
_MOVES = 32  # links from a superseded original to the one that took its place followed, at most (lua/ids.lua)
_SEALED, _ARCHIVED = -1, -2  # decide.lua: a write refused on a sealed generation; a read of an archived one
_AFRESH = b"\1"  # a prior's flag: the drop record in the newest generation is stale
_RULE_BYTES = {SIMHASH: 1, SENTENCES: 2}
_RULES = ("", SIMHASH, SENTENCES)  # decide.lua's rule byte


class _Archived(Exception):
    """A generation was archived since this process last read it."""


class ArchivedError(UserError):
    """A change asked of an archived generation, which is read-only."""


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
            cls(head[0] << 8 | head[1], head[2], dup.decode(), head[3] - 1, head[6:], _RULES[head[4]], head[5])
            for head, dup in zip(raw[::2], raw[1::2])
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


_BYTE_POP = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)


def _popcount(values: np.ndarray) -> np.ndarray:
    """Bits set in each uint64."""
    counted: np.ndarray = _BYTE_POP[np.ascontiguousarray(values, dtype=np.uint64).view(np.uint8).reshape(-1, 8)]
    total: np.ndarray = counted.sum(axis=1)
    return total


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
        archive_sealed: bool = False,
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
            archive_sealed,
        )
        self._layout_lua = self.layout.lua()
        self._readers: dict[str, archives.Reader] = {}  # archived generations, as this process read them
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

    def archive(self, include_live: bool = False) -> list[int]:
        """Archive every sealed generation not archived yet (``archive.py``); with
        ``include_live``, the live one too, a new one begun first. Returns the numbers of
        those this call archived (none when there was nothing to do)."""
        if include_live:
            self.generations.begin_next()
        done = []
        for number, prefix in self.generations.sealed():
            keys = self.generations.key_names(prefix)
            if archives.archive_generation(self.client, prefix, self.layout, self.drops_rotate, keys):
                done.append(number)
        return done

    def bytes_per_kept(self, sample: int = 2048) -> dict[str, float | None]:
        """Redis bytes a kept fingerprint takes in the live generations (``MEMORY USAGE`` of a
        sample of each kind of key, scaled) and in the archived ones (their values); None
        where there is none."""
        live_bytes = archived_bytes = 0.0
        live_kept = archived_kept = 0
        rng = np.random.default_rng(1)
        for prefix in self.live_prefixes():
            held = self.held(prefix)
            if self._reader(prefix) is not None:
                archived_bytes += archives.stored_bytes(self.client, prefix)
                archived_kept += held
                continue
            live_kept += held
            names = self.generations.key_names(prefix)
            picked = rng.choice(len(names), size=min(sample, len(names)), replace=False)
            pipe = self.client.pipeline(transaction=False)
            for at in picked:
                pipe.memory_usage(names[int(at)], samples=0)
            live_bytes += sum(int(n or 0) for n in pipe.execute()) * len(names) / max(len(picked), 1)
        return {
            "live": round(live_bytes / live_kept, 1) if live_kept else None,
            "archived": round(archived_bytes / archived_kept, 1) if archived_kept else None,
        }

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
            published = bytes(8) if doc.published is None else b"".join(t.to_bytes(4, "big") for t in doc.published)
            outlets = doc.outlet.to_bytes(4, "big") + doc.credits.to_bytes(4, "big")
            head = doc.simhash.to_bytes(8, "big") + id_key(doc.id) + bytes([doc.length]) + pfps.tobytes()
            out.append([head + published + outlets, doc.id, keys])
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
        if raw and raw[0] == _ARCHIVED:
            raise _Archived
        return None if raw and raw[0] == _SEALED else Row.parse(raw)

    def _read(self, prefix: str, docs: Sequence[Document], args: Sequence[list[bytes | str | int]]) -> list[Row]:
        """What one older generation holds of the documents, without writing (``decide.lua``;
        an archived generation's archive)."""
        reader = self._readers.get(prefix)
        if reader is None:
            try:
                return self._call(prefix, args, [b""] * len(args), False) or []
            except _Archived:
                reader = self._readers[prefix] = archives.load(self.client, prefix)
        return self._read_archive(reader, docs)

    def _read_archive(self, reader: archives.Reader, docs: Sequence[Document]) -> list[Row]:
        """``decide.lua``'s read, from an archive: the same rows for the same documents."""
        rows = []
        rule = self.sentence_rule
        for place, doc in enumerate(docs):
            key = id_key(doc.id)
            kept = reader.kept_fp(doc.id, key)
            if kept is not None:
                rows.append(Row(place, KEPT_BEFORE, "", -1, kept.to_bytes(8, "big"), "", 0))
                continue
            record = reader.drop_record(key)
            if record is not None:
                rec = decode(record)
                named = reader.name(int.from_bytes(rec.kept, "big"))
                if named is None:
                    rows.append(Row(place, NAMED_ELSEWHERE, "", -1, record, "", 0))
                else:
                    stored = rec.simhash.to_bytes(8, "big")
                    rows.append(Row(place, DROPPED_BEFORE, named, rec.distance, stored, rec.rule, 0))
                continue
            near = reader.simhash_match(doc.simhash, self.max_distance)
            if near is not None:
                d, fp = near
                name = reader.name(fp) or ""
                rows.append(Row(place, DUPLICATE, name, d, fp.to_bytes(8, "big"), SIMHASH, 0))
                continue
            if rule is not None and doc.sentences:
                found = reader.sentence_match(
                    doc.simhash, doc.sentences, doc.length, rule.needed, rule.length_slack, rule.max_distance
                )
                if found is not None:
                    n, d, fp = found
                    name = reader.name(fp) or ""
                    rows.append(Row(place, DUPLICATE, name, d, fp.to_bytes(8, "big"), SENTENCES, n))
        return rows

    def _named(self, fp: bytes, prefixes: Sequence[str]) -> str | None:
        """The id kept with simhash ``fp`` in the first of ``prefixes`` holding one, or the
        id of the story's original that took its place there (``decide.lua``, status 5)."""
        for prefix in prefixes:
            reader = self._reader(prefix)
            if reader is not None:
                found = reader.name(int.from_bytes(fp, "big"))
                if found is not None:
                    return found
                continue
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

    def _reader(self, prefix: str) -> archives.Reader | None:
        """The archive of generation ``prefix``, when it is archived (loaded once)."""
        reader = self._readers.get(prefix)
        if reader is None and archives.archived(self.client, prefix):
            reader = self._readers[prefix] = archives.load(self.client, prefix)
        return reader

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
                for row in self._read(prefix, [docs[i] for i in todo], [doc_args[i] for i in todo]):
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
            for row in self._read(prefix, [doc], args):
                if row.status in (KEPT_BEFORE, DROPPED_BEFORE, NAMED_ELSEWHERE):
                    return self._replay(doc, row, prefixes)
        return None

    def forget(self, doc_id: str) -> str:
        for prefix in self.live_prefixes():
            reader = self._reader(prefix)
            if reader is not None:
                key = id_key(doc_id)
                if reader.kept_fp(doc_id, key) is not None or reader.drop_record(key) is not None:
                    raise ArchivedError(
                        f"{doc_id} is in an archived generation ({prefix}), which is read-only: it goes "
                        "when the generation expires (DEDUP_RETENTION_DAYS)"
                    )
                continue
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
            reader = self._reader(prefix)
            if reader is not None:
                for held, key in zip(found, sentences):
                    for holder in reader.holders(key, length, slack):
                        held.setdefault(holder, reader.name(holder) or "?")
                continue
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
            reader = self._reader(prefix)
            if reader is not None:
                off = _popcount(reader.fps ^ query)
                near += [(int(off[at]), int(reader.fps[at]), prefix) for at in np.argsort(off, kind="stable")[:limit]]
                near = sorted(near)[:limit]
                continue
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
            reader = self._reader(prefix)
            (name,) = (
                [reader.name(fp)] if reader is not None else read_ids(self.client, prefix, [fp.to_bytes(8, "big")])
            )
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
                reader = self._reader(prefix)
                if reader is not None:
                    records = [reader.drop_record(id_key(i)) for i in recent]
                else:
                    records = read_records(self.client, prefix, self.drops_rotate, recent)
                for doc_id, raw in zip(recent, records):
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
        out: dict[str, int] = {}
        for prefix in self.live_prefixes():
            reader = self._reader(prefix)
            if reader is not None:
                out.update((reader.id_at(place), int(fp)) for place, fp in enumerate(reader.fps))
            else:
                out.update((i, int.from_bytes(fp, "big")) for fp, i in all_ids(self.client, prefix).items())
        return out

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
            "archived_generations": sum(1 for p in self.live_prefixes() if self._reader(p) is not None),
        }
