"""Page work off the reactor, each page within a time limit.

Page extraction and fingerprinting are CPU work, so they run in ``DEDUP_PROCESSES`` worker
processes (one per core by default), each with its own fingerprinter built once when it
starts; ``DEDUP_PROCESSES = 0`` uses one thread instead. One pool per process and
configuration is shared by every crawler in the process.

A page is untrusted input: one crafted to make a parser or a pattern run for minutes must
not hold a worker, nor every page queued behind it. Every call has ``EXTRACT_TIMEOUT``
seconds: a worker that has not answered by then is killed and replaced, and the call raises
``PageTimeout`` (the page's outcome is ``invalid``). A call is handed to one worker at a
time by a thread of the pool's, which waits on that worker's pipe, so the pool knows which
process to kill. A worker that dies under a call (the OOM killer) is replaced and the call
tried once more on the new one. Worker processes ask the kernel to kill them when their
parent dies, so a SIGKILLed crawl leaves no orphaned worker behind.

With a thread there is no process to kill: a call past the limit raises ``PageTimeout``
and the thread is left to finish on its own, while a new one takes the calls after it.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import ctypes
import functools
import logging
import multiprocessing
import os
import queue
import signal
import sys
import threading
import types
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from multiprocessing.connection import Connection
from typing import Any

from news_crawler.config import PlainSettings
from news_crawler.crawl.counts import Counts
from news_crawler.dedup.fingerprint import Fingerprinter, UnusableText
from news_crawler.dedup.fingerprint.fingerprinter import Fingerprint
from news_crawler.dedup.from_settings import fingerprinter_from_settings

logger = logging.getLogger(__name__)
_PR_SET_PDEATHSIG = 1
STOP_SECONDS = 2.0  # a worker asked to stop is killed after this
START_SECONDS = 120.0  # a new worker has this long to load its dictionary and say it is ready

_worker_fingerprinter: Fingerprinter | None = None


class PageTimeout(Exception):
    """A page's extraction or fingerprint took longer than ``EXTRACT_TIMEOUT``."""


