"""IDF tables: jieba's own (read from its package data, without importing jieba.analyse,
which loads far more than the table) or a file in jieba's format, read once per process."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path


def jieba_idf_path() -> Path:
    """jieba's ``analyse/idf.txt``, found without importing jieba."""
    spec = importlib.util.find_spec("jieba")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("jieba is not installed; its IDF table is the default")
    return Path(spec.origin).parent / "analyse" / "idf.txt"


@functools.lru_cache(maxsize=8)
def load_idf(path: str | None = None) -> tuple[dict[str, float], float]:
    """``(word -> IDF, median IDF)`` exactly as ``jieba.analyse.TFIDF(path)`` reads them:
    one ``word idf`` pair per line. The table is shared: never change it."""
    content = Path(path or jieba_idf_path()).read_bytes().decode("utf-8")
    table: dict[str, float] = {}
    for lineno, line in enumerate(content.splitlines(), 1):
        try:
            word, value = line.strip().split(" ")
            table[word] = float(value)
        except ValueError:
            raise ValueError(f"{path}:{lineno}: expected 'word idf', got {line[:80]!r}") from None
    if not table:
        raise ValueError(f"{path}: no IDF entries")
    return table, sorted(table.values())[len(table) // 2]
