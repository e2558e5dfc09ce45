"""Where the real saved pages and corpora live.

``data/`` in the repository holds the excerpt the mirror, the demo and the tests use (each
file gzipped; ``data/README.md`` names the sources and licences). The full data sets, which
only benchmarks read, are at ``$NEWS_DATA`` (default ``../shared/data`` beside the checkout).
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHIPPED = REPO / "data"
NEWS_DATA = Path(os.environ.get("NEWS_DATA") or REPO.parent / "shared" / "data")


class Data:
    """One copy of the data: the shipped excerpt or the full sets, read alike (a file may
    be gzipped, as ``name.gz``)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.gne = root / "pages" / "gne"
        self.cwced = root / "pages" / "cwced"
        self.sina_corpus = root / "sina2018" / "articles.jsonl.gz"
        self.sina_pairs = root / "sina2018" / "neardup_pairs.json"

    def exists(self) -> bool:
        return (self.root / "pages").is_dir()

    def page(self, folder: Path, name: str) -> bytes:
        """The bytes of the saved page ``name`` of ``folder`` (``name.gz`` where gzipped)."""
        path = folder / name
        if path.exists():
            return path.read_bytes()
        return gzip.decompress((folder / f"{name}.gz").read_bytes())

    def pages(self, folder: Path) -> list[tuple[str, bytes]]:
        """``(name, bytes)`` of every saved page under ``folder``, by name."""
        out = [(str(p.relative_to(folder)), p.read_bytes()) for p in folder.rglob("*.html")]
        out += [(str(p.relative_to(folder))[:-3], gzip.decompress(p.read_bytes())) for p in folder.rglob("*.html.gz")]
        return sorted(out)

    def gne_manifest(self) -> list[dict[str, Any]]:
        return list(json.loads((self.gne / "manifest.json").read_text(encoding="utf-8")))

    def cwced_labels(self) -> list[dict[str, Any]]:
        path = self.cwced / "labels.json"
        text = path.read_bytes() if path.exists() else gzip.decompress((self.cwced / "labels.json.gz").read_bytes())
        return list(json.loads(text))

    def require(self) -> Data:
        """This copy, or a clear exit saying where the data is expected."""
        if not self.exists():
            raise SystemExit(f"real data not found at {self.root}: set NEWS_DATA to the full data sets")
        return self


SHIPPED_DATA = Data(SHIPPED)
FULL_DATA = Data(NEWS_DATA)
