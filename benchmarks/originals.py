"""Which copy of a story is kept (``DEDUP_ORIGINAL = "earliest"``): a stream of real articles
and their reprints, each reprint published hours after its original, half the pairs with the
reprint first in the stream, mixed with unique articles, decided in order by ``news-dedup
check`` (its parse and decide functions, a real Redis: the embedded server's binary on a
free port).

Originals are real sina articles (the full corpus, ``NEWS_DATA``); a reprint is one of the
newsroom edits (``newsroom_edits.py``: scripts, a year put in front, a name shortened, the
last paragraph cut, mixed light edits) with a 来源 line and an editor's credit, published 1 to
12 hours later. It prints, per order:

- reprint first: the pairs where the original is kept with ``supersedes`` naming its reprint;
- original first: the pairs where the reprint is dropped onto the original;

and the unique articles (and originals) that superseded anything not their own reprint.
Pairs whose reprint the engine does not call a near-duplicate of the original at all (recall,
measured by ``newsroom_edits.py``) are counted apart.

    ./run python benchmarks/originals.py [--pairs 2000] [--unique 2000] [--seed 12]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import EDITORS, SOURCES, load_articles  # noqa: E402
from newsroom_edits import KINDS, edit, opencc  # noqa: E402
from quality import jaccard, shingles  # noqa: E402

from news_crawler.cli.check import check  # noqa: E402
from news_crawler.dedup.fingerprint import Fingerprinter, UnusableText  # noqa: E402
from news_crawler.dedup.index import MemoryStore, RedisStore, SentenceRule  # noqa: E402

T0 = 1_528_000_000  # June 2018, as the corpus


def stamp(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(seconds))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--unique", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=12)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    # distinct articles only: the corpus holds natural reprints of its own, whose times here
    # would be made up
    fingerprinter, distinct = Fingerprinter(), MemoryStore(3, SentenceRule())
    articles = []
    for a in load_articles(2 * (args.pairs + args.unique)):
        try:
            f = fingerprinter.fingerprint(a["body"])
        except UnusableText:
            continue
        if len(a["body"]) >= 80 and distinct.decide(a["id"], f.value, f.sentences, f.length).kept:
            articles.append(a)
    rng.shuffle(articles)
    originals, unique = articles[: args.pairs], articles[args.pairs : args.pairs + args.unique]
    lines, first, looser = [], {}, 0
    for n, a in enumerate(originals):
        published = T0 + n * 600
        kind = KINDS[n % len(KINDS)]
        edited = edit(a["body"], kind, rng)
        if kind in ("traditional", "hongkong"):  # measured in simplified script, as newsroom_edits.py does
            plain = opencc("hk2s").convert(opencc("tw2sp").convert(edited))
        else:
            plain = edited
        if jaccard(shingles(a["body"]), shingles(plain)) < 0.8:
            looser += 1  # edited past what the quality benchmark calls a near-duplicate: not a pair
            continue
        copy = "\n".join([rng.choice(SOURCES), edited, rng.choice(EDITORS)])
        original = {"id": f"o{n}", "body": a["body"], "published_at": stamp(published)}
        reprint = {"id": f"r{n}", "body": copy, "published_at": stamp(published + rng.randint(3600, 12 * 3600))}
        first[n] = "reprint" if n % 2 else "original"
        lines.append([reprint, original] if n % 2 else [original, reprint])
    print(f"{len(first)} pairs ({looser} copies edited past 5-gram Jaccard 0.8 left out), {len(unique)} unique")
    for n, a in enumerate(unique):
        lines.append([{"id": f"u{n}", "body": a["body"], "published_at": stamp(T0 + rng.randint(0, args.pairs * 600))}])
    rng.shuffle(lines)
    # each pair's two lines apart in the stream, as two sites crawled hours apart
    stream = [group[0] for group in lines] + [group[1] for group in lines if len(group) > 1]

    from tests.redis_server import TestServer

    with tempfile.TemporaryDirectory() as tmp:
        server = TestServer(Path(tmp))
        try:
            store = RedisStore(server.client(), "originals", 3, sentences=SentenceRule())
            started = time.perf_counter()
            out = {
                row["id"]: row
                for row in check((json.dumps(x, ensure_ascii=False) for x in stream), Fingerprinter(), store)
            }
            spent = time.perf_counter() - started
        finally:
            server.stop()
    refused = [r for r in out.values() if "error" in r]
    print(f"{len(refused)} lines refused: {refused[:3]}")
    uncaught: dict[str, int] = {}  # by kind of edit
    right = {"reprint": 0, "original": 0}
    missed = {"reprint": 0, "original": 0}
    not_caught = {"reprint": 0, "original": 0}
    for n, order in list(first.items()):
        o, r = out[f"o{n}"], out[f"r{n}"]
        if "error" in o or "error" in r:  # a text with no words: no pair
            del first[n]
            continue
        if order == "reprint":
            if o.get("supersedes") == [f"r{n}"]:
                right[order] += 1
            elif o["duplicate_of"] is None and r["duplicate_of"] is None:
                not_caught[order] += 1  # two stories to the engine
                uncaught[KINDS[n % len(KINDS)]] = uncaught.get(KINDS[n % len(KINDS)], 0) + 1
            else:
                missed[order] += 1
        elif r["duplicate_of"] == f"o{n}":
            right[order] += 1
        elif r["duplicate_of"] is None:
            not_caught[order] += 1
            uncaught[KINDS[n % len(KINDS)]] = uncaught.get(KINDS[n % len(KINDS)], 0) + 1
        else:
            missed[order] += 1
    wrong = sorted(
        row["id"]
        for row in out.values()
        if row.get("supersedes") and (row["id"][0] == "u" or row["supersedes"] != ["r" + row["id"][1:]])
    )
    for order in ("reprint", "original"):
        pairs = sum(1 for v in first.values() if v == order) or 1
        what = "the original kept, superseding it" if order == "reprint" else "the reprint dropped onto the original"
        print(
            f"{order} first: {right[order]}/{pairs} ({right[order] / pairs:.3f}) {what}; "
            f"{not_caught[order]} reprints no near-duplicate of their original; {missed[order]} otherwise"
        )
    print(f"reprints no near-duplicate of their original, by edit: {uncaught}")
    shown = [(w, out[w]["supersedes"]) for w in wrong[:10]]
    print(f"superseding what is not its own reprint: {len(wrong)} {shown}")
    print(f"{len(stream)} lines in {spent:.1f} s ({len(stream) / spent:.0f}/s)")


if __name__ == "__main__":
    import logging

    logging.getLogger("jieba").setLevel(logging.WARNING)
    main()
