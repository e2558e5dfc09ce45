"""The index in Redis: one Lua call decides a whole batch atomically."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import redis

from news_crawler import defaults
from news_crawler.connection import is_cluster
from news_crawler.fingerprint.simhash64 import from_hex
from news_crawler.index.base import (Decision, Document, FingerprintStore, Item, SentenceRule, as_documents,
                                     check_document, id_key)
from news_crawler.index.drop_records import drop_records, read_records
from news_crawler.index.generations import Generations
from news_crawler.index.kept_ids import id_hash, read_ids
from news_crawler.index.redis_inspect import Inspection
from news_crawler.index.scripts import lua

_DECIDE_LUA = lua("decide.lua", "ids.lua", "drops.lua")
_FORGET_LUA = lua("forget.lua", "ids.lua", "drops.lua")
_KEPT, _DUPLICATE, _KEPT_BEFORE, _DROPPED_BEFORE = range(4)


class RedisStore(Inspection, FingerprintStore):
    """Keys, under a generation's prefix (``<namespace>:``, or ``<namespace>:g<n>:`` with
    retention): ``<table><block hex>`` buckets of 6-byte entries, ``S<hex>`` sentence buckets
    of 6-byte entries (``s<hex>`` ones of 10-byte entries where ``form`` is 1: written before),
    ``i<hex>`` small hashes filing kept ids by simhash (and the ``ids``
    hash for long ones, see ``kept_ids.py``), ``k<hex>`` small hashes filing their simhashes
    by id key, ``held`` counting them, ``d<era>:<hex>`` small hashes of drop records by id
    key (``lua/drops.lua``; the ``drops`` hash and ``docids`` where an earlier version wrote
    them); ``<namespace>:stats``, ``<namespace>:origins`` and, with retention,
    ``<namespace>:generations`` (see ``decide.lua``).

    Retention (``retention_days`` > 0, ``generations.py``): a document is decided against
    every live generation and kept into the current one."""

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
    ) -> None:
        super().__init__(max_distance, sentences)
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
        self.drops_rotate = max(1, drops_max // 2) if drops_max > 0 else 0  # records an era, see lua/drops.lua
        # On a cluster every key of the index carries the namespace as its hash tag: one slot,
        # so one Lua call still decides atomically (the buckets are built inside the script).
        self.base = f"{{{namespace}}}" if is_cluster(client) else namespace
        self.stats_key = f"{self.base}:stats"
        self.origins_key = f"{self.base}:origins"
        self.generations = Generations(client, self.base, retention_days, generation_days, clock, self.drops_rotate)
        self._decide = client.register_script(_DECIDE_LUA)
        self._forget = client.register_script(_FORGET_LUA)

    # Generations (generations.py) and the current one's keys ------------------------------

    def prefix(self, generation: int | None = None) -> str:
        return self.generations.prefix(generation)

    def live_prefixes(self) -> list[str]:
        return self.generations.live_prefixes()

    def expire(self) -> list[int]:
        return self.generations.expire()

    @property
    def bucket_prefix(self) -> str:
        return self.prefix()

    @property
    def ids_key(self) -> str:
        return self.prefix() + "ids"

    @property
    def docs_key(self) -> str:
        """The ``docids`` hash earlier versions filed kept ids in (8-byte id key -> simhash)."""
        return self.prefix() + "docids"

    def docid_key(self, key: bytes, prefix: str | None = None) -> str:
        """The small hash a kept document's 8-byte id key (``id_key``) is filed in, under its
        other six bytes, as ``decide.lua`` builds it."""
        return f"{prefix or self.prefix()}k{key[:2].hex()}"

    @property
    def drops_key(self) -> str:
        return self.prefix() + "drops"

    # Keys --------------------------------------------------------------------------------

    def bucket_key(self, table: int, block: int, prefix: str | None = None) -> str:
        """``<prefix><table><block hex>``, as ``decide.lua`` builds it."""
        return f"{prefix or self.bucket_prefix}{table}{block:04x}"

    def sentence_bucket_key(self, key: int, prefix: str | None = None) -> str:
        """``<prefix>S<first 16 bits of the sentence key as hex>``, as ``decide.lua`` builds it."""
        return f"{prefix or self.bucket_prefix}S{key >> 8:04x}"

    def sentence_buckets(self, key: int, prefix: str) -> list[tuple[str, int]]:
        """Where a sentence key's entries may be under ``prefix``, and the size of the
        reference they name a kept document by: its 4-byte ``short_ref`` (``kept_ids.py``), and
        its whole simhash in the ``s<hex>`` buckets of earlier versions."""
        return [(self.sentence_bucket_key(key, prefix), 4), (f"{prefix}s{key >> 8:04x}", 8)]

    # Deciding ----------------------------------------------------------------------------

    def decide_many(self, items: Sequence[Item]) -> list[Decision]:
        docs = as_documents(items)
        for doc in docs:  # before any batch is decided: all or nothing
            check_document(doc)
        out: list[Decision] = []
        for start in range(0, len(docs), self.batch_size):
            out.extend(self._decide_batch(docs[start : start + self.batch_size]))
        return out

    def _decide_batch(self, docs: Sequence[Document]) -> list[Decision]:
        self.generations.register()
        seconds = int(time.time())
        newest, *older = self.live_prefixes()
        keys = [newest + "ids", newest + "docids", newest + "drops", self.stats_key, self.origins_key]
        rule = self.sentence_rule
        args: list[object] = [self.max_distance, seconds, time.strftime("%Y-%m-%d", time.gmtime(seconds)), newest,
                              rule.match if rule else 0, rule.max_distance if rule else 0,
                              rule.length_slack if rule else 0, self.drops_rotate, len(older), *older]
        for doc in docs:
            args.append(doc.simhash.to_bytes(8, "big"))
            args.append(doc.id)
            args.append(id_key(doc.id))
            args.append(b"".join(k.to_bytes(3, "big") for k in doc.sentences) if rule else b"")
            args.append(doc.length)
        raw = self._decide(keys=keys, args=args)
        out = []
        for j, doc in enumerate(docs):
            status, dup, dist, stored, dropped_by = raw[5 * j : 5 * j + 5]
            if status == _KEPT:
                out.append(Decision(doc.id, doc.simhash))
            elif status == _DUPLICATE:
                out.append(Decision(doc.id, doc.simhash, dup.decode(), int(dist), rule=dropped_by.decode()))
            elif status == _KEPT_BEFORE:  # a replay answers with what was stored, not the new value
                out.append(Decision(doc.id, int.from_bytes(stored, "big"), replayed=True))
            else:
                out.append(Decision(doc.id, from_hex(stored.decode()), dup.decode(), int(dist), replayed=True,
                                    rule=dropped_by.decode()))
        return out

    def kept_simhash(self, prefix: str, doc_id: str) -> bytes | None:
        """The simhash ``doc_id`` was kept with under ``prefix``: found among the kept ids of
        the small hashes its id key names (``lua/ids.lua``), else where earlier versions filed
        its key (six bytes, or the ``docids`` hash) confirmed by the kept ids, else its entry
        in the ``docs`` hash (id -> simhash) of still earlier versions."""
        key = id_key(doc_id)
        refs = self.client.hget(self.docid_key(key, prefix), key[2:5]) or b""
        for ref in (refs[p : p + 2] for p in range(0, len(refs) - 1, 2)):
            fps = [ref + low for low in self.client.hkeys(id_hash(prefix, ref)) if len(low) == 6]
            for fp, kept in zip(fps, read_ids(self.client, prefix, self.origins_key, fps)):
                if kept == doc_id:
                    return fp
        fp = self.client.hget(self.docid_key(key, prefix), key[2:]) or self.client.hget(prefix + "docids", key)
        if fp is not None and read_ids(self.client, prefix, self.origins_key, [fp]) == [doc_id]:
            return fp
        return self.client.hget(prefix + "docs", doc_id)

    def drop_record(self, prefix: str, doc_id: str) -> bytes | None:
        """``doc_id``'s drop record under ``prefix`` (``drop_records.py``)."""
        return read_records(self.client, prefix, self.drops_rotate, [doc_id])[0]

    def _home(self, doc_id: str) -> tuple[str, bytes | None, bytes | None]:
        """The live generation that decided ``doc_id`` (its prefix, kept simhash, drop record)."""
        for prefix in self.live_prefixes():
            kept, dropped = self.kept_simhash(prefix, doc_id), self.drop_record(prefix, doc_id)
            if kept is not None or dropped is not None:
                return prefix, kept, dropped
        return self.prefix(), None, None

    def forget(self, doc_id: str) -> str:
        prefix = self._home(doc_id)[0]
        keys = [prefix + "ids", prefix + "docids", prefix + "drops", self.stats_key, self.origins_key]
        result = self._forget(keys=keys, args=[doc_id, prefix, id_key(doc_id), self.drops_rotate])
        return result.decode() if isinstance(result, bytes) else (result or "")

    def lookup(self, doc_id: str) -> Decision | None:
        _, kept, dropped = self._home(doc_id)
        if kept is not None:
            return Decision(doc_id, int.from_bytes(kept, "big"), replayed=True)
        if dropped is not None:
            (rec,) = drop_records(self.client, self.origins_key, [doc_id], [dropped], self.live_prefixes())
            if not rec.duplicate_of:  # the document it duplicated went: it would be decided again
                return None
            return Decision(doc_id, rec.simhash, rec.duplicate_of, rec.distance, replayed=True, rule=rec.rule)
        return None
