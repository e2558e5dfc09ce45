"""Group commit of decisions: concurrent callers share round trips, in arrival order."""

import asyncio
import threading

import pytest

from news_crawler.dedup.index import MemoryStore
from news_crawler.dedup.index.batching import DecisionBatcher


def test_concurrent_decisions_share_calls_and_keep_arrival_order():
    store = MemoryStore()
    sizes = []
    gate = threading.Event()

    def decide_many(items):
        gate.wait(5)  # the first call is still running while the others arrive
        sizes.append(len(items))
        return store.decide_many(items)

    batcher = DecisionBatcher(decide_many, batch_size=4)

    async def main():
        tasks = [asyncio.create_task(batcher.decide(f"d{n}", 7)) for n in range(10)]
        await asyncio.sleep(0)
        gate.set()
        return await asyncio.gather(*tasks)

    decisions = asyncio.run(main())
    assert decisions[0].kept and all(d.duplicate_of == "d0" for d in decisions[1:])
    assert sizes == [4, 4, 2]  # ten callers, three round trips of at most batch_size


def test_a_failed_call_fails_its_callers_and_the_next_batch_still_runs():
    calls = []

    def decide_many(items):
        calls.append(len(items))
        if len(calls) == 1:
            raise ConnectionError("redis went away")
        return MemoryStore().decide_many(items)

    batcher = DecisionBatcher(decide_many, batch_size=8)

    async def main():
        with pytest.raises(ConnectionError):
            await batcher.decide("a", 1)
        return await batcher.decide("b", 2)

    assert asyncio.run(main()).kept and calls == [1, 1]
