"""Copies that differ from their story by a writer's credit line above it, as portals make them.

Real sina stories of 120 to 600 characters (``NEWS_DATA``), each followed by a copy with a
credit line put above it: an outlet's reporter (``北京晨报记者 刘晨``, ``新华社记者蔡拥军``,
``■本报记者 李 明``), sometimes with where from (``发自北京``, ``北京报道``). Every original,
then every copy, decided in order by both rules in memory, as ``news-dedup check`` decides.
Printed: the copies dropped, the originals dropped, and how far the credit line moved the
simhash (mean, and how many copies stay within distance 3).

    python benchmarks/credit_lines.py [--stories 800] [--seed 3]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import load_articles  # noqa: E402

from news_crawler.dedup.fingerprint import Fingerprinter, UnusableText  # noqa: E402
from news_crawler.dedup.index import Document, MemoryStore, SentenceRule  # noqa: E402

OUTLETS = (
    "北京晨报",
    "澎湃新闻",
    "新京报",
    "本报",
    "成都商报-红星新闻",
    "辽沈晚报、聊沈客户端",
    "■本报",
    "广州日报全媒体",
)
NAMES = ("刘晨", "陈宇曦", "王小红", "张昆龙", "李 明", "欧阳晓东", "高鹏 李立")
WHERE = ("", " 发自北京", " 综合报道", " 北京报道")


def credit(rng: random.Random) -> str:
    outlet, name = rng.choice(OUTLETS + ("新华社",)), rng.choice(NAMES)
    if outlet == "新华社":  # Xinhua glues the names on
        return "新华社记者" + name.replace(" ", "、")
    return f"{outlet}记者 {name}{rng.choice(WHERE)}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--stories", type=int, default=800)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    stories = [a for a in load_articles() if 120 < len(a["body"]) < 600]
    rng.shuffle(stories)
    fingerprinter = Fingerprinter()
    originals, copies = [], []
    for n, story in enumerate(stories):
        if len(copies) == args.stories:
            break
        try:
            a = fingerprinter.fingerprint(story["body"])
        except UnusableText:
            continue
        b = fingerprinter.fingerprint(credit(rng) + "\n" + story["body"])
        originals.append(Document(f"o{n}", a.value, a.sentences, a.length))
        copies.append(Document(f"c{n}", b.value, b.sentences, b.length))
    decisions = MemoryStore(3, SentenceRule()).decide_many(originals + copies)
    dropped = sum(not d.kept for d in decisions[len(originals) :])
    false = sum(not d.kept for d in decisions[: len(originals)])
    moved = [bin(a.simhash ^ b.simhash).count("1") for a, b in zip(originals, copies)]
    print(
        f"{len(copies)} stories of 120 to 600 characters, each copied with a writer's credit line above it: "
        f"copies dropped {dropped}/{len(copies)}, originals dropped {false}; the credit line moved the simhash "
        f"{statistics.mean(moved):.2f} bits on average, {sum(d <= 3 for d in moved)} copies within distance 3"
    )


if __name__ == "__main__":
    main()