def die_with_parent(parent: int) -> None:
    """Linux: SIGKILL this process when ``parent`` (the process that started it) dies, and
    exit now if it died already, before this process asked."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def fingerprint_with(fingerprinter: Fingerprinter, body: str, title: str) -> tuple[Fingerprint | None, str | None]:
    """``(fingerprint, None)``, or ``(None, reason)`` for a text that cannot be fingerprinted."""
    try:
        return fingerprinter.fingerprint(body, title), None
    except UnusableText as e:
        return None, str(e)


def _serve(conn: Connection, config: dict[str, Any], parent: int) -> None:
    """A worker process: build the fingerprinter, then answer calls until the pipe closes."""
    global _worker_fingerprinter
    die_with_parent(parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the crawl's to handle
    logging.getLogger("jieba").setLevel(logging.WARNING)
    _worker_fingerprinter = fingerprinter_from_settings(PlainSettings(config))
    conn.send((True, None))  # ready: a call's time limit starts now, not while the worker loads
    while True:
        try:
            fn, args, fingerprinting = conn.recv()
        except (EOFError, OSError):
            return
        try:
            answer: tuple[bool, Any] = (True, fn(_worker_fingerprinter, *args) if fingerprinting else fn(*args))
        except Exception as e:  # noqa: BLE001 - the caller's to raise, as an executor would
            answer = (False, e)
        try:
            conn.send(answer)
        except Exception as e:  # noqa: BLE001 - an answer that does not pickle
            conn.send((False, RuntimeError(f"{type(e).__name__}: {e}")))


_START_LOCK = threading.Lock()


@contextlib.contextmanager
def _main_module_left_out() -> Iterator[None]:
    """While a worker process starts: spawn would import the main module again in it (the
    command that started the crawl, and with it Scrapy and Twisted: half a second and tens
    of megabytes a worker), though a worker runs only this module's code. A bare ``__main__``
    in its place meanwhile tells spawn there is none to import. One start at a time: two
    threads swapping it at once could leave the bare one in place."""
    with _START_LOCK:
        main = sys.modules["__main__"]
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            yield
        finally:
            sys.modules["__main__"] = main


class _Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(self, config: dict[str, Any]) -> None:
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_serve, args=(child, config, os.getpid()), daemon=True)
        with _main_module_left_out():
            self.process.start()
        child.close()
        # Wait until it is ready (a worker that cannot start is the crawl's error, not the page's).
        try:
            if not self.conn.poll(START_SECONDS):
                raise EOFError
            self.conn.recv()
        except (EOFError, OSError):
            self.kill()
            raise RuntimeError(f"a page worker did not start within {START_SECONDS:g} s (its error is above)") from None

    def call(self, fn: Callable[..., Any], args: tuple[Any, ...], fingerprinting: bool, timeout: float) -> Any:
        """``fn(*args)`` in the worker (``fn(fingerprinter, *args)``, ``fingerprinting``);
        ``PageTimeout`` past ``timeout`` seconds (0: none); ``EOFError`` or ``OSError`` when
        the worker died."""
        self.conn.send((fn, args, fingerprinting))
        if timeout and not self.conn.poll(timeout):
            raise PageTimeout(f"took longer than {timeout:g} s")
        ok, value = self.conn.recv()
        if not ok:
            raise value
        return value

    def kill(self) -> None:
        self.conn.close()
        self.process.kill()
        self.process.join(STOP_SECONDS)


class ProcessPool:
    """``processes`` worker processes, started as calls need them."""

    def __init__(self, config: dict[str, Any], processes: int, timeout: float) -> None:
        self.config, self.timeout = config, timeout
        self._idle: queue.LifoQueue[_Worker] = queue.LifoQueue()
        self._workers: set[_Worker] = set()
        self._lock = threading.Lock()
        self._threads = ThreadPoolExecutor(processes, thread_name_prefix="page-worker")

    def submit(self, fn: Callable[..., Any], args: tuple[Any, ...], fingerprinting: bool) -> Future[tuple[Any, int]]:
        """``(fn(*args), workers replaced under the call)``, or its exception."""
        return self._threads.submit(self._call, fn, args, fingerprinting)

    def pids(self) -> list[int]:
        """The live workers' process ids."""
        with self._lock:
            return [w.process.pid for w in self._workers if w.process.pid is not None]

    def _take(self) -> _Worker:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            worker = _Worker(self.config)
            with self._lock:
                self._workers.add(worker)
            return worker

    def _drop(self, worker: _Worker) -> None:
        worker.kill()
        with self._lock:
            self._workers.discard(worker)

    def _call(self, fn: Callable[..., Any], args: tuple[Any, ...], fingerprinting: bool) -> tuple[Any, int]:
        for attempt in (1, 2):
            worker = self._take()
            try:
                result = worker.call(fn, args, fingerprinting, self.timeout)
            except PageTimeout:
                self._drop(worker)
                raise
            except (EOFError, OSError):  # the worker died under the call: once more, on a new one
                self._drop(worker)
                if attempt == 2:
                    raise
                continue
            except BaseException:
                self._idle.put(worker)  # the call raised; the worker is fine
                raise
            self._idle.put(worker)
            return result, attempt - 1
        raise AssertionError("unreachable")

    def shutdown(self) -> None:
        self._threads.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            workers, self._workers = list(self._workers), set()
        for worker in workers:
            worker.kill()


