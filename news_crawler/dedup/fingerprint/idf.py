"""IDF tables: jieba's own (read from its package data, without importing jieba.analyse,
which loads far more than the table) or a file in jieba's format, read once per process.

Parsing jieba's 270,000-line table takes about 0.15 s, a large share of a short
``news-dedup check``; so the parsed table is kept in the user's cache directory as two
flat blobs (the words, the float64 values) and read back in about a third of that time.
The cache is keyed by the source file's path, size and modification time, written
atomically, and only ever an optimisation: when it cannot be read or written, the text
file is parsed.
"""

from __future__ import annotations

import array
import functools
import hashlib
import importlib.util
import logging
import os
import sys
import tempfile
from pathlib import Path

logger = logging.getLogger(__name__)
_MAGIC = b"news-crawler idf v1 " + sys.byteorder.encode() + b"\n"


def jieba_idf_path() -> Path:
    """jieba's ``analyse/idf.txt``, found without importing jieba."""
    spec = importlib.util.find_spec("jieba")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("jieba is not installed; its IDF table is the default")
    return Path(spec.origin).parent / "analyse" / "idf.txt"


def parse_idf(path: Path) -> tuple[dict[str, float], float]:
    """``(word -> IDF, median IDF)`` exactly as ``jieba.analyse.TFIDF(path)`` reads them."""
    table: dict[str, float] = {}
    for lineno, line in enumerate(path.read_bytes().decode("utf-8").splitlines(), 1):
        try:
            word, value = line.strip().split(" ")
            table[word] = float(value)
        except ValueError:
            raise ValueError(f"{path}:{lineno}: expected 'word idf', got {line[:80]!r}") from None
    if not table:
        raise ValueError(f"{path}: no IDF entries")
    return table, sorted(table.values())[len(table) // 2]


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "news-crawler"


def _cache_file(path: Path) -> Path:
    st = path.stat()
    key = hashlib.sha1(f"{path.resolve()}\0{st.st_size}\0{st.st_mtime_ns}".encode()).hexdigest()[:20]
    return cache_dir() / f"idf-{key}.bin"


def _read_cache(cached: Path) -> tuple[dict[str, float], float] | None:
    try:
        raw = cached.read_bytes()
    except OSError:
        return None
    if not raw.startswith(_MAGIC):
        return None
    head = len(_MAGIC)
    n_words, n_bytes = (
        int.from_bytes(raw[head : head + 8], "little"),
        int.from_bytes(raw[head + 8 : head + 16], "little"),
    )
    words = raw[head + 24 : head + 24 + n_bytes].decode("utf-8").split("\n")
    values = array.array("d")
    values.frombytes(raw[head + 24 + n_bytes :])
    if len(words) != n_words or len(values) != n_words + 1:
        return None  # truncated or foreign: parse the text instead
    return dict(zip(words, values)), values[-1]


def _write_cache(cached: Path, table: dict[str, float], median: float) -> None:
    words = "\n".join(table).encode("utf-8")
    values = array.array("d", table.values())
    values.append(median)
    header = len(table).to_bytes(8, "little") + len(words).to_bytes(8, "little") + bytes(8)
    cached.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=cached.parent, prefix=".idf-")
    with os.fdopen(fd, "wb") as f:
        f.write(_MAGIC + header + words + values.tobytes())
    os.replace(tmp, cached)


@functools.lru_cache(maxsize=8)
def load_idf(path: str | None = None) -> tuple[dict[str, float], float]:
    """``(word -> IDF, median IDF)`` of ``path`` (jieba's table when None). Shared: never change it."""
    source = Path(path) if path else jieba_idf_path()
    try:
        cached = _cache_file(source)
    except OSError:
        return parse_idf(source)  # the missing file's own error, from parse_idf
    loaded = _read_cache(cached)
    if loaded is not None:
        return loaded
    table, median = parse_idf(source)  # words never hold a line break: "\n" separates them in the cache
    try:
        _write_cache(cached, table, median)
    except OSError as e:
        logger.debug("IDF cache not written to %s: %s", cached, e)
    return table, median
