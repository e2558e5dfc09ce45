"""Near-duplicate step: fingerprint the body off the reactor, decide in Redis, drop copies.

Segmentation is CPU work: it runs in a process pool (``DEDUP_PROCESSES`` workers, each
with its own jieba) so downloads and parsing go on meanwhile; ``DEDUP_PROCESSES = 0``
uses a thread instead. The Redis decision runs in a thread too. One namespace is shared
by every spider, so a reprint on another portal is caught.
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import logging
import multiprocessing
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from collections.abc import Callable
from typing import Any

from scrapy.crawler import Crawler
from scrapy.exceptions import DropItem, NotConfigured
from scrapy.settings import BaseSettings, Settings

from news_crawler import connection
from news_crawler.engine import fingerprinter_from_settings, store_from_settings
from news_crawler.fingerprint import Fingerprinter, UnusableText, to_hex
from news_crawler.index import FingerprintStore
from news_crawler.items import ArticleItem

_worker_fingerprinter: Fingerprinter | None = None
_executors: dict[tuple, tuple[Executor, Callable[[str, str], tuple[int | None, str | None]]]] = {}


def _init_worker(settings: dict[str, Any]) -> None:
    global _worker_fingerprinter
    logging.getLogger("jieba").setLevel(logging.WARNING)
    _worker_fingerprinter = fingerprinter_from_settings(Settings(settings))


def _fingerprint_with(fingerprinter: Fingerprinter, body: str, title: str) -> tuple[int | None, str | None]:
    try:
        return fingerprinter.fingerprint(body, title).value, None
    except UnusableText as e:
        return None, str(e)


def _fingerprint(body: str, title: str) -> tuple[int | None, str | None]:
    """Runs in a pool process, with the fingerprinter its initializer built."""
    assert _worker_fingerprinter is not None
    return _fingerprint_with(_worker_fingerprinter, body, title)


def _dedup_settings(settings: BaseSettings) -> dict[str, Any]:
    return {k: v for k, v in settings.copy_to_dict().items() if k.startswith("DEDUP_")}


def shared_executor(settings: BaseSettings) -> tuple[Executor, Callable[[str, str], tuple[int | None, str | None]]]:
    """One pool per process and configuration, shared by every crawler in the process, and
    the function to submit to it."""
    config = _dedup_settings(settings)
    processes = settings.getint("DEDUP_PROCESSES")
    key = (processes, repr(sorted(config.items())))
    if key not in _executors:
        if processes > 0:
            pool: Executor = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn"),
                                                 initializer=_init_worker, initargs=(config,))
            fn = _fingerprint
        else:
            pool = ThreadPoolExecutor(1, thread_name_prefix="fingerprint")
            fn = functools.partial(_fingerprint_with, fingerprinter_from_settings(Settings(config)))
        atexit.register(pool.shutdown, wait=False, cancel_futures=True)
        _executors[key] = (pool, fn)
    return _executors[key]


class NearDuplicatePipeline:
    def __init__(self, crawler: Crawler, store: FingerprintStore, executor: Executor,
                 fingerprint: Callable[[str, str], tuple[int | None, str | None]]) -> None:
        self.stats = crawler.stats
        self.store = store
        self.executor = executor
        self.fingerprint = fingerprint
        self.use_title = crawler.settings.getbool("DEDUP_USE_TITLE")

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> NearDuplicatePipeline:
        settings = crawler.settings
        if not settings.getbool("DEDUP_ENABLED"):
            raise NotConfigured("DEDUP_ENABLED is off")
        store = store_from_settings(settings, connection.from_settings(settings))
        return cls(crawler, store, *shared_executor(settings))

    async def process_item(self, item: ArticleItem) -> ArticleItem:
        site, url = item.get("site"), item["url"]
        loop = asyncio.get_running_loop()
        title = (item.get("title") or "") if self.use_title else ""
        value, error = await loop.run_in_executor(self.executor, self.fingerprint, item["body"], title)
        if value is None:
            self.stats.inc_value(f"articles/invalid/{site}")
            self.stats.inc_value("articles/invalid_reason/unfingerprintable")
            raise DropItem(f"invalid article {url}: {error}", log_level="INFO")
        item["simhash"] = to_hex(value)
        decision = await asyncio.to_thread(self.store.decide, url, value)
        if decision.replayed and decision.kept:
            self.stats.inc_value(f"dedup/seen_before/{site}")
            raise DropItem(f"already kept in an earlier run: {url}", log_level="INFO")
        if not decision.kept:
            self.stats.inc_value(f"dedup/dropped/{site}")
            raise DropItem(f"near-duplicate of {decision.duplicate_of} (distance {decision.distance}): {url}",
                           log_level="INFO")
        self.stats.inc_value(f"dedup/kept/{site}")
        return item
