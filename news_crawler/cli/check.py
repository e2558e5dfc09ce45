"""``news-dedup check``: decide every line of a JSON Lines corpus, in input order.

A line is an article (``body`` or ``html``, fingerprinted here: both rules) or a fingerprint
made elsewhere (``simhash``, 16 hex digits: decided by the simhash rule alone).

Input is read as bytes and split on ``\\n`` only; each line is decoded on its own, so one
bad line (invalid UTF-8, nested too deep, not JSON, no id) gets its own error line and
the run carries on. Every input line, blank ones included, gets exactly one output line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from datetime import UTC, tzinfo
from functools import partial
from itertools import islice
from typing import IO, Any

from news_crawler.cli.check_workers import chunks, parse_in_workers
from news_crawler.dedup.fingerprint import Fingerprinter, UnusableText, to_hex
from news_crawler.dedup.index import Document, FingerprintStore
from news_crawler.dedup.index.base import outlet_keys, published_span

CHECK_CHUNK = 256  # lines decided in one batch where this process parses them
FIRST_CHUNK = 16  # lines parsed here first, to tell texts (worth handing to workers) from fingerprints
TEXT_CHUNK = 64  # texts a worker fingerprints at a time: small, so that the workers finish together
_HEX16 = re.compile("[0-9a-fA-F]{16}")
READ_BLOCK = 1 << 20


def read_lines(stream: IO[bytes]) -> Iterator[bytes]:
    """The lines of a binary stream, split on ``\\n`` only (a CR is just a byte). Reads what
    is there (``read1``), so lines piped in one by one are decided as they come."""
    read = getattr(stream, "read1", stream.read)
    rest = b""
    while block := read(READ_BLOCK):
        lines = (rest + block).split(b"\n")
        rest = lines.pop()
        yield from lines
    if rest:
        yield rest


def _text(value: Any) -> str | None:
    """``value`` if it is a string that UTF-8 can carry (no lone surrogates), else None."""
    if not isinstance(value, str):
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return value


def _decode(line: bytes | str, lineno: int) -> tuple[Any, str]:
    """``(the JSON value of a line, "")``, or ``(None, why it has none)``."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as e:
            return None, f"line {lineno}: invalid UTF-8 (byte {e.start})"
    if not line.strip():
        return None, "blank line"
    try:
        return json.loads(line), ""
    except RecursionError:
        return None, f"line {lineno}: JSON nested too deep"
    except json.JSONDecodeError as e:
        return None, f"line {lineno}: not JSON ({e.msg})"


def parse_line(
    line: bytes | str, lineno: int, fingerprinter: Fingerprinter, zone: tzinfo = UTC
) -> Document | dict[str, Any]:
    """The ``Document`` of a usable line, else the error record to print for it. A
    ``published_at`` without an offset (or a date alone) is in ``zone``."""
    doc, error = _decode(line, lineno)
    if error:
        return {"id": None, "error": error}
    if not isinstance(doc, dict):
        return {"id": None, "error": f"line {lineno}: expected a JSON object, got {type(doc).__name__}"}
    raw_id = doc.get("id")
    if isinstance(raw_id, str) and raw_id and _text(raw_id) is None:
        return {"id": None, "error": f"line {lineno}: id is not valid text (a lone surrogate)"}
    if not isinstance(raw_id, str) or not raw_id:
        return {
            "id": raw_id if isinstance(raw_id, (str, int)) else None,
            "error": f'line {lineno}: "id" must be a non-empty string',
        }
    given = doc.get("simhash")
    if given is not None:  # a fingerprint made elsewhere: decided by it alone
        if not (isinstance(given, str) and _HEX16.fullmatch(given)):
            return {"id": raw_id, "error": f'line {lineno}: "simhash" must be 16 hex digits'}
    published_at = doc.get("published_at")
    if published_at is not None and not isinstance(published_at, str):
        return {"id": raw_id, "error": f'line {lineno}: "published_at" must be a string (ISO 8601)'}
    try:
        published = published_span(published_at or "", zone)
    except ValueError as e:
        return {"id": raw_id, "error": f"line {lineno}: {e}"}
    for name in ("outlet", "source"):
        if not isinstance(doc.get(name, ""), str):
            return {"id": raw_id, "error": f'line {lineno}: "{name}" must be a string (an outlet\'s name)'}
    outlets = outlet_keys(doc.get("outlet") or "", doc.get("source") or "")
    if given is not None:
        return Document(raw_id, int(given, 16), published=published, outlet=outlets[0], credits=outlets[1])
    body = doc.get("body")
    if body is None and isinstance(doc.get("html"), str):
        from news_crawler.extraction import extract_article

        body = extract_article(doc["html"], doc.get("url") or "").body
    if not isinstance(body, str):
        return {"id": raw_id, "error": 'needs a "body" or "html" string'}
    body = _text(body) or body.encode("utf-8", "replace").decode("utf-8")
    title = _text(doc.get("title")) or ""
    try:
        fp = fingerprinter.fingerprint(body, title)
    except UnusableText as e:
        return {"id": raw_id, "error": str(e)}
    return Document(raw_id, fp.value, fp.sentences, fp.length, published, *outlets)


def check(
    lines: Iterable[bytes | str],
    fingerprinter: Fingerprinter,
    store: FingerprintStore,
    workers: int = 1,
    zone: tzinfo = UTC,
) -> Iterator[dict]:
    """One decision (or error) per input line, in input order. The first ``FIRST_CHUNK``
    lines are parsed here; when they hold texts and ``workers`` is more than one, the rest
    are fingerprinted ``TEXT_CHUNK`` at a time in ``workers`` processes, else parsed here
    ``CHECK_CHUNK`` at a time; each chunk is decided in one batch. A replayed id (decided before) gets its earlier
    decision and stored simhash back, marked ``"replay": true``; a line kept as its story's
    original in place of lines kept before names them in ``"supersedes"``."""
    rest = iter(lines)
    parse = partial(parse_line, zone=zone)
    head = list(islice(rest, FIRST_CHUNK))
    if not head:
        return
    batch = [parse(line, 1 + i, fingerprinter) for i, line in enumerate(head)]
    yield from _decide(batch, store)
    # Texts are fingerprinted in worker processes; fingerprints given (a first chunk with no
    # text to fingerprint) are parsed here: handing them to a worker costs more than parsing.
    texts = any(isinstance(p, Document) and (p.sentences or p.length) for p in batch)
    if workers > 1 and texts:
        parsed = parse_in_workers(chunks(rest, TEXT_CHUNK, 1 + len(head)), fingerprinter, parse, workers)
    else:
        parsed = (
            [parse(line, first + i, fingerprinter) for i, line in enumerate(block)]
            for first, block in chunks(rest, CHECK_CHUNK, 1 + len(head))
        )
    for batch in parsed:
        yield from _decide(batch, store)


def _decide(batch: list[dict | Document], store: FingerprintStore) -> Iterator[dict]:
    decisions = iter(store.decide_many([p for p in batch if isinstance(p, Document)]))
    for p in batch:
        if isinstance(p, dict):
            yield p
            continue
        d = next(decisions)
        out: dict[str, Any] = {
            "id": d.id,
            "simhash": to_hex(d.simhash),
            "duplicate_of": d.duplicate_of,
            "distance": d.distance,
        }
        if not d.kept:
            out["rule"] = d.rule
        if d.supersedes:
            out["supersedes"] = list(d.supersedes)
        if d.replayed:
            out["replay"] = True
        yield out