class ThreadPool:
    """One thread; a call past the limit is left to finish on its own, and a new thread
    takes the calls after it."""

    def __init__(self, config: dict[str, Any], timeout: float) -> None:
        self.timeout = timeout
        self._fingerprinter = fingerprinter_from_settings(PlainSettings(config))
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="page-worker")

    def submit(self, fn: Callable[..., Any], args: tuple[Any, ...], fingerprinting: bool) -> Future[tuple[Any, int]]:
        call = functools.partial(fn, self._fingerprinter, *args) if fingerprinting else functools.partial(fn, *args)
        return self._thread.submit(lambda: (call(), 0))

    def abandon(self) -> None:
        """The thread is stuck past the limit: later calls go to a new one."""
        stuck, self._thread = self._thread, ThreadPoolExecutor(1, thread_name_prefix="page-worker")
        stuck.shutdown(wait=False, cancel_futures=True)

    def pids(self) -> list[int]:
        return []

    def shutdown(self) -> None:
        self._thread.shutdown(wait=False, cancel_futures=True)


Pool = ProcessPool | ThreadPool
_pools: dict[str, Pool] = {}


def dedup_config(settings: Mapping[str, Any] | Any) -> dict[str, Any]:
    """The ``DEDUP_*`` settings as a plain dict (what a worker process needs)."""
    items = settings.items()  # Scrapy's settings are a mapping too
    return {k: v for k, v in items if k.startswith("DEDUP_")}


def pool_size(processes: int) -> int:
    """``DEDUP_PROCESSES``: a number of processes, 0 for one thread, below 0 for one per core."""
    if processes >= 0:
        return processes
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def shared_pool(config: dict[str, Any], processes: int, timeout: float) -> Pool:
    """The process's pool for this configuration."""
    processes = pool_size(processes)
    key = f"{processes}:{timeout}:{sorted(config.items())!r}"
    if key not in _pools:
        if not _pools:
            atexit.register(shutdown_pools)
        _pools[key] = ProcessPool(config, processes, timeout) if processes > 0 else ThreadPool(config, timeout)
    return _pools[key]


def shutdown_pools() -> None:
    """Stop the process's pools and their workers (at exit; a test run at its end)."""
    while _pools:
        _pools.popitem()[1].shutdown()


class WorkerPool:
    """The crawl's handle on its shared pool: page extraction (the spider) and fingerprints
    (the pipeline) run there, off the reactor, each call within ``timeout`` seconds (0:
    none). Replaced workers are counted in ``pool/restarted``."""

    def __init__(self, config: dict[str, Any], processes: int, crawler: Any = None, timeout: float = 0.0) -> None:
        self.config = config
        self.processes = processes
        self.crawler = crawler  # its stats exist only once the crawl starts
        self.timeout = timeout

    def get(self) -> Pool:
        return shared_pool(self.config, self.processes, self.timeout)

    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in the pool (``fn`` a module's function: it is pickled to a worker
        process). ``PageTimeout`` when it takes longer than the limit."""
        return await self._submit(fn, args, False)

    async def with_fingerprinter(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(fingerprinter, *args)`` in the pool, with the worker's own ``Fingerprinter``
        (built once, when the worker starts, from the ``DEDUP_*`` settings)."""
        return await self._submit(fn, args, True)

    async def _submit(self, fn: Callable[..., Any], args: tuple[Any, ...], fingerprinting: bool) -> Any:
        pool = self.get()
        try:
            if isinstance(pool, ThreadPool) and self.timeout:
                try:
                    future = asyncio.wrap_future(pool.submit(fn, args, fingerprinting))
                    result, replaced = await asyncio.wait_for(future, self.timeout)
                except TimeoutError:
                    pool.abandon()
                    raise PageTimeout(f"took longer than {self.timeout:g} s") from None
            else:
                result, replaced = await asyncio.wrap_future(pool.submit(fn, args, fingerprinting))
        except PageTimeout:
            self._count_restarts(1)
            raise
        self._count_restarts(replaced)
        return result

    def _count_restarts(self, n: int) -> None:
        if n and self.crawler is not None:
            Counts.of(self.crawler.stats).add("pool", "restarted", n=n)
