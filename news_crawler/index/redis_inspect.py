"""Looking inside the Redis index, for ``news-dedup`` (explain, drops, stats) and
``news-crawler status``: reads only, never part of a decision."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from news_crawler.connection import is_cluster
from news_crawler.fingerprint.simhash64 import blocks, distance
from news_crawler.index.base import DropRecord, Match, SentenceRule, now_iso
from news_crawler.index.drop_records import drop_records, read_records
from news_crawler.index.kept_ids import all_ids, ids_near, read_ids


class Inspection:
    """Mixed into ``RedisStore``: it gives ``client``, ``live_prefixes()``, the key builders
    (``sentence_buckets`` too), ``sentence_rule``, ``stats_key``, ``origins_key``,
    ``namespace`` and ``retention_days``."""

    client: Any
    sentence_rule: SentenceRule | None
    stats_key: str
    origins_key: str
    namespace: str
    retention_days: float
    drops_rotate: int

    def sentence_holders(self, sentences: Sequence[int], length: int) -> list[list[tuple[str, int]]]:
        slack = (self.sentence_rule or SentenceRule()).length_slack
        found: list[dict[int, str]] = [{} for _ in sentences]  # per key: kept simhash -> its prefix
        for prefix in self.live_prefixes():
            where = [(held, key, name, ref) for held, key in zip(found, sentences)
                     for name, ref in self.sentence_buckets(key, prefix)]
            buckets = self.client.mget([name for _, _, name, _ in where]) if where else []
            near: dict[bytes, list[tuple[bytes, str]]] = {}  # short ref -> the kept simhashes it names
            for (held, key, _, ref), bucket in zip(where, buckets):
                bucket = bucket or b""
                for p in range(0, len(bucket), ref + 2):
                    e = bucket[p : p + ref + 2]
                    if e[0] != key & 0xFF or abs(e[-1] - length) > slack:
                        continue
                    if ref == 8:
                        held.setdefault(int.from_bytes(e[1:9], "big"), prefix)
                        continue
                    if e[1:5] not in near:
                        near[e[1:5]] = ids_near(self.client, prefix, self.origins_key, e[1:5])
                    for fp, _ in near[e[1:5]]:
                        held.setdefault(int.from_bytes(fp, "big"), prefix)
        ids = self._ids_of({fp: prefix for held in found for fp, prefix in held.items()})
        return [[(ids[fp], fp) for fp in held if ids.get(fp) is not None] for held in found]

    def _ids_of(self, fps: dict[int, str]) -> dict[int, str | None]:
        """The ids of kept simhashes, each looked up in its generation's ids hash."""
        out: dict[int, str | None] = {}
        by_prefix: dict[str, list[int]] = {}
        for fp, prefix in fps.items():
            by_prefix.setdefault(prefix, []).append(fp)
        for prefix, group in by_prefix.items():
            out.update(zip(group, read_ids(self.client, prefix, self.origins_key, [fp.to_bytes(8, "big") for fp in group])))
        return out

    def nearest(self, simhash: int, limit: int = 10) -> list[Match]:
        found: dict[int, tuple[int, str]] = {}
        for prefix in self.live_prefixes():
            keys = [self.bucket_key(t, b, prefix) for t, b in enumerate(blocks(simhash))]
            buckets = self.client.mget_nonatomic(keys) if is_cluster(self.client) else self.client.mget(keys)
            for t, (block, bucket) in enumerate(zip(blocks(simhash), buckets)):
                for p in range(0, len(bucket or b""), 6):
                    rem = bucket[p : p + 6]
                    other = int.from_bytes(rem[: 2 * t] + block.to_bytes(2, "big") + rem[2 * t :], "big")
                    found.setdefault(other, (t, prefix))
        if not found:
            return []
        ids = self._ids_of({fp: prefix for fp, (_, prefix) in found.items()})
        matches = [Match(ids[fp] or "?", fp, distance(simhash, fp), t) for fp, (t, _) in found.items()]
        return sorted(matches, key=lambda m: (m.distance, m.table, m.id))[:limit]

    def drops(self, limit: int = 100) -> list[DropRecord]:
        """Drop records, newest first: each live generation's last drops from its
        ``drops:recent`` list (10,000 at most), then any others that earlier versions wrote
        by id, in the hashes' own order (records filed by id key name no id)."""
        found: list[tuple[bytes, bytes]] = []
        if limit < 1:
            return []
        seen: set[bytes] = set()
        prefixes = self.live_prefixes()
        for prefix in prefixes:
            start, page = 0, max(limit, 100)
            while len(found) < limit:
                listed = self.client.lrange(prefix + "drops:recent", start, start + page - 1)
                recent = [i for i in dict.fromkeys(listed) if i not in seen]
                for doc_id, raw in zip(recent, read_records(self.client, prefix, self.drops_rotate, recent)):
                    if raw is not None and len(found) < limit:  # else forgotten since
                        seen.add(doc_id)
                        found.append((doc_id, raw))
                if len(listed) < page:
                    break
                start += page
        for key in (prefix + name for prefix in prefixes for name in ("drops", "drops:old")):
            if len(found) >= limit:
                break
            for doc_id, raw in self.client.hscan_iter(key, count=min(limit, 1000)):
                if len(found) >= limit:
                    break
                if doc_id not in seen and raw[:1] != b"\3":  # a record by id key names no id
                    seen.add(doc_id)
                    found.append((doc_id, raw))
        return drop_records(self.client, self.origins_key, [i for i, _ in found], [r for _, r in found], prefixes)

    def kept_documents(self) -> dict[str, int]:
        """Every kept document of the live generations: id -> simhash (a slow read, for
        tests and audits)."""
        return {i: int.from_bytes(fp, "big") for prefix in self.live_prefixes()
                for fp, i in all_ids(self.client, prefix, self.origins_key).items()}

    def held(self, prefix: str) -> int:
        """Kept fingerprints under ``prefix``: its ``held`` count, else (an index of earlier
        versions, the spread layout) the size of its ids hash."""
        held = self.client.get(prefix + "held")
        return int(held) if held is not None else int(self.client.hlen(prefix + "ids"))

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
        return {"namespace": self.namespace,
                "fingerprints": sum(self.held(prefix) for prefix in self.live_prefixes()),
                "kept": counts["kept"], "dropped": counts["dropped"],
                "dropped_today": counts.get("drops:" + now_iso()[:10], 0),
                "dropped_by_sentences": counts.get("dropped:sentences", 0),
                "retention_days": self.retention_days, "redis_memory_bytes": self.memory_used()}

