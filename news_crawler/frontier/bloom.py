"""A bounded URL dupefilter: a Bloom filter in Redis, one bitmap per period.

A set of fingerprints grows by about 70 bytes a URL forever (BENCHMARKS.md); a Bloom
filter sized for ``DUPEFILTER_BLOOM_CAPACITY`` URLs a period at
``DUPEFILTER_BLOOM_ERROR`` false positives takes ``-ln(p) / ln(2)^2`` bits a URL: 1.8
bytes at 0.1%. The trade-off: a URL wrongly taken as seen (a false positive, at most
that rate while a period holds no more than its capacity) is never fetched. Periods give
retention: a URL is seen when any of the last ``DUPEFILTER_BLOOM_PERIODS`` periods'
bitmaps has it, is marked in the current one, and a period's bitmap expires by itself (a
TTL, no scan) when it leaves the window. A Bloom filter cannot forget one URL: a request
that failed is fetched again through the queue's postponement, never by removing it from
the filter.

    DUPEFILTER_CLASS = "news_crawler.frontier.bloom.BloomDupeFilter"
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from scrapy import Request

from news_crawler.crawl.counts import Counts
from news_crawler.frontier.dupefilter import RedisDupeFilter
from news_crawler.protocols import LeasedQueue

MAX_BITS = 2**32  # a Redis string holds at most 512 MB
DAY = 86_400


def bloom_size(capacity: int, error: float) -> tuple[int, int]:
    """``(bits, hashes)`` of a Bloom filter holding ``capacity`` items at ``error`` false positives."""
    if capacity < 1 or not 0 < error < 1:
        raise ValueError(f"a Bloom filter needs a capacity >= 1 and an error rate in (0, 1), got {capacity}, {error}")
    bits = math.ceil(-capacity * math.log(error) / math.log(2) ** 2)
    if bits > MAX_BITS:
        raise ValueError(
            f"{capacity:,} URLs at {error} need {bits:,} bits, over Redis' 2**32 a string: "
            "lower DUPEFILTER_BLOOM_CAPACITY (shorter periods) or raise DUPEFILTER_BLOOM_ERROR"
        )
    return bits, max(1, round(bits / capacity * math.log(2)))


def bit_positions(fingerprint: str, bits: int, hashes: int) -> list[int]:
    """The ``hashes`` bit positions of a hex fingerprint: independent 64-bit values from
    BLAKE2b (double hashing of the fingerprint's own halves measured twice the promised
    false-positive rate)."""
    raw, stream = bytes.fromhex(fingerprint), b""
    for block in range(-(-hashes * 8 // 64)):
        stream += hashlib.blake2b(raw, digest_size=64, person=b"bloom%d" % block).digest()
    return [int.from_bytes(stream[i * 8 : i * 8 + 8], "big") % bits for i in range(hashes)]


class BloomDupeFilter(RedisDupeFilter):
    """Seen requests in per-period Redis bitmaps ``<SCHEDULER_DUPEFILTER_KEY>:bloom:<period>``."""

    def __init__(
        self,
        server: Any,
        key: str,
        debug: bool = False,
        *,
        capacity: int,
        error: float,
        period_days: float,
        periods: int,
        clock: Callable[[], float] = time.time,
        **kwargs: Any,
    ) -> None:
        super().__init__(server, key, debug, **kwargs)
        if periods < 1 or period_days <= 0:
            raise ValueError(
                f"DUPEFILTER_BLOOM_PERIODS must be >= 1 and DUPEFILTER_BLOOM_PERIOD_DAYS > 0, "
                f"got {periods}, {period_days}"
            )
        self.bits, self.hashes = bloom_size(capacity, error)
        self.period_seconds, self.periods, self.clock = period_days * DAY, periods, clock
        self._script = server.register_script(
            (Path(__file__).parent / "leasing" / "enqueue_bloom.lua").read_text(encoding="utf-8")
        )

    @classmethod
    def options(cls, settings: Any) -> dict[str, Any]:
        return {
            "capacity": settings.getint("DUPEFILTER_BLOOM_CAPACITY"),
            "error": settings.getfloat("DUPEFILTER_BLOOM_ERROR"),
            "period_days": settings.getfloat("DUPEFILTER_BLOOM_PERIOD_DAYS"),
            "periods": settings.getint("DUPEFILTER_BLOOM_PERIODS"),
        }

    def filter_keys(self) -> list[str]:
        """The live periods' bitmaps, the current one first."""
        current = int(self.clock() // self.period_seconds)
        return [f"{self.key}:bloom:{current - n}" for n in range(self.periods)]

    def check_args(self, request: Request) -> tuple[list[str], list[Any]]:
        """Keys and arguments of ``enqueue_bloom.lua`` after its queue key and first three arguments."""
        ttl = int(self.period_seconds * self.periods) + DAY
        positions = bit_positions(self.request_fingerprint(request), self.bits, self.hashes)
        return self.filter_keys(), [ttl, -(-self.bits // 8), *positions]

    def queue_unseen(self, queue: LeasedQueue, request: Request) -> bool:
        """Set ``request``'s bits and queue it in one atomic step (``contracts.SeenSet``)."""
        return queue.push_unseen_bloom(request, *self.check_args(request))

    def was_seen(self, request: Request) -> bool:
        """Whether ``request`` counts as seen, without marking it (``request_seen`` marks)."""
        keys, args = self.check_args(request)
        positions = args[2:]
        pipe = self.server.pipeline(transaction=False)
        for key in keys:
            for position in positions:
                pipe.getbit(key, position)
        bits = pipe.execute()
        return any(all(bits[i : i + len(positions)]) for i in range(0, len(bits), len(positions)))

    def seen_many(self, requests: Sequence[Request]) -> list[bool]:
        """``was_seen`` of each of ``requests``."""
        return [self.was_seen(r) for r in requests]

    def request_seen(self, request: Request) -> bool:
        keys, args = self.check_args(request)
        return not self._script(keys=[self.key, *keys], args=[0, "", "0", *args])

    def forget(self, request: Request) -> None:
        """A Bloom filter cannot forget: counted, and the request is fetched again only
        through the queue's postponement."""
        if self.stats is not None:
            Counts.of(self.stats).add("dupefilter", "forget_unsupported")

    def estimated_count(self) -> int:
        """About how many URLs the live periods hold, from the bits set (``BITCOUNT``):
        ``-(m / k) ln(1 - X / m)`` a period, m bits, k hashes, X set (Swamidass and Baldi)."""
        total = 0.0
        for key in self.filter_keys():
            ones = min(int(self.server.bitcount(key)), self.bits - 1)
            total += -self.bits / self.hashes * math.log(1 - ones / self.bits)
        return round(total)

    def clear(self) -> None:
        self.server.unlink(*self.filter_keys())  # older periods expire by themselves
