"""The index in Redis: one Lua call decides a whole batch atomically."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import redis

from news_crawler import defaults
from news_crawler.connection import is_cluster
from news_crawler.fingerprint.simhash64 import blocks, distance, from_hex
from news_crawler.index.base import (
    SIMHASH,
    Decision,
    Document,
    DropRecord,
    FingerprintStore,
    Item,
    Match,
    SentenceRule,
    as_documents,
    now_iso,
)

_DECIDE_LUA = (Path(__file__).with_name("decide.lua")).read_text(encoding="utf-8")
_FORGET_LUA = (Path(__file__).with_name("forget.lua")).read_text(encoding="utf-8")
_KEPT, _DUPLICATE, _KEPT_BEFORE, _DROPPED_BEFORE = range(4)
# Keys under the namespace besides the buckets (which decide.lua builds: ``<ns>:<t><hex>``).
KEY_IDS = "%(namespace)s:ids"
KEY_DOCS = "%(namespace)s:docs"
KEY_DROPS = "%(namespace)s:drops"
KEY_STATS = "%(namespace)s:stats"


class RedisStore(FingerprintStore):
    """Keys, under ``namespace``: ``<table><block hex>`` buckets of 6-byte entries,
    ``s<hex>`` sentence buckets of 10-byte entries, and the ``ids``, ``docs``, ``drops`` and
    ``stats`` hashes (see ``decide.lua``)."""

    def __init__(
        self,
        client: redis.Redis,
        namespace: str = defaults.DEDUP_NAMESPACE,
        max_distance: int = defaults.DEDUP_MAX_DISTANCE,
        batch_size: int = defaults.DEDUP_BATCH_SIZE,
        sentences: SentenceRule | None = None,
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
        # On a cluster every key of the index carries the namespace as its hash tag: one slot,
        # so one Lua call still decides atomically (the buckets are built inside the script).
        ns = {"namespace": f"{{{namespace}}}" if is_cluster(client) else namespace}
        self.ids_key = KEY_IDS % ns
        self.docs_key = KEY_DOCS % ns
        self.drops_key = KEY_DROPS % ns
        self.stats_key = KEY_STATS % ns
        self.bucket_prefix = f"{ns['namespace']}:"
        self._decide = client.register_script(_DECIDE_LUA)
        self._forget = client.register_script(_FORGET_LUA)

    def bucket_key(self, table: int, block: int) -> str:
        """``<namespace>:<table><block hex>``, as ``decide.lua`` builds it."""
        return f"{self.bucket_prefix}{table}{block:04x}"

    def bucket_keys(self, fp: int) -> list[str]:
        return [self.bucket_key(t, b) for t, b in enumerate(blocks(fp))]

    def sentence_bucket_key(self, key: int) -> str:
        """``<namespace>:s<first 16 bits of the sentence key as hex>``, as ``decide.lua`` builds it."""
        return f"{self.bucket_prefix}s{key >> 8:04x}"

    def decide_many(self, items: Sequence[Item]) -> list[Decision]:
        docs = as_documents(items)
        out: list[Decision] = []
        for start in range(0, len(docs), self.batch_size):
            out.extend(self._decide_batch(docs[start : start + self.batch_size]))
        return out

    def _decide_batch(self, docs: Sequence[Document]) -> list[Decision]:
        time = now_iso()
        keys = [self.ids_key, self.docs_key, self.drops_key, self.stats_key]
        rule = self.sentence_rule
        args: list[object] = [self.max_distance, time, time[:10], self.bucket_prefix,
                              rule.match if rule else 0, rule.max_distance if rule else 0,
                              rule.length_slack if rule else 0]
        for doc in docs:
            if not 0 <= doc.length <= 255 or any(not 0 <= k < 1 << 24 for k in doc.sentences):
                raise ValueError(f"{doc.id}: sentence keys must be 24-bit and the length code a byte")
            args.append(doc.simhash.to_bytes(8, "big"))
            args.append(doc.id)
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

    def sentence_holders(self, sentences: Sequence[int], length: int) -> list[list[tuple[str, int]]]:
        slack = (self.sentence_rule or SentenceRule()).length_slack
        buckets = self.client.mget([self.sentence_bucket_key(k) for k in sentences]) if sentences else []
        found: list[list[int]] = []
        for key, bucket in zip(sentences, buckets):
            bucket = bucket or b""
            entries = (bucket[p : p + 10] for p in range(0, len(bucket), 10))
            found.append(list(dict.fromkeys(int.from_bytes(e[1:9], "big") for e in entries
                                            if e[0] == key & 0xFF and abs(e[9] - length) <= slack)))
        fps = list({fp for fps in found for fp in fps})
        ids = dict(zip(fps, self.client.hmget(self.ids_key, [fp.to_bytes(8, "big") for fp in fps]))) if fps else {}
        return [[(ids[fp].decode(), fp) for fp in fps if ids[fp] is not None] for fps in found]

    def nearest(self, simhash: int, limit: int = 10) -> list[Match]:
        buckets = self.client.mget(self.bucket_keys(simhash))
        found: dict[int, int] = {}
        for t, (block, bucket) in enumerate(zip(blocks(simhash), buckets)):
            for p in range(0, len(bucket or b""), 6):
                rem = bucket[p : p + 6]
                other = int.from_bytes(rem[: 2 * t] + block.to_bytes(2, "big") + rem[2 * t :], "big")
                found.setdefault(other, t)
        if not found:
            return []
        ids = self.client.hmget(self.ids_key, [fp.to_bytes(8, "big") for fp in found])
        matches = [
            Match((i or b"?").decode(), fp, distance(simhash, fp), t) for (fp, t), i in zip(found.items(), ids)
        ]
        return sorted(matches, key=lambda m: (m.distance, m.table, m.id))[:limit]

    def forget(self, doc_id: str) -> str:
        keys = [self.ids_key, self.docs_key, self.drops_key, self.stats_key]
        result = self._forget(keys=keys, args=[doc_id, self.bucket_prefix])
        return result.decode() if isinstance(result, bytes) else (result or "")

    def lookup(self, doc_id: str) -> Decision | None:
        kept, dropped = self.client.hget(self.docs_key, doc_id), self.client.hget(self.drops_key, doc_id)
        if kept is not None:
            return Decision(doc_id, int.from_bytes(kept, "big"), replayed=True)
        if dropped is not None:
            rec = json.loads(dropped)
            return Decision(doc_id, from_hex(rec["simhash"]), rec["duplicate_of"], rec["distance"], replayed=True,
                            rule=rec.get("rule", SIMHASH))
        return None

    def drops(self, limit: int = 100) -> list[DropRecord]:
        out = []
        for doc_id, raw in self.client.hscan_iter(self.drops_key, count=min(limit, 1000)):
            rec = json.loads(raw)
            out.append(DropRecord(doc_id.decode(), from_hex(rec["simhash"]), rec["duplicate_of"],
                                  rec["distance"], rec["time"], rec.get("rule", SIMHASH)))
            if len(out) >= limit:
                break
        return out

    def counts(self) -> dict[str, int]:
        raw = self.client.hgetall(self.stats_key)
        return {"kept": 0, "dropped": 0, **{k.decode(): int(v) for k, v in raw.items()}}

    def memory_used(self) -> int:
        """Bytes the whole server uses (``INFO memory``), every node's on a cluster."""
        if is_cluster(self.client):
            per_node = self.client.info("memory", target_nodes=self.client.ALL_NODES)
            return sum(int(info["used_memory"]) for info in per_node.values())
        return int(self.client.info("memory")["used_memory"])

    def report(self) -> dict[str, object]:
        """What ``news-dedup stats`` and ``news-crawler status`` show of the index."""
        counts = self.counts()
        return {
            "namespace": self.namespace,
            "fingerprints": self.client.hlen(self.ids_key),
            "kept": counts["kept"],
            "dropped": counts["dropped"],
            "dropped_today": counts.get("drops:" + now_iso()[:10], 0),
            "dropped_by_sentences": counts.get("dropped:sentences", 0),
            "redis_memory_bytes": self.memory_used(),
        }
