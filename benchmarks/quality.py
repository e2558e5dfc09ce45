"""Precision and recall of near-duplicate detection on the real sina corpus plus reprints.

Ground truth is character 5-gram Jaccard on normalised text: J >= 0.8 is a near-duplicate
pair, J < 0.5 a distinct pair, anything between is left out. Positive pairs are found by
MinHash LSH (20 bands of 4, which finds a pair of J = 0.8 with probability 0.99998) and
every pair any method puts within distance 6 is measured exactly, so both recall and
precision rest on exact Jaccard values.

The chosen fingerprint is measured alone (the simhash rule, "distance <= k") and with the
second signal (a pair also counts when it shares DEDUP_SENTENCE_MATCH of its longest
sentences within the sentence rule's distance and length ratio), natural pairs and pairs
involving a reprint apart; then the whole corpus goes through the index in order, as
``news-dedup check`` decides it, and every drop is judged by the Jaccard of the article and
the one it was dropped for.

    python benchmarks/quality.py [--reprints 2000] [--limit N] [--flatten] [--only-chosen] [--plot FILE.png]
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

from news_crawler.dedup.fingerprint import Fingerprinter, UnusableText, fingerprint  # noqa: E402
from news_crawler.dedup.fingerprint.sentences import longest_sentences, sentence_key, signature  # noqa: E402
from news_crawler.dedup.fingerprint.text import normalize  # noqa: E402
from news_crawler.dedup.fingerprint.weights import TfidfWeigher  # noqa: E402
from news_crawler.dedup.index import Document, MemoryStore, SentenceRule  # noqa: E402

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


def contained(a: np.ndarray, b: np.ndarray) -> float:
    """The share of the smaller set's shingles found in the other: near 1 for a text cut
    from the other (a brief of a longer story, a reprint that stops early)."""
    smaller = min(a.size, b.size)
    return np.intersect1d(a, b, assume_unique=True).size / smaller if smaller else 1.0


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


def sentence_pairs(docs: list[Document], rule: SentenceRule) -> set[tuple[int, int]]:
    """Pairs the sentence rule calls duplicates (shared keys, distance, length), ignoring order."""
    holders: dict[int, list[int]] = defaultdict(list)
    for i, d in enumerate(docs):
        if len(d.sentences) >= rule.match:
            for key in d.sentences:
                holders[key].append(i)
    shared: dict[tuple[int, int], int] = defaultdict(int)
    for members in holders.values():
        for x in range(len(members)):
            for y in range(x + 1, len(members)):
                shared[(members[x], members[y])] += 1
    slack = rule.length_slack
    return {
        (a, b)
        for (a, b), n in shared.items()
        if n >= rule.match
        and bin(docs[a].simhash ^ docs[b].simhash).count("1") <= rule.max_distance
        and abs(docs[a].length - docs[b].length) <= slack
    }


def precision_recall(found: set, positives: set, j: dict) -> tuple[float, float]:
    tp = len(found & positives)
    fp = sum(1 for p in found if j[p] < 0.5)
    return (tp / (tp + fp) if tp + fp else 1.0), tp / len(positives)


def in_order(
    docs: list[Document],
    rule: SentenceRule | None,
    k: int,
    sets: list[np.ndarray],
    positives: set,
    j: dict,
    own: set[tuple[int, int]],
    blocks: tuple[int, ...] = (16, 16, 16, 16),
) -> dict[str, float]:
    """Decide every document in corpus order in the index, as ``check`` does, and judge the
    drops: precision (drops whose article has J >= 0.8 with the one it was dropped for, or is
    a synthetic reprint dropped for its own original (``own``: a copy by construction, whose
    added credits and boilerplate may pull a short article's J below 0.5), of those and the
    drops with J < 0.5), recall (positive pairs whose later article was dropped), false drops
    (J < 0.5, not a reprint of its own original), per rule, and how many of those are cut
    copies (the shorter text's shingles 80% or more in the longer: ``contained``), which J
    alone calls distinct."""
    store = MemoryStore(k, rule, blocks=blocks)
    index = {d.id: i for i, d in enumerate(docs)}
    decisions = store.decide_many(docs)
    dropped = {i for i, d in enumerate(decisions) if not d.kept}
    good = bad = 0
    by_rule: dict[str, int] = defaultdict(int)
    for i, d in enumerate(decisions):
        if d.kept:
            continue
        other = index[d.duplicate_of]
        pair = (min(i, other), max(i, other))
        jv = j.get(pair)
        if jv is None:
            jv = j[pair] = jaccard(sets[pair[0]], sets[pair[1]])
        copy = pair in own
        good += jv >= 0.8 or copy
        bad += jv < 0.5 and not copy
        by_rule[d.rule] += 1
        by_rule[d.rule + " false"] += jv < 0.5 and not copy
        by_rule["own reprints under J 0.5"] += jv < 0.5 and copy
        by_rule["of the false, cut copies"] += jv < 0.5 and not copy and contained(sets[i], sets[other]) >= 0.8
    caught = sum(1 for a, b in positives if b in dropped)
    return {
        "precision": good / max(1, good + bad),
        "recall": caught / len(positives),
        "false drops": bad,
        "drops": len(dropped),
        **by_rule,
    }


def sentence_grid(
    chosen: Fingerprinter,
    prepared: list[str],
    docs: list[Document],
    pairs: dict,
    positives: set,
    natural: set,
    j: dict,
    sets: list[np.ndarray],
) -> None:
    """Pairwise precision / recall at k = 3 of simhash + the sentence rule under other
    settings: sentences kept per article (n), shared to match (m), simhash distance (D),
    size ratio (r, 0: none); and the n sentences with the smallest hashes instead of the
    longest (a min-hash sample of the sentence set)."""
    at3 = {p for p, d in pairs.items() if d <= 3}
    print("\nsentence rule settings, pairwise at k = 3 (P / R / natural R / false pairs):")
    for mode in ("longest", "smallest hash"):
        for n in (3, 4, 5, 6):
            if mode == "longest":
                keys = [signature(t, n, chosen.sentence_min_chars) for t in prepared]
            else:
                keys = [
                    tuple(sorted({sentence_key(x) for x in longest_sentences(t, 10**6, chosen.sentence_min_chars)})[:n])
                    for t in prepared
                ]
            for m in (2, 3, 4):
                if m > n:
                    continue
                for dist, ratio in ((64, 0), (24, 0), (16, 0.8), (24, 0.8), (64, 0.8)):
                    rule = SentenceRule(m, dist, ratio or 1e-9)
                    found = at3 | sentence_pairs([d._replace(sentences=k) for d, k in zip(docs, keys)], rule)
                    for p in found - j.keys():
                        j[p] = jaccard(sets[p[0]], sets[p[1]])
                    precision, recall = precision_recall(found, positives, j)
                    print(
                        f"  {mode:<13} n={n} m={m} D={dist:<2} r={ratio:<3}  {precision:.3f} / {recall:.3f} / "
                        f"{len(found & natural) / len(natural):.3f} / {sum(1 for p in found if j[p] < 0.5)}",
                        flush=True,
                    )


def plot(path: str, curves: dict[str, list[tuple[float, float]]], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for name, points in curves.items():
        ks = range(len(points))
        left.plot(ks, [p for p, _ in points], marker="o", label=name)
        right.plot(ks, [r for _, r in points], marker="o", label=name)
    for ax, what in ((left, "precision"), (right, "recall")):
        ax.set_xlabel("k (simhash distance)")
        ax.set_ylabel(what)
        ax.grid(alpha=0.3)
        ax.set_xticks(range(K_MAX + 1))
    left.axhline(0.98, color="grey", linestyle=":", linewidth=1)
    right.axhline(0.93, color="grey", linestyle=":", linewidth=1)
    right.legend(loc="lower right", fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot written to {path}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reprints", type=int, default=2000)
    ap.add_argument("--limit", type=int, default=None, help="use only the first N real articles")
    ap.add_argument("--seed", type=int, default=2018, help="which synthetic reprints (their random edits)")
    ap.add_argument(
        "--flatten",
        action="store_true",
        help="every body (reprints included) flattened to one line, as many corpora deliver text",
    )
    ap.add_argument("--only-chosen", action="store_true", help="measure the naive recipe and the chosen one only")
    ap.add_argument("--plot", help="write precision and recall against k, each rule, to this PNG (matplotlib)")
    ap.add_argument(
        "--sentence-grid",
        action="store_true",
        help="also measure other settings of the sentence rule, and sentences chosen by hash",
    )
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
    docs = with_reprints(real, args.reprints, args.seed)
    if args.flatten:  # the reprints' added lines too; a flattened text the engine refuses is left out
        docs = [{**d, "body": "".join(d["body"].split("\n"))} for d in docs]
    docs = docs[: len(real)] + [d for d in docs[len(real) :] if chosen.prepare(d["body"])[0].strip()]
    reprinted = [next(i for i, a in enumerate(real) if a["id"] == d["id"][:-2]) for d in docs[len(real) :]]
    print(
        f"corpus: {len(real)} real sina articles (those with text to fingerprint) + "
        f"{len(docs) - len(real)} synthetic reprints"
    )

    plain = TfidfWeigher(position_decay=0, max_word_share=1, hmm=True)
    slower_decay = TfidfWeigher(position_decay=15)
    faster_decay = TfidfWeigher(position_decay=4)
    decay_8 = TfidfWeigher(position_decay=8)
    lead_only = TfidfWeigher(max_word_share=1)
    cap_only = TfidfWeigher(position_decay=0)
    top20 = TfidfWeigher(top_k=20, position_decay=0, max_word_share=1, hmm=True)
    with_hmm = TfidfWeigher(hmm=True)
    prepared = [chosen.prepare(d["body"])[0] for d in docs]
    words = [chosen.weigher.words(t) for t in prepared]
    print(f"segmented in {time.time() - t0:.0f}s")

    variants = {
        "naive: extract_tags top-20": lambda i: (
            simhash.Simhash(jieba.analyse.extract_tags(docs[i]["body"], topK=20, withWeight=True), f=64).value
        ),
        "chosen (lead decay 10, cap 0.1, no HMM)": lambda i: fingerprint(chosen.weigher.weigh(words[i])),
        "lead decay 15 (slower)": lambda i: fingerprint(slower_decay.weigh(words[i])),
        "lead decay 8 (the default before)": lambda i: fingerprint(decay_8.weigh(words[i])),
        "lead decay 4 (faster)": lambda i: fingerprint(faster_decay.weigh(words[i])),
        "lead weight, no cap": lambda i: fingerprint(lead_only.weigh(words[i])),
        "plain TF-IDF, all words": lambda i: fingerprint(plain.features(prepared[i])),
        "plain TF-IDF, top-20": lambda i: fingerprint(top20.features(prepared[i])),
        "cap, no lead weight": lambda i: fingerprint(cap_only.weigh(words[i])),
        "chosen + title": lambda i: fingerprint(
            chosen.weigher.weigh(chosen.weigher.words(normalize(docs[i]["title"])) + words[i])
        ),
        "chosen, boilerplate kept": lambda i: fingerprint(chosen.weigher.features(normalize(docs[i]["body"]))),
        "chosen, with jieba HMM": lambda i: fingerprint(with_hmm.features(prepared[i])),
    }
    if args.only_chosen:
        variants = {name: f for name, f in variants.items() if name.startswith(("naive", "chosen ("))}
    fps = {name: np.array([f(i) for i in range(len(docs))], dtype=np.uint64) for name, f in variants.items()}
    print(f"fingerprinted {len(variants)} variants in {time.time() - t0:.0f}s")

    rule = SentenceRule()
    chosen_docs = []
    for _n, d in enumerate(docs):
        f = chosen.fingerprint(d["body"])
        chosen_docs.append(Document(d["id"], f.value, f.sentences, f.length))
    by_sentences = sentence_pairs(chosen_docs, rule)
    sets = [shingles(d["body"]) for d in docs]
    near = {name: close_pairs(v) for name, v in fps.items()}
    candidates = lsh_candidates(sets) | {p for pairs in near.values() for p in pairs} | by_sentences
    j = {p: jaccard(sets[p[0]], sets[p[1]]) for p in candidates}
    positives = {p for p, v in j.items() if v >= 0.8}
    synthetic = {p for p in positives if docs[p[1]]["id"].endswith("~r") or docs[p[0]]["id"].endswith("~r")}
    print(
        f"ground truth: {len(positives)} near-duplicate pairs (J >= 0.8), {len(synthetic)} involving a reprint;"
        f" {sum(v < 0.5 for v in j.values())} measured distinct pairs (J < 0.5); {time.time() - t0:.0f}s\n"
    )

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
    chosen_pairs = near["chosen (lead decay 10, cap 0.1, no HMM)"]
    at3 = {p for p, d in chosen_pairs.items() if d <= 3}
    natural = positives - synthetic
    own = {p for p in candidates if docs[p[1]].get("edits") and docs[p[1]]["id"] == docs[p[0]]["id"] + "~r"}
    fp3 = {p for p in at3 if j[p] < 0.5}
    print(
        f"\nchosen at k=3: recall on natural pairs {len(natural & at3) / len(natural):.3f} ({len(natural)} pairs), "
        f"on pairs involving a reprint {len(synthetic & at3) / len(synthetic):.3f} ({len(synthetic)} pairs)"
    )
    print(
        f"chosen at k=3: {len(fp3)} pairs with J < 0.5 within distance 3; {len(fp3 & own)} of them are an article "
        f"and its own synthetic reprint (a short article whose added credits and boilerplate pull J below 0.5)"
    )
    own_all = {(i, len(real) + n) for n, i in enumerate(reprinted)}
    for k in (3,):
        found = {p for p, d in chosen_pairs.items() if d <= k}
        hits = (found & positives) | (found & own_all)
        print(
            f"every (article, its reprint) pair counted as a near-duplicate whatever its J: recall of those at k={k} "
            f"{len(found & own_all) / len(own_all):.3f}; precision at k={k} with them as positives "
            f"{len(hits) / max(1, len(hits) + len({p for p in found if j[p] < 0.5} - own_all)):.3f}"
        )

    # The chosen fingerprint alone and with the second signal, natural and reprint pairs apart.
    print(
        f"\nsimhash alone and with the sentence rule (share {rule.match} of {chosen.sentence_count} longest "
        f"sentences, distance <= {rule.max_distance}, sizes within {rule.length_ratio}):"
    )
    print(f"{'rule':<28}" + "".join(f"   k={k} P / R  " for k in range(K_MAX + 1)) + "   natural R  reprint R (k=3)")
    curves = {}
    for name, extra in (("simhash alone", set()), ("simhash + sentences", by_sentences)):
        points = []
        for k in range(K_MAX + 1):
            found = {p for p, d in chosen_pairs.items() if d <= k} | extra
            points.append(precision_recall(found, positives, j))
        at3 = {p for p, d in chosen_pairs.items() if d <= 3} | extra
        curves[name] = points
        print(
            f"{name:<28}"
            + "".join(f" {p:6.3f} / {r:5.3f} " for p, r in points)
            + f"   {len(natural & at3) / len(natural):9.3f}  {len(synthetic & at3) / len(synthetic):9.3f}"
        )
    print("\nin order through the index, as `news-dedup check` decides (k = 3; the five-block layout at k = 3 and 4):")
    for name, r, k, blocks in (
        ("simhash alone", None, 3, (16, 16, 16, 16)),
        ("simhash + sentences", rule, 3, (16, 16, 16, 16)),
        ("16,12,12,12,12 k=3", rule, 3, (16, 12, 12, 12, 12)),
        ("16,12,12,12,12 k=4", rule, 4, (16, 12, 12, 12, 12)),
        ("16,12,12,12,12 k=4 alone", None, 4, (16, 12, 12, 12, 12)),
    ):
        m = in_order(chosen_docs, r, k, sets, positives, j, own_all, blocks)
        counts = {key: v for key, v in m.items() if key not in ("precision", "recall", "false drops", "drops")}
        print(
            f"  {name:<24} precision {m['precision']:.3f}  recall {m['recall']:.3f}  drops {m['drops']}  "
            f"false drops {m['false drops']} (1 per {len(docs) / max(1, m['false drops']):.0f} articles)  "
            + "  ".join(f"{key} {v}" for key, v in counts.items())
        )
    if args.sentence_grid:
        sentence_grid(chosen, prepared, chosen_docs, chosen_pairs, positives, natural, j, sets)
    if args.plot:
        plot(
            args.plot,
            curves,
            f"{len(docs)} articles ({len(docs) - len(real)} reprints)"
            + (", bodies flattened" if args.flatten else "")
            + f"; {len(positives)} near-duplicate pairs",
        )
    print(f"total {time.time() - t0:.0f}s")


if __name__ == "__main__":
    main()
