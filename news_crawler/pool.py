"""Fingerprinting off the reactor: a process pool (or a thread) per configuration.

Page extraction and segmentation are CPU work, so they run in ``DEDUP_PROCESSES`` worker
processes (one per core by default), each with its own fingerprinter built once by the
pool's initializer; ``DEDUP_PROCESSES = 0`` uses one thread instead. One pool per process
and configuration is shared by every crawler in the process. Worker processes ask the
kernel to kill them when their parent dies, so a SIGKILLed crawl leaves no orphaned worker
behind.
"""

from __future__ import annotations

import asyncio
import atexit
import ctypes
import functools
import logging
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Mapping
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

from news_crawler.config import PlainSettings
from news_crawler.engine import fingerprinter_from_settings
from news_crawler.fingerprint import Fingerprinter, UnusableText
from news_crawler.fingerprint.fingerprinter import Fingerprint

FingerprintFn = Callable[[str, str], tuple[Fingerprint | None, str | None]]
_PR_SET_PDEATHSIG = 1

_worker_fingerprinter: Fingerprinter | None = None
_pools: dict[str, tuple[Executor, FingerprintFn]] = {}


def die_with_parent(parent: int) -> None:
    """Linux: SIGKILL this process when ``parent`` (the process that started it) dies, and
    exit now if it died already, before this process asked."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def _init_worker(config: dict[str, Any], parent: int) -> None:
    global _worker_fingerprinter
    die_with_parent(parent)
    logging.getLogger("jieba").setLevel(logging.WARNING)
    _worker_fingerprinter = fingerprinter_from_settings(PlainSettings(config))


def fingerprint_with(fingerprinter: Fingerprinter, body: str, title: str) -> tuple[Fingerprint | None, str | None]:
    """``(fingerprint, None)``, or ``(None, reason)`` for a text that cannot be fingerprinted."""
    try:
        return fingerprinter.fingerprint(body, title), None
    except UnusableText as e:
        return None, str(e)


def _fingerprint_in_worker(body: str, title: str) -> tuple[Fingerprint | None, str | None]:
    assert _worker_fingerprinter is not None, "the pool's initializer did not run"
    return fingerprint_with(_worker_fingerprinter, body, title)


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


def shared_pool(config: dict[str, Any], processes: int) -> tuple[Executor, FingerprintFn]:
    """The process's pool for this configuration, and the function to submit to it."""
    processes = pool_size(processes)
    key = f"{processes}:{sorted(config.items())!r}"
    if key in _pools:
        return _pools[key]
    if processes > 0:
        pool: Executor = ProcessPoolExecutor(
            processes,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init_worker,
            initargs=(config, os.getpid()),
        )
        fn: FingerprintFn = _fingerprint_in_worker
    else:
        pool = ThreadPoolExecutor(1, thread_name_prefix="fingerprint")
        fn = functools.partial(fingerprint_with, fingerprinter_from_settings(PlainSettings(config)))
    atexit.register(pool.shutdown, wait=False, cancel_futures=True)
    _pools[key] = (pool, fn)
    return pool, fn


def discard_pool(pool: Executor) -> None:
    """Forget a broken pool, so the next ``shared_pool`` call builds a new one."""
    for key, (p, _) in list(_pools.items()):
        if p is pool:
            del _pools[key]
    pool.shutdown(wait=False, cancel_futures=True)


class WorkerPool:
    """The crawl's handle on its shared pool: page extraction (the spider) and fingerprints
    (the pipeline) run there, off the reactor. A pool that broke (a worker killed) is
    replaced once per call, and counted in ``pool/restarted``."""

    def __init__(self, config: dict[str, Any], processes: int, crawler: Any = None) -> None:
        self.config = config
        self.processes = processes
        self.crawler = crawler  # its stats exist only once the crawl starts

    def get(self) -> tuple[Executor, FingerprintFn]:
        return shared_pool(self.config, self.processes)

    async def run(self, fn: Callable[..., Any] | None, *args: Any) -> Any:
        """``fn(*args)`` in the pool; ``fn`` None means the pool's fingerprint function."""
        loop = asyncio.get_running_loop()
        executor, fingerprint = self.get()
        try:
            return await loop.run_in_executor(executor, fn or fingerprint, *args)
        except BrokenExecutor:
            discard_pool(executor)
            if self.crawler is not None:
                self.crawler.stats.inc_value("pool/restarted")
            executor, fingerprint = self.get()
            return await loop.run_in_executor(executor, fn or fingerprint, *args)
