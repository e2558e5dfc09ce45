"""Reprints as newsrooms make them, on short articles too: recall by kind of edit and by length,
and what is dropped that should not be.

Real sina articles (the full corpus, ``NEWS_DATA``) are the originals: every one under 500
characters of the first ``--articles``, and as many longer ones. Each original gets one copy
of one kind, drawn in turn:

- ``traditional``: the whole story in Taiwan's script and vocabulary (OpenCC s2twp)
- ``hongkong``: in Hong Kong's script (OpenCC s2hk)
- ``prefix``: a year put in front ("2019年" + the story), as a desk dates an old story
- ``abbreviated``: one long name shortened (a word of four characters or more loses two
  from its middle: 广州市人民检察院 -> 广州市检察院)
- ``trimmed``: the last paragraph cut (the last sentence, in a story of two paragraphs or fewer)
- ``mixed``: two of the edits above (the scripts aside) and three characters changed

The stream is every original, then every copy, decided in order as ``news-dedup check``
decides (the index in memory, the same rules). A copy is caught when it is dropped; recall
counts the copies that are near-duplicates by the quality benchmark's measure (character
5-gram Jaccard >= 0.8 with the original, on normalised text: a traditional copy is measured
in its simplified form), the others are reported apart. An original dropped is a false drop
when its Jaccard with the one it was dropped for is below 0.5.

    python benchmarks/newsroom_edits.py [--articles 3000] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import load_articles  # noqa: E402
from quality import jaccard, shingles  # noqa: E402

from news_crawler.dedup.fingerprint import Fingerprinter, UnusableText  # noqa: E402
from news_crawler.dedup.index import Document, MemoryStore, SentenceRule  # noqa: E402

KINDS = ("traditional", "hongkong", "prefix", "abbreviated", "trimmed", "mixed")
LIGHT = ("prefix", "abbreviated", "trimmed", "characters")
_WORD = re.compile(r"[\u4e00-\u9fff]{4,}")
_CHANGES = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动"


def opencc(config: str):
    import opencc as lib

    return lib.OpenCC(config)


def edit(body: str, kind: str, rng: random.Random) -> str:
    if kind == "traditional":
        return opencc("s2twp").convert(body)
    if kind == "hongkong":
        return opencc("s2hk").convert(body)
    if kind == "prefix":
        return f"{rng.randint(2015, 2020)}年" + body
    if kind == "abbreviated":
        words = [m for m in _WORD.finditer(body)]
        if not words:
            return body[:-2]
        m = rng.choice(words)
        cut = m.start() + len(m.group()) // 2 - 1
        return body[:cut] + body[cut + 2 :]
    if kind == "trimmed":  # the last paragraph, or the last sentence of a story of two paragraphs or fewer
        lines = body.rstrip().split("\n")
        if len(lines) > 2:
            return "\n".join(lines[:-1])
        sentences = re.split(r"(?<=[。！？])", body.rstrip())
        return "".join(s for s in sentences if s)[: -len(sentences[-2]) or None] if len(sentences) > 2 else body
    if kind == "characters":
        chars = list(body)
        for _ in range(3):
            i = rng.randrange(len(chars))
            if "\u4e00" <= chars[i] <= "\u9fff":
                chars[i] = rng.choice(_CHANGES)
        return "".join(chars)
    for step in rng.sample(LIGHT[:3], 2) + ["characters"]:  # mixed
        body = edit(body, step, rng)
    return body


def bucket(length: int) -> str:
    return "<300" if length < 300 else "300-500" if length < 500 else "500+"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--articles", type=int, default=3000, help="originals: the short ones of this many, as many long")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    articles = load_articles(args.articles)
    short = [a for a in articles if len(a["body"]) < 500]
    long = [a for a in articles if len(a["body"]) >= 500][: len(short)]
    originals = short + long
    copies = [(i, KINDS[i % len(KINDS)]) for i in range(len(originals))]
    fingerprinter, rule = Fingerprinter(), SentenceRule()
    docs, started = [], time.perf_counter()
    texts = [a["body"] for a in originals] + [edit(originals[i]["body"], k, rng) for i, k in copies]
    for n, text in enumerate(texts):
        try:
            f = fingerprinter.fingerprint(text)
        except UnusableText:
            docs.append(None)
            continue
        docs.append(Document(str(n), f.value, f.sentences, f.length))
    spent = time.perf_counter() - started
    store = MemoryStore(3, rule)
    decided = {d.id: store.decide(d.id, d.simhash, d.sentences, d.length) for d in docs if d is not None}
    caught: dict[str, list[int]] = defaultdict(list)
    looser: dict[str, int] = defaultdict(int)  # copies edited past J 0.8: not counted
    by_length: dict[str, list[int]] = defaultdict(list)
    for j, (i, kind) in enumerate(copies):
        decision = decided.get(str(len(originals) + j))
        hit = int(decision is not None and not decision.kept)
        copy = texts[len(originals) + j]
        if kind in ("traditional", "hongkong"):  # measured in simplified script, as a reader would compare them
            copy = opencc("hk2s").convert(opencc("tw2sp").convert(copy))
        if jaccard(shingles(originals[i]["body"]), shingles(copy)) < 0.8:
            looser[kind] += 1
            continue
        caught[kind].append(hit)
        if kind not in ("traditional", "hongkong"):
            by_length[bucket(len(originals[i]["body"]))].append(hit)
    false_drops = unusable = 0
    for n in range(len(originals)):
        decision = decided.get(str(n))
        if decision is None:
            unusable += 1
        elif not decision.kept:
            other = int(decision.duplicate_of)
            if jaccard(shingles(texts[n]), shingles(texts[other])) < 0.5:
                false_drops += 1
    total = [h for hits in caught.values() for h in hits]
    print(f"{len(originals)} originals ({len(short)} under 500 characters), {len(copies)} copies; "
          f"fingerprints {len(texts) / spent:.0f}/s")  # fmt: skip
    print(f"recall {sum(total) / len(total):.3f}")
    for kind in KINDS:
        print(
            f"  {kind:<12} {sum(caught[kind]) / len(caught[kind]):.3f} ({len(caught[kind])}; {looser[kind]} past J 0.8)"
        )
    for name in ("<300", "300-500", "500+"):
        hits = by_length[name]
        print(f"  simplified copies {name:<8} {sum(hits) / len(hits):.3f} ({len(hits)})")
    print(f"false drops {false_drops} of {len(originals)} originals; unusable {unusable}")


if __name__ == "__main__":
    import logging

    logging.getLogger("jieba").setLevel(logging.WARNING)
    main()
