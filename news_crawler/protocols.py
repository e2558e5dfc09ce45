"""What the scheduler, the tracker and the spiders may call on each other: small typed
Protocols, implemented by the project's classes (``scheduling.RedisScheduler``,
``leasing.queue.LeasedPriorityQueue``, ``dupefilter.RedisDupeFilter`` and its Bloom
subclass) and checked by mypy. A component met at run time that does not implement one (a
scrapy-redis queue or dupefilter a project configured) is used by what it does implement:
the scheduler decides which once, when it opens, by ``isinstance`` on these Protocols."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from scrapy import Request


@runtime_checkable
class LeasedQueue(Protocol):
    """A queue whose pops are leases: a popped request stays in Redis until ``ack``."""

    lease_seconds: float

    def push_unseen(self, request: Request, seen_key: str, fingerprint: str) -> bool:
        """Mark ``fingerprint`` seen in the set ``seen_key`` and queue ``request``, atomically;
        False (nothing queued) when it was seen before."""
        ...

    def push_unseen_bloom(self, request: Request, filter_keys: list[str], check_args: list[Any]) -> bool:
        """``push_unseen`` against a Bloom filter's bitmaps."""
        ...

    def ack(self, request: Request) -> None:
        """End ``request``'s lease: its outcome is recorded."""
        ...

    def postpone(self, request: Request) -> None:
        """Keep ``request`` for the next run."""
        ...

    def renew(self) -> int:
        """Extend the leases this worker holds; how many were."""
        ...

    def reclaim(self) -> int:
        """Queue again what dead workers held; how many."""
        ...

    def resume_postponed(self) -> int:
        """Queue again what earlier runs postponed; how many."""
        ...

    def release(self, members: Sequence[bytes] | None = None) -> int:
        """Put these leases (every lease this worker holds, for None) back in the queue now; how many."""
        ...

    def held_elsewhere(self) -> int:
        """Leases other workers hold now."""
        ...


@runtime_checkable
class SeenSet(Protocol):
    """A dupefilter that marks and queues in one step with a ``LeasedQueue``, answers for
    many requests at once without marking them, and forgets."""

    def queue_unseen(self, queue: LeasedQueue, request: Request) -> bool:
        """Mark ``request`` seen and queue it, atomically; False when it was seen before."""
        ...

    def seen_many(self, requests: Sequence[Request]) -> list[bool]:
        """Whether each request counts as seen, marking none."""
        ...

    def forget(self, request: Request) -> None:
        """Let ``request`` be scheduled again."""
        ...


@runtime_checkable
class SiteSpider(Protocol):
    """A spider of one site (``spiders.news.NewsSpider``): what the downloader's safety
    middleware asks of it."""

    site: str

    def allows_redirect(self, request: Request) -> bool:
        """Where a redirect leads ``request`` is still the site's."""
        ...


@runtime_checkable
class Scheduling(Protocol):
    """What the tracker and the spiders may ask of the scheduler."""

    def ack(self, request: Request) -> None:
        """``request``'s outcome is recorded: end its lease."""
        ...

    def postpone_now(self, request: Request) -> None:
        """Fetch ``request`` again in the next run."""
        ...

    def seen_many(self, requests: Sequence[Request]) -> list[bool] | None:
        """Whether each request was seen, marking none; None when the dupefilter cannot tell."""
        ...

    def release(self, requests: Sequence[Request] | None) -> int:
        """Give these requests (every one still held, for None) back to the queue now, unfetched."""
        ...


@runtime_checkable
class EndsLeases(Protocol):
    """A spider middleware that ends each leased request's lease once its items have their
    outcomes (``middlewares.tracker.OutcomeTracker``): with one in the crawl, the scheduler
    leaves the leases to it."""

    ends_leases: bool
