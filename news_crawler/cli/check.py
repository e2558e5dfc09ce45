"""``news-dedup check``: decide every line of a JSON Lines corpus, in input order."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from news_crawler.fingerprint import Fingerprinter, UnusableText, to_hex
from news_crawler.index import FingerprintStore

CHECK_CHUNK = 256


def parse_line(line: str, lineno: int, fingerprinter: Fingerprinter) -> tuple[str, int] | dict[str, Any]:
    """``(id, simhash)`` for a usable line, else the error record to print for it."""
    try:
        doc = json.loads(line)
    except json.JSONDecodeError as e:
        return {"id": None, "error": f"line {lineno}: not JSON ({e.msg})"}
    if not isinstance(doc, dict):
        return {"id": None, "error": f"line {lineno}: expected a JSON object, got {type(doc).__name__}"}
    doc_id = doc.get("id")
    if not isinstance(doc_id, str) or not doc_id:
        return {"id": doc_id if isinstance(doc_id, (str, int)) else None,
                "error": f"line {lineno}: \"id\" must be a non-empty string"}
    body = doc.get("body")
    if body is None and isinstance(doc.get("html"), str):
        from news_crawler.extraction import extract_article

        body = extract_article(doc["html"], doc.get("url") or "").body
    if not isinstance(body, str):
        return {"id": doc_id, "error": "needs a \"body\" or \"html\" string"}
    title = doc.get("title") if isinstance(doc.get("title"), str) else ""
    try:
        return doc_id, fingerprinter.fingerprint(body, title).value
    except UnusableText as e:
        return {"id": doc_id, "error": str(e)}


def check(lines: Iterable[str], fingerprinter: Fingerprinter, store: FingerprintStore) -> Iterator[dict]:
    """One decision (or error) per non-blank input line, in input order."""
    pending: list[dict | tuple[str, int]] = []

    def flush() -> Iterator[dict]:
        decisions = iter(store.decide_many([p for p in pending if isinstance(p, tuple)]))
        for p in pending:
            if isinstance(p, dict):
                yield p
            else:
                d = next(decisions)
                yield {"id": d.id, "simhash": to_hex(d.simhash), "duplicate_of": d.duplicate_of,
                       "distance": d.distance}
        pending.clear()

    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        pending.append(parse_line(line, lineno, fingerprinter))
        if len(pending) >= CHECK_CHUNK:
            yield from flush()
    yield from flush()
