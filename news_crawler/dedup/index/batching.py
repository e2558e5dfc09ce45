"""Group commit for decisions: concurrent callers share one round trip to the store.

While one batch is being decided, new documents wait; when it returns, up to
``batch_size`` of the waiting ones go in the next call. Under load a crawl decides many
items per Lua call; a lone item is decided at once, never held back by a timer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from news_crawler.dedup.index.base import Decision, Document, Published

DecideMany = Callable[[Sequence[Document]], list[Decision]]
Runner = Callable[..., Awaitable[Any]]  # runs a blocking call off the loop: asyncio.to_thread by default


class DecisionBatcher:
    def __init__(self, decide_many: DecideMany, batch_size: int, run: Runner = asyncio.to_thread) -> None:
        if batch_size < 1:
            raise ValueError(f"batch size must be at least 1, got {batch_size}")
        self.decide_many = decide_many
        self.run = run
        self.batch_size = batch_size
        self._waiting: list[tuple[Document, asyncio.Future[Decision]]] = []
        self._running = False
        self.calls = 0  # round trips made, for stats and tests

    async def decide(
        self,
        doc_id: str,
        simhash: int,
        sentences: tuple[int, ...] = (),
        length: int = 0,
        published: Published | None = None,
        outlets: tuple[int, int] = (0, 0),
    ) -> Decision:
        """The decision on one document, made with the others waiting (``outlets``: its
        ``Document.outlet`` and ``.credits``)."""
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self._waiting.append((Document(doc_id, simhash, sentences, length, published, *outlets), future))
        if not self._running:
            self._running = True
            asyncio.get_running_loop().create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting[: self.batch_size], self._waiting[self.batch_size :]
                self.calls += 1
                try:
                    decisions = await self.run(self.decide_many, [doc for doc, _ in batch])
                except Exception as e:  # noqa: BLE001 - handed to every caller of this batch
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(e)
                    continue
                for (_, future), decision in zip(batch, decisions):
                    if not future.done():
                        future.set_result(decision)
        finally:
            self._running = False
