"""Precision and recall of near-duplicate detection on the real sina corpus plus reprints.

Ground truth is character 5-gram Jaccard on normalised text: J >= 0.8 is a near-duplicate
pair, J < 0.5 a distinct pair, anything between is left out. Positive pairs are found by
MinHash LSH (20 bands of 4, which finds a pair of J = 0.8 with probability 0.99998) and
every pair any method puts within distance 6 is measured exactly, so both recall and
precision rest on exact Jaccard values.

    python benchmarks/quality.py [--reprints 2000] [--limit N] [--flatten] [--only-chosen]
"""

from __future__ import annotations

import argparse
import logging
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

import jieba
import jieba.analyse
import numpy as np
import simhash

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import load_articles, with_reprints  # noqa: E402

from news_crawler.fingerprint import Fingerprinter, UnusableText, fingerprint  # noqa: E402
from news_crawler.fingerprint.text import normalize  # noqa: E402
from news_crawler.fingerprint.weights import TfidfWeigher  # noqa: E402

K_MAX = 6
_NOT_TEXT = re.compile(r"\s+")
_MULT = np.uint64(0x9E3779B97F4A7C15)


def shingles(body: str) -> np.ndarray:
    """Hashed character 5-grams of the normalised body, without whitespace."""
    text = _NOT_TEXT.sub("", normalize(body))
    cp = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    if cp.size < 5:
        return np.unique(cp * _MULT)
    h = np.zeros(cp.size - 4, dtype=np.uint64)
    for j in range(5):
        h = h * _MULT + cp[j : cp.size - 4 + j]
    return np.unique(h)


def jaccard(a: np.ndarray, b: np.ndarray) -> float:
    inter = np.intersect1d(a, b, assume_unique=True).size
    return inter / (a.size + b.size - inter) if a.size + b.size else 1.0


def lsh_candidates(sets: list[np.ndarray], bands: int = 20, rows: int = 4) -> set[tuple[int, int]]:
    rng = np.random.default_rng(5)
    n = bands * rows
    a = rng.integers(1, 2**63, n, dtype=np.uint64) | np.uint64(1)
    b = rng.integers(0, 2**63, n, dtype=np.uint64)
    buckets: dict[tuple[int, bytes], list[int]] = defaultdict(list)
    for i, s in enumerate(sets):
        if s.size == 0:
            continue
        sig = (s[None, :] * a[:, None] + b[:, None]).min(axis=1)
        for band in range(bands):
            buckets[(band, sig[band * rows : (band + 1) * rows].tobytes())].append(i)
    pairs = set()
    for members in buckets.values():
        if len(members) > 1:
            for x in range(len(members)):
                for y in range(x + 1, len(members)):
                    pairs.add((members[x], members[y]))
    return pairs


