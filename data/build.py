"""Rebuild this folder's excerpt from the full real data (``$NEWS_DATA``, by default
``../shared/data`` beside the checkout): the saved pages the mirror, the demo and the tests
use, each gzipped, and the first articles of the sina corpus with the near-duplicate pairs
the dedup demo shows. Run by hand when the excerpt should change:

    python data/build.py
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = Path(os.environ.get("NEWS_DATA") or HERE.parents[1] / "shared" / "data")
# The portals the mirror serves from the gne pages; the rest of the gne pages are those we labelled.
MIRROR_SITES = {"163", "sina", "thepaper", "ifeng", "qq", "people", "xinhuanet", "huanqiu"}
ARTICLES = 800  # the first non-empty sina articles (the tests read at most the first 700)
PAIRS = 60  # the near-duplicate pairs the dedup demo shows


def write_gz(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # mtime=0: the same bytes give the same file, so a rebuild changes nothing in git
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as f:
        f.write(data)


def pages() -> None:
    gne, cwced = SOURCE / "pages" / "gne", SOURCE / "pages" / "cwced"
    labelled = {x["page"] for x in json.loads((HERE.parent / "benchmarks" / "labels" / "gne.json").read_text())}
    manifest = [
        m
        for m in json.loads((gne / "manifest.json").read_text(encoding="utf-8"))
        if m["site"] in MIRROR_SITES or m["path"] in labelled
    ]
    out = HERE / "pages" / "gne"
    shutil.rmtree(out, ignore_errors=True)
    for m in manifest:
        write_gz(out / (m["path"] + ".gz"), (gne / m["path"]).read_bytes())
    (out / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    shutil.copy(gne / "LICENSE", out / "LICENSE")
    out = HERE / "pages" / "cwced"
    shutil.rmtree(out, ignore_errors=True)
    labels = json.loads((cwced / "labels.json").read_text(encoding="utf-8"))
    for x in labels:
        write_gz(out / (x["html"] + ".gz"), (cwced / x["html"]).read_bytes())
    write_gz(out / "labels.json.gz", json.dumps(labels, ensure_ascii=False, indent=1).encode())
    shutil.copy(cwced / "LICENSE", out / "LICENSE")


def sina() -> None:
    pairs = json.loads((SOURCE / "sina2018" / "neardup_pairs.json").read_text())["near_pairs"][:PAIRS]
    wanted = {i for a, b, *_ in pairs for i in (a, b)}
    lines, first = [], 0
    with gzip.open(SOURCE / "sina2018" / "articles.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            a = json.loads(line)
            if first < ARTICLES and a["body"].strip():
                first += 1
                lines.append(line)
            elif a["id"] in wanted:
                lines.append(line)
    out = HERE / "sina2018"
    out.mkdir(exist_ok=True)
    write_gz(out / "articles.jsonl.gz", "".join(lines).encode())
    (out / "neardup_pairs.json").write_text(json.dumps({"near_pairs": pairs}) + "\n")


if __name__ == "__main__":
    if not (SOURCE / "pages").is_dir():
        sys.exit(f"full data not found at {SOURCE}: set NEWS_DATA to it")
    pages()
    sina()
    print(f"excerpt rebuilt from {SOURCE}")
