"""Parsing and fingerprinting chunks of ``check`` input in worker processes, results in
input order.

The parent builds the fingerprinter and loads its dictionary and IDF table once; the
workers are forked from it (where the platform can fork) and start with both in memory.
A reader thread reads ahead and hands chunks to the workers, so a chunk is printed as soon
as it is fingerprinted and decided, even while the input is still arriving (lines piped
one by one). At most ``2 x workers`` chunks wait in order: memory stays bounded.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from itertools import islice
from typing import Any, cast

from news_crawler.crawl.pool import die_with_parent
from news_crawler.dedup.fingerprint import Fingerprinter

Chunk = tuple[int, list[bytes]]  # (number of its first line, its lines)
SHUTDOWN_SECONDS = 10.0  # waited at most for the workers to stop
_worker_fingerprinter: Fingerprinter | None = None
_worker_parse: Callable[..., Any] | None = None


def chunks(lines: Iterable[bytes | str], size: int, first: int = 1) -> Iterator[Chunk]:
    """``lines`` ``size`` at a time, each block with the number of its first line (the first
    is ``first``)."""
    it = iter(lines)
    while block := list(islice(it, size)):
        yield first, cast(list[bytes], block)
        first += len(block)


def default_workers() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _init(fingerprinter: Fingerprinter, parse: Callable[..., Any], parent: int) -> None:
    global _worker_fingerprinter, _worker_parse
    die_with_parent(parent)
    _worker_fingerprinter, _worker_parse = fingerprinter, parse


def _started() -> bool:
    return True


def _parse_chunk(chunk: Chunk) -> list[Any]:
    assert _worker_fingerprinter is not None and _worker_parse is not None, "the pool's initializer did not run"
    first, lines = chunk
    return [_worker_parse(line, first + i, _worker_fingerprinter) for i, line in enumerate(lines)]


def _context() -> Any:
    """fork where there is one (workers start with the parent's loaded tables), else spawn."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def parse_in_workers(
    source: Iterator[Chunk], fingerprinter: Fingerprinter, parse: Callable[..., Any], workers: int
) -> Iterator[list[Any]]:
    """``parse(line, lineno, fingerprinter)`` of every line of every chunk, chunk by chunk in input order."""
    fingerprinter.weigher.words("预热")  # load the dictionary before forking
    pool = ProcessPoolExecutor(
        workers, mp_context=_context(), initializer=_init, initargs=(fingerprinter, parse, os.getpid())
    )
    # Start every worker now, from this thread: a worker dies with the thread that forked it
    # (PR_SET_PDEATHSIG), and the reader thread below ends at the end of the input.
    # With fork the pool starts all its workers at the first submit; with spawn it starts one
    # a submit while none is idle, so as many are submitted at once.
    for started in [pool.submit(_started) for _ in range(workers)]:
        started.result()
    in_flight: queue.Queue[Future | BaseException | None] = queue.Queue(maxsize=2 * workers)

    def feed() -> None:  # a daemon: a reader blocked on input never holds the process at exit
        try:
            for chunk in source:
                in_flight.put(pool.submit(_parse_chunk, chunk))
        except BaseException as e:  # noqa: BLE001 - handed to the consumer, raised there
            in_flight.put(e)
        in_flight.put(None)

    threading.Thread(target=feed, name="check-reader", daemon=True).start()
    try:
        while (item := in_flight.get()) is not None:
            if isinstance(item, BaseException):
                raise item
            yield item.result()
    finally:
        # The pool's end is waited for (the chunks in flight are short), but not for ever: a pool
        # still closing when Python exits races it (Python then writes to the pool's closed
        # wakeup pipe, CPython 3.11, and prints a traceback).
        closing = threading.Thread(
            target=pool.shutdown, kwargs={"wait": True, "cancel_futures": True}, name="check-pool-shutdown", daemon=True
        )
        closing.start()
        closing.join(SHUTDOWN_SECONDS)
