"""Take over what a scrapy-redis deployment left in Redis, so that switching re-crawls nothing.

- The dupefilter set is kept as it is and consulted with ``DUPEFILTER_FINGERPRINT =
  "scrapy-redis"`` (its fingerprints are hashes: they cannot be converted to another kind).
- Start-URL lists and item lists are plain strings and JSON: nothing to do.
- A request queue holds pickles (scrapy-redis' default serializer). Unpickling runs code,
  so it is converted to this project's JSON queue only when the caller says the Redis is
  trusted (``unpickle=True``); otherwise nothing is changed and the pickles are counted.
  Entries that cannot be converted go to ``<queue>:unreadable``, with the reason logged.

Run it with the scrapy-redis workers stopped: a queue that changes during the conversion
is left as it was (``QueueChanged``).
"""

from __future__ import annotations

import logging
import pickle  # noqa: S403 - only on the caller's explicit word that the Redis is trusted
from dataclasses import dataclass
from typing import Any, cast

import redis

from news_crawler.frontier import request_json

logger = logging.getLogger(__name__)


class QueueChanged(RuntimeError):
    """The queue was written to while it was being converted."""


@dataclass
class QueueReport:
    key: str
    kind: str  # "zset", "list", "none" or another Redis type (not a queue we know); after conversion "zset"
    json: int = 0  # entries already JSON this project reads
    pickled: int = 0  # entries that are pickles (converted only with unpickle=True)
    converted: int = 0
    unreadable: int = 0  # moved to <key>:unreadable

    @property
    def done(self) -> bool:
        """True when the queue is one this project's scheduler reads, entry for entry."""
        return self.kind in ("zset", "none") and self.pickled == self.converted + self.unreadable


def _entries(client: redis.Redis, key: str, kind: str) -> list[bytes]:
    if kind == "zset":
        return cast(list[bytes], client.zrange(key, 0, -1))
    return cast(list[bytes], client.lrange(key, 0, -1))  # FifoQueue and LifoQueue push on the left


def _as_json(raw: bytes) -> dict | None:
    try:
        data = request_json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) and "url" in data else None


def _unpickle(raw: bytes) -> dict:
    data = pickle.loads(raw)  # noqa: S301 - the caller said this Redis is trusted
    if not isinstance(data, dict) or "url" not in data:
        raise ValueError(f"a pickled {type(data).__name__}, not a request dict")
    return data


def convert_queue(client: redis.Redis, key: str, unpickle: bool = False) -> QueueReport:
    """Count (and with ``unpickle``, convert to JSON) the requests queued under ``key``."""
    with client.pipeline(transaction=True) as pipe:
        pipe.watch(key)
        kind = pipe.type(key)
        kind = kind.decode() if isinstance(kind, bytes) else kind
        report = QueueReport(key, kind)
        if kind not in ("zset", "list"):
            return report
        queued: dict[str, float] = {}
        unreadable: list[bytes] = []
        for raw in _entries(pipe, key, kind):
            data = _as_json(raw)
            if data is not None:
                report.json += 1
            else:
                report.pickled += 1
                if not unpickle:
                    continue
                try:
                    data = _unpickle(raw)
                    report.converted += 1
                except Exception as e:  # noqa: BLE001 - whatever it is, it is not a request
                    logger.error(
                        "%s: an entry that is neither JSON nor a pickled request (%s: %s) moved to %s:unreadable",
                        key,
                        type(e).__name__,
                        e,
                        key,
                    )
                    unreadable.append(raw)
                    continue
            queued[request_json.dumps(data)] = -int(data.get("priority", 0))
        if report.pickled and not unpickle or (kind == "zset" and not report.pickled):
            return report
        _rewrite(pipe, key, queued, unreadable)
        report.kind, report.unreadable = "zset", len(unreadable)  # what the key is now
        return report


def _rewrite(pipe: Any, key: str, queued: dict[str, float], unreadable: list[bytes]) -> None:
    pipe.multi()
    pipe.delete(key)
    if queued:
        pipe.zadd(key, queued)
    if unreadable:
        pipe.rpush(f"{key}:unreadable", *unreadable)
    try:
        pipe.execute()
    except redis.WatchError:
        raise QueueChanged(
            f"{key} changed while it was converted: stop the scrapy-redis workers, then run this again"
        ) from None
