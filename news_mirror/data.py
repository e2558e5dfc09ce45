"""Where the real saved pages and corpora live: ``../shared/data`` beside the checkout,
or ``$NEWS_DATA``. The one definition of that path for the mirror, demos, tests and
benchmarks."""

from __future__ import annotations

import os
from pathlib import Path

DATA = Path(os.environ.get("NEWS_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
SINA_CORPUS = DATA / "sina2018" / "articles.jsonl.gz"
SINA_PAIRS = DATA / "sina2018" / "neardup_pairs.json"
GNE_PAGES = DATA / "pages" / "gne"
CWCED_PAGES = DATA / "pages" / "cwced"


def require(path: Path) -> Path:
    """``path`` if it exists, else a clear exit saying where the data is expected."""
    if not path.exists():
        raise SystemExit(
            f"real data not found at {path}: put the shared data folder beside the checkout or set NEWS_DATA to it"
        )
    return path
