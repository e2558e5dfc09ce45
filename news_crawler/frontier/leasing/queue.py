"""A scrapy-redis priority queue whose pops are leases.

``pop`` moves a request atomically from ``<key>`` to ``<key>:inflight`` with a lease
expiry, and tags the request with its lease (``request.meta["lease"]``); ``ack`` removes
it once the request's outcome is recorded. A live worker renews its leases every third of
``SCHEDULER_LEASE_SECONDS``. ``reclaim`` puts back the requests of workers that died: at
once for a dead process on this host, after the lease expires for any other.
``postpone`` keeps a request in ``<key>:later`` until the next run opens the queue. A
request can so be fetched twice after a crash, never lost.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scrapy import Request
from scrapy_redis.queue import Base

from news_crawler.frontier import request_json
from news_crawler.frontier.leasing.owner import is_dead_here, this_owner
from news_crawler.protocols import LeasedQueue

logger = logging.getLogger(__name__)
LEASE_META = "lease"
_LUA = Path(__file__).parent


class LeasedPriorityQueue(Base):
    lease_seconds = 120.0  # the scheduler sets SCHEDULER_LEASE_SECONDS

    def __init__(self, server: Any, spider: Any, key: str, serializer: Any = None) -> None:
        super().__init__(server, spider, key, serializer or request_json)  # type: ignore[no-untyped-call]  # scrapy-redis; never pickle unless asked
        self.inflight_key = f"{self.key}:inflight"
        self.later_key = f"{self.key}:later"
        self.unreadable_key = f"{self.key}:unreadable"
        self.unreadable = 0  # entries moved aside by this worker
        self.owner = this_owner()
        self.held: set[bytes] = set()  # in-flight members ("<owner>\n<request>") this worker holds
        self._pop = server.register_script((_LUA / "pop.lua").read_text(encoding="utf-8"))
        self._renew = server.register_script((_LUA / "renew.lua").read_text(encoding="utf-8"))
        self._requeue = server.register_script((_LUA / "requeue.lua").read_text(encoding="utf-8"))
        self._enqueue = server.register_script((_LUA / "enqueue.lua").read_text(encoding="utf-8"))
        self._enqueue_bloom = server.register_script((_LUA / "enqueue_bloom.lua").read_text(encoding="utf-8"))

    def __len__(self) -> int:
        return int(self.server.zcard(self.key))

    def _encode_request(self, request: Request) -> str | bytes:
        data = request.to_dict(spider=self.spider)
        data["meta"] = {k: v for k, v in data.get("meta", {}).items() if k != LEASE_META}
        encoded: str | bytes = self.serializer.dumps(data)  # bytes: a pickle (SCHEDULER_ALLOW_PICKLE)
        return encoded

    def push(self, request: Request) -> None:
        self.server.execute_command("ZADD", self.key, -request.priority, self._encode_request(request))

    def push_unseen(self, request: Request, seen_key: str, fingerprint: str) -> bool:
        """Mark ``fingerprint`` seen and queue ``request`` in one atomic step; False (and
        nothing queued) when it was seen before, unless the request is ``dont_filter``."""
        args = [fingerprint, -request.priority, self._encode_request(request), "1" if request.dont_filter else "0"]
        return bool(self._enqueue(keys=[seen_key, self.key], args=args))

    def push_unseen_bloom(self, request: Request, filter_keys: list[str], check_args: list[Any]) -> bool:
        """``push_unseen`` against a Bloom dupefilter's bitmaps (``news_crawler.frontier.bloom``)."""
        args = [-request.priority, self._encode_request(request), "1" if request.dont_filter else "0", *check_args]
        return bool(self._enqueue_bloom(keys=[self.key, *filter_keys], args=args))

    def pop(self, timeout: int = 0) -> Request | None:
        while member := self._pop(keys=[self.key, self.inflight_key], args=[self.owner, self.lease_seconds]):
            try:  # bytes throughout: a pickle (SCHEDULER_ALLOW_PICKLE) is not text
                request: Request = self._decode_request(member.split(b"\n", 1)[1])  # type: ignore[no-untyped-call]
            except Exception as e:  # noqa: BLE001 - whatever it is, it is not a request we can run
                self._quarantine(member, e)
                continue
            self.held.add(member)
            request.meta[LEASE_META] = member
            return request
        return None

    def _quarantine(self, raw: bytes, error: Exception) -> None:
        """Keep an unreadable entry (a pickled scrapy-redis request, say) in ``<key>:unreadable``
        for a person to look at; it is never run."""
        pipe = self.server.pipeline(transaction=True)
        pipe.rpush(self.unreadable_key, raw.split(b"\n", 1)[-1])
        pipe.zrem(self.inflight_key, raw)
        pipe.execute()
        self.unreadable += 1
        logger.error(
            "a queued request of %s is not JSON this queue can read (%s: %s); moved to %s. A queue "
            "filled by scrapy-redis holds pickles: see news-crawler's README, 'Coming from scrapy-redis'",
            self.key,
            type(error).__name__,
            str(error)[:100],
            self.unreadable_key,
        )

    def ack(self, request: Request) -> None:
        """The request's outcome is recorded: its lease ends."""
        member = request.meta.get(LEASE_META)
        if member:
            self.server.zrem(self.inflight_key, member)
            self.held.discard(member)

    def postpone(self, request: Request) -> None:
        """Queue ``request`` for the next run (``resume_postponed``), not this one."""
        self.server.execute_command(
            "ZADD", self.later_key, -request.priority, self._encode_request(request.replace(dont_filter=True))
        )

    def resume_postponed(self) -> int:
        """Move the requests postponed by earlier runs into the queue; returns how many."""
        pipe = self.server.pipeline(transaction=True)
        pipe.zcard(self.later_key)
        pipe.zunionstore(self.key, [self.key, self.later_key], aggregate="MIN")
        pipe.delete(self.later_key)
        return int(pipe.execute()[0])

    def release(self, members: Sequence[bytes] | None = None) -> int:
        """Put these leases (every one this worker holds, for None) back in the queue now."""
        chosen = [m for m in (self.held if members is None else members) if m in self.held]
        moved = self._move(chosen, force=True)
        self.held.difference_update(chosen)
        return moved

    def renew(self) -> int:
        """Extend the leases this worker holds; returns how many were (a lease another worker
        requeued meanwhile is not made again)."""
        if not self.held:
            return 0
        return int(self._renew(keys=[self.inflight_key], args=[self.lease_seconds, *self.held]))

    def in_flight(self) -> int:
        return int(self.server.zcard(self.inflight_key))

    def held_elsewhere(self) -> int:
        """Leases other workers hold now."""
        return self.in_flight() - len(self.held)

    def reclaim(self) -> int:
        """Requeue the requests of dead workers; returns how many were put back."""
        dead_here: list[bytes] = []
        others: list[bytes] = []
        for member in self.server.zrange(self.inflight_key, 0, -1):
            if member in self.held:
                continue
            owner = member.split(b"\n", 1)[0].decode()
            (dead_here if owner != self.owner and is_dead_here(owner) else others).append(member)
        return self._move(dead_here, force=True) + self._move(others, force=False)

    def _move(self, members: Iterable[bytes], force: bool) -> int:
        args: list[Any] = ["1" if force else "0"]
        for member in members:
            args += [member, -self._priority(member.split(b"\n", 1)[1])]
        if len(args) == 1:
            return 0
        return int(self._requeue(keys=[self.key, self.inflight_key], args=args))

    def _priority(self, data: bytes) -> int:
        try:
            return int(self.serializer.loads(data).get("priority", 0))
        except Exception:  # noqa: BLE001 - unreadable: requeued at priority 0, quarantined when popped
            return 0

    def clear(self) -> None:
        self.server.delete(self.key, self.inflight_key, self.later_key)


if TYPE_CHECKING:  # mypy checks that the class keeps its contract (protocols.py)

    def _keeps_contract(implementation: LeasedPriorityQueue) -> LeasedQueue:
        return implementation