def close_pairs(fps: np.ndarray, k: int = K_MAX) -> dict[tuple[int, int], int]:
    out = {}
    for i in range(len(fps) - 1):
        d = np.bitwise_count(fps[i + 1 :] ^ fps[i])
        for j in np.nonzero(d <= k)[0]:
            out[(i, i + 1 + int(j))] = int(d[j])
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reprints", type=int, default=2000)
    ap.add_argument("--limit", type=int, default=None, help="use only the first N real articles")
    ap.add_argument("--flatten", action="store_true",
                    help="every body (reprints included) flattened to one line, as many corpora deliver text")
    ap.add_argument("--only-chosen", action="store_true", help="measure the naive recipe and the chosen one only")
    args = ap.parse_args()
    logging.getLogger("jieba").setLevel(logging.WARNING)
    t0 = time.time()
    chosen = Fingerprinter()
    # Articles the engine refuses (nothing left once boilerplate is out) are left out for
    # every method: they would all share the empty fingerprint and pose as duplicates.
    usable = []
    articles = load_articles(args.limit)
    if args.flatten:
        articles = [{**a, "body": "".join(a["body"].split("\n"))} for a in articles]
    for a in articles:
        try:
            chosen.fingerprint(a["body"])
            usable.append(a)
        except UnusableText:
            pass
    real = usable
    docs = with_reprints(real, args.reprints)
    if args.flatten:  # the reprints' added lines too; a flattened text the engine refuses is left out
        docs = [{**d, "body": "".join(d["body"].split("\n"))} for d in docs]
    docs = docs[: len(real)] + [d for d in docs[len(real):] if chosen.prepare(d["body"])[0].strip()]
    reprinted = [next(i for i, a in enumerate(real) if a["id"] == d["id"][:-2]) for d in docs[len(real):]]
    print(f"corpus: {len(real)} real sina articles (those with text to fingerprint) + "
          f"{len(docs) - len(real)} synthetic reprints")

    plain = TfidfWeigher(position_decay=0, max_word_share=1, hmm=True)
    slower_decay = TfidfWeigher(position_decay=15)
    faster_decay = TfidfWeigher(position_decay=4)
    lead_only = TfidfWeigher(max_word_share=1)
    cap_only = TfidfWeigher(position_decay=0)
    top20 = TfidfWeigher(top_k=20, position_decay=0, max_word_share=1, hmm=True)
    with_hmm = TfidfWeigher(hmm=True)
    prepared = [chosen.prepare(d["body"])[0] for d in docs]
    words = [chosen.weigher.words(t) for t in prepared]
    print(f"segmented in {time.time() - t0:.0f}s")

    variants = {
        "naive: extract_tags top-20": lambda i: simhash.Simhash(
            jieba.analyse.extract_tags(docs[i]["body"], topK=20, withWeight=True), f=64).value,
        "chosen (lead decay 8, cap 0.1, no HMM)": lambda i: fingerprint(chosen.weigher.weigh(words[i])),
        "lead decay 15 (slower)": lambda i: fingerprint(slower_decay.weigh(words[i])),
        "lead decay 4 (faster)": lambda i: fingerprint(faster_decay.weigh(words[i])),
        "lead weight, no cap": lambda i: fingerprint(lead_only.weigh(words[i])),
        "plain TF-IDF, all words": lambda i: fingerprint(plain.features(prepared[i])),
        "plain TF-IDF, top-20": lambda i: fingerprint(top20.features(prepared[i])),
        "cap, no lead weight": lambda i: fingerprint(cap_only.weigh(words[i])),
        "chosen + title": lambda i: fingerprint(chosen.weigher.weigh(
            chosen.weigher.words(normalize(docs[i]["title"])) + words[i])),
        "chosen, boilerplate kept": lambda i: fingerprint(chosen.weigher.features(normalize(docs[i]["body"]))),
        "chosen, with jieba HMM": lambda i: fingerprint(with_hmm.features(prepared[i])),
    }
    if args.only_chosen:
        variants = {name: f for name, f in variants.items() if name.startswith(("naive", "chosen ("))}
    fps = {name: np.array([f(i) for i in range(len(docs))], dtype=np.uint64) for name, f in variants.items()}
    print(f"fingerprinted {len(variants)} variants in {time.time() - t0:.0f}s")

    sets = [shingles(d["body"]) for d in docs]
    near = {name: close_pairs(v) for name, v in fps.items()}
    candidates = lsh_candidates(sets) | {p for pairs in near.values() for p in pairs}
    j = {p: jaccard(sets[p[0]], sets[p[1]]) for p in candidates}
    positives = {p for p, v in j.items() if v >= 0.8}
    synthetic = {p for p in positives if docs[p[1]]["id"].endswith("~r") or docs[p[0]]["id"].endswith("~r")}
    print(f"ground truth: {len(positives)} near-duplicate pairs (J >= 0.8), {len(synthetic)} involving a reprint;"
          f" {sum(v < 0.5 for v in j.values())} measured distinct pairs (J < 0.5); {time.time() - t0:.0f}s\n")

    print(f"{'method':<42}" + "".join(f"   k={k} P / R  " for k in range(K_MAX + 1)))
    for name, pairs in near.items():
        row = []
        for k in range(K_MAX + 1):
            found = {p for p, d in pairs.items() if d <= k}
            tp = len(found & positives)
            fp = sum(1 for p in found if j[p] < 0.5)
            precision = tp / (tp + fp) if tp + fp else 1.0
            row.append(f"{precision:6.3f} / {tp / len(positives):5.3f}")
        print(f"{name:<42}" + "".join(f" {r} " for r in row))
    chosen_pairs = near["chosen (lead decay 8, cap 0.1, no HMM)"]
    at3 = {p for p, d in chosen_pairs.items() if d <= 3}
    natural = positives - synthetic
    own = {p for p in candidates if docs[p[1]].get("edits") and docs[p[1]]["id"] == docs[p[0]]["id"] + "~r"}
    fp3 = {p for p in at3 if j[p] < 0.5}
    print(f"\nchosen at k=3: recall on natural pairs {len(natural & at3) / len(natural):.3f} ({len(natural)} pairs), "
          f"on pairs involving a reprint {len(synthetic & at3) / len(synthetic):.3f} ({len(synthetic)} pairs)")
    print(f"chosen at k=3: {len(fp3)} pairs with J < 0.5 within distance 3; {len(fp3 & own)} of them are an article "
          f"and its own synthetic reprint (a short article whose added credits and boilerplate pull J below 0.5)")
    own_all = {(i, len(real) + n) for n, i in enumerate(reprinted)}
    for k in (3,):
        found = {p for p, d in chosen_pairs.items() if d <= k}
        print(f"every (article, its reprint) pair counted as a near-duplicate whatever its J: recall of those at k={k} "
              f"{len(found & own_all) / len(own_all):.3f}; precision at k={k} with them as positives "
              f"{len((found & positives) | (found & own_all)) / max(1, len((found & positives) | (found & own_all)) + len({p for p in found if j[p] < 0.5} - own_all)):.3f}")
    print(f"total {time.time() - t0:.0f}s")


if __name__ == "__main__":
    main()
