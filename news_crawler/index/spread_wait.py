"""Spread index (``spread_store.py``): waiting for another worker's record. A worker that
finds an id, or what a document duplicates, begun by another worker waits for that
worker's record; if none comes within the time given, that worker died between its claims
and its record, and what it left is taken out."""

from __future__ import annotations

import logging
import time
from typing import Any

from news_crawler.index.base import Decision, Document
from news_crawler.index.spread_claim import undo

logger = logging.getLogger(__name__)
POLL_SECONDS = 0.01  # the other worker is between its claims and its record: milliseconds


def await_decided(store: Any, fps: list[int], seconds: float) -> None:
    """Wait until other workers have recorded the documents begun under ``fps``; one still
    begun after ``seconds`` was left by a worker that died: taken out."""
    deadline, begun = time.monotonic() + seconds, store.id_prefix + "begun"
    while True:
        ids = store.client.hmget(begun, [fp.to_bytes(8, "big") for fp in fps])
        left = [(fp, i.decode()) for fp, i in zip(fps, ids) if i is not None]
        if not left:
            return
        if time.monotonic() > deadline:
            logger.warning("%d articles begun by another worker %g s ago and never recorded (it stopped "
                           "mid-batch): taken out", len(left), seconds)
            undo(store, [Document(i, fp) for fp, i in left])
            return
        time.sleep(POLL_SECONDS)


def settled(store: Any, ids: list[str], seconds: float) -> tuple[dict[str, Decision], list[str]]:
    """The decisions another worker records for ``ids`` (the same ids, decided at the same
    moment with the same simhash), waited for, as replays; and the ids with none after
    ``seconds``."""
    out: dict[str, Decision] = {}
    deadline = time.monotonic() + seconds
    while ids:
        found = store._read_decided(ids)
        out.update(found)
        ids = [i for i in ids if i not in found]
        if ids and time.monotonic() > deadline:
            return out, ids
        if ids:
            time.sleep(POLL_SECONDS)
    return out, []
