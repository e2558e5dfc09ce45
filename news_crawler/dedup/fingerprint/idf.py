"""IDF tables: jieba's own (read from its package data, without importing jieba.analyse,
which loads far more than the table) or a file in jieba's format, read once per process.

A process needs the IDF of the words it meets, not a dict of the whole table: building one
of jieba's 270,000 words took 70 ms, a fifth of a short ``news-dedup check``. So the parsed
table is kept in the user's cache directory as its values and its words, sorted, in
fixed-width UTF-32, and mapped into memory: nothing is parsed or built at start-up, the
processes of a pool share the pages, and a batch of words is looked up by one binary search
in numpy (the words of 1,500 articles in about 30 ms, spread over the workers). The cache
is keyed by the source file's path, size and modification time, written atomically, with
its format in its first line; when it cannot be read or written the table is held in memory
in the same arrays.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import logging
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)
_MAGIC = b"news-crawler idf 2\n"
_HEADER = 64  # the magic, then the count, the width in characters and the median; zero-padded
_VALUES = np.dtype("<f8")


def jieba_idf_path() -> Path:
    """jieba's ``analyse/idf.txt``, found without importing jieba."""
    spec = importlib.util.find_spec("jieba")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("jieba is not installed; its IDF table is the default")
    return Path(spec.origin).parent / "analyse" / "idf.txt"


class IdfTable:
    """word -> IDF over sorted arrays; the median IDF for a word the table lacks."""

    def __init__(self, words: np.ndarray, values: np.ndarray, median: float, source: Path) -> None:
        self.words = words  # sorted, fixed-width unicode
        self.values = values
        self.median = median
        self.source = source

    @classmethod
    def from_dict(cls, table: dict[str, float], median: float, source: Path) -> IdfTable:
        words = np.array(list(table), dtype=str)
        order = np.argsort(words)  # numpy's order of its strings, which its binary search follows
        return cls(words[order], np.fromiter(table.values(), dtype=_VALUES, count=len(table))[order], median, source)

    def __len__(self) -> int:
        return len(self.words)

    def __reduce__(self) -> tuple[object, tuple[str]]:
        """A spawned worker maps the table again rather than receiving a copy."""
        return load_idf, (str(self.source),)

    def lookup(self, words: Sequence[str]) -> np.ndarray:
        """The IDF of each of ``words``, as float64."""
        if not words:
            return np.empty(0, dtype=_VALUES)
        asked = np.array(words, dtype=str)
        known = np.ones(len(words), dtype=bool)
        if asked.dtype.itemsize > self.words.dtype.itemsize:  # longer than any word of the table
            known = np.char.str_len(asked) * 4 <= self.words.dtype.itemsize
            asked = asked.astype(self.words.dtype)  # cut, but those are not looked up
        at = np.minimum(np.searchsorted(self.words, asked), len(self.words) - 1)
        known &= self.words[at] == asked
        return np.where(known, self.values[at], self.median)


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
    """``idf-<the file's path>-<its size and time>.bin``, hashed: a table edited since gets
    a cache of its own, which replaces the one before (``_write_cache``)."""
    st = path.stat()
    place = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:12]
    version = hashlib.sha1(f"{st.st_size}\0{st.st_mtime_ns}".encode()).hexdigest()[:12]
    return cache_dir() / f"idf-{place}-{version}.bin"


def _read_cache(cached: Path, source: Path) -> IdfTable | None:
    try:
        with cached.open("rb") as f:
            head = f.read(_HEADER)
    except OSError:
        return None
    if len(head) < _HEADER or not head.startswith(_MAGIC):
        return None  # another format, or cut short: parse the text instead
    at = len(_MAGIC)
    count, width = (int.from_bytes(head[at + 8 * i : at + 8 * i + 8], "little") for i in range(2))
    median = float(np.frombuffer(head, dtype=_VALUES, count=1, offset=at + 16)[0])
    words_at = _HEADER + 8 * count
    if not count or not width or cached.stat().st_size != words_at + 4 * width * count:
        return None
    try:
        mapped = np.memmap(cached, dtype=np.uint8, mode="r")
    except (OSError, ValueError):  # replaced or cut since
        return None
    values = mapped[_HEADER:words_at].view(_VALUES)
    words = mapped[words_at:].view(f"<U{width}")
    return IdfTable(words, values, median, source)


def _write_cache(cached: Path, table: IdfTable) -> None:
    header = _MAGIC + len(table).to_bytes(8, "little") + (table.words.dtype.itemsize // 4).to_bytes(8, "little")
    header += np.array([table.median], dtype=_VALUES).tobytes()
    cached.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=cached.parent, prefix=".idf-")
    with os.fdopen(fd, "wb") as f:
        f.write(header.ljust(_HEADER, b"\0"))
        f.write(table.values.astype(_VALUES).tobytes())
        f.write(table.words.astype(f"<U{table.words.dtype.itemsize // 4}").tobytes())
    os.replace(tmp, cached)
    for stale in cached.parent.glob(cached.name.rsplit("-", 1)[0] + "-*.bin"):  # the same table, edited since
        if stale != cached:
            stale.unlink(missing_ok=True)


@functools.lru_cache(maxsize=8)
def load_idf(path: str | None = None) -> IdfTable:
    """The IDF table of ``path`` (jieba's when None). Shared: never change it."""
    source = Path(path) if path else jieba_idf_path()
    try:
        cached = _cache_file(source)
    except OSError:
        return IdfTable.from_dict(*parse_idf(source), source)  # the missing file's own error, from parse_idf
    loaded = _read_cache(cached, source)
    if loaded is not None:
        return loaded
    table = IdfTable.from_dict(*parse_idf(source), source)
    try:
        _write_cache(cached, table)
    except OSError as e:
        logger.debug("IDF cache not written to %s: %s", cached, e)
    return table
