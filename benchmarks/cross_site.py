"""The same real stories on fifty-seven sites of different kinds (``site_templates.py``,
``more_site_templates.py``, ``markup_templates.py``, ``cms_templates.py``,
``headline_templates.py``): what extraction gets right on each, and how many of the
reprints the index drops.

    python benchmarks/cross_site.py [--stories 200]

Each story (a real sina article, its paragraphs as lines) is published on every site,
each page with its own chrome and other stories' headlines around it. Every page is
extracted; per site it prints the share of bodies >= 0.95 similar to the story (difflib
ratio, whitespace ignored), of authors right (pages that name one), of times right (to the
minute, or the day where the page gives only a date) and headlines right. Then all pages, shuffled, are
decided through the index with the default fingerprint and both rules: reprints dropped
is the share of the four later copies of each story dropped as near-duplicates (a page
refused for an empty body is not dropped); distinct dropped
counts pages dropped as a copy of a story that is not a near-duplicate of theirs
(character 5-gram Jaccard of the stories < 0.5; the corpus has a few pairs of stories
told twice). The same decisions on the true texts show what extraction costs. With
``--edited`` every site but the first publishes the
story as a portal reprint (new headline, credit lines, edited characters, a sentence
dropped or added, truncation, boilerplate: ``corpus.reprint``), so that reprints dropped
measures the fingerprint too; the lines the edits add (credits, boilerplate) are left out
of a body's truth.
"""

from __future__ import annotations

import argparse
import difflib
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import BOILERPLATE, EDITORS, SOURCES, load_articles, reprint  # noqa: E402
from headline_templates import ALL as TEMPLATES  # noqa: E402

from news_crawler.dedup.fingerprint import Fingerprinter, UnusableText  # noqa: E402
from news_crawler.dedup.index.base import SentenceRule  # noqa: E402
from news_crawler.dedup.index.memory import MemoryStore  # noqa: E402
from news_crawler.extraction import extract_article  # noqa: E402
from news_crawler.extraction.decode import decode_html  # noqa: E402

# The credit and boilerplate lines a reprint adds (corpus.py): not the story, for the body's truth.
ADDED = {line for text in BOILERPLATE + EDITORS + SOURCES for line in text.split("\n")}
CREDIT = re.compile(r"^原标题[:：].{0,60}$")


def lines_of(body: str) -> list[str]:
    """A story's paragraphs, stripped, blank ones left out."""
    return [x.strip() for x in body.split("\n") if x.strip()]


def similarity(got: str, want: str) -> float:
    return difflib.SequenceMatcher(None, "".join(got.split()), "".join(want.split()), autojunk=False).ratio()


def jaccard(a: str, b: str) -> float:
    grams = [{t[i : i + 5] for i in range(len(t) - 4)} for t in ("".join(a.split()), "".join(b.split()))]
    return len(grams[0] & grams[1]) / max(1, len(grams[0] | grams[1]))


def dedup(pages: list[tuple[str, int, str]], texts: list[str], fingerprinter: Fingerprinter) -> tuple[int, list, int]:
    """(copies dropped as a near-duplicate, at most all but one of each story's; the pages
    dropped as copies of a distinct story (page, story named, Jaccard); pages refused),
    deciding (page id, story, text) in order; ``texts`` are the stories' true texts."""
    store = MemoryStore(sentences=SentenceRule())
    story_of = {page_id: story for page_id, story, _ in pages}
    copies = {story: 0 for _, story, _ in pages}
    for _, story, _ in pages:
        copies[story] += 1
    dropped = dict.fromkeys(copies, 0)
    wrong, refused = [], 0
    for page_id, story, text in pages:
        try:
            fp = fingerprinter.fingerprint(text)
        except UnusableText:
            refused += 1
            continue
        decision = store.decide(page_id, fp.value, fp.sentences, fp.length)
        if decision.kept:
            continue
        other = story_of[decision.duplicate_of]
        similar = jaccard(texts[other], texts[story])
        if other == story or similar >= 0.5:
            dropped[story] += 1
        else:
            wrong.append((page_id, other, round(similar, 3)))
    return sum(min(n, copies[s] - 1) for s, n in dropped.items()), wrong, refused


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stories", type=int, default=200)
    ap.add_argument("--misses", type=int, default=3, help="misses to show per site")
    ap.add_argument(
        "--edited",
        action="store_true",
        help="every site but the first publishes a reprint with portal edits (benchmarks/corpus.py)",
    )
    args = ap.parse_args()
    stories = [a for a in load_articles(args.stories * 3) if len(a["body"]) > 300][: args.stories]
    rng = random.Random(11)
    extracted, truth, texts, timings = [], [], [], []
    scores = {name: [0, 0, 0, 0, [], 0] for name in TEMPLATES}  # body, author, authors given, time, misses, headline
    for n, story in enumerate(stories):
        others = [stories[(n + k) % len(stories)]["title"] for k in (3, 5, 8, 13, 21, 34)]
        texts.append("\n".join(lines_of(story["body"])))
        for i, (name, template) in enumerate(TEMPLATES.items()):
            copy = reprint(story, stories[(n + 55) % len(stories)], rng) if args.edited and i else story
            lines = lines_of(copy["body"])
            raw, want = template(copy["title"], lines, others, rng)
            want["text"] = "\n".join(x for x in want["text"].split("\n") if x not in ADDED and not CREDIT.match(x))
            start = time.perf_counter()
            article = extract_article(decode_html(raw)[0])
            timings.append(time.perf_counter() - start)
            s = scores[name]
            sim = similarity(article.body, want["text"])
            got = [int(x) for x in re.findall(r"\d+", article.published_at)][: len(want["time"])]
            s[0] += sim >= 0.95
            s[1] += bool(want["author"]) and article.author == want["author"]
            s[2] += bool(want["author"])
            s[3] += got == want["time"]
            headline = article.title.split() == copy["title"].split()  # spaces as a browser shows them
            s[5] += headline
            if (
                sim < 0.95
                or (want["author"] and article.author != want["author"])
                or got != want["time"]
                or not headline
            ):
                s[4].append(
                    f"    story {n}: similarity {sim:.3f}, author {article.author!r} (want "
                    f"{want['author']!r}), time {article.published_at!r} (want {want['time']}), "
                    f"headline {article.title!r}"
                )
            page_id = f"{name}/{n}"
            extracted.append((page_id, n, article.body))
            truth.append((page_id, n, want["text"]))
    total = len(stories)
    print(f"{total} stories on {len(TEMPLATES)} sites, extraction {1000 * sum(timings) / len(timings):.1f} ms a page")
    for name, (body, author, given, when, misses, headline) in scores.items():
        authors = f"{author / given:.1%}" if given else "none given"
        print(
            f"  {name:<12} bodies >= 0.95 {body / total:.1%}, author {authors}, time {when / total:.1%}, "
            f"headline {headline / total:.1%}"
        )
        for line in misses[: args.misses]:
            print(line)
    order = list(range(len(extracted)))
    random.Random(5).shuffle(order)
    fingerprinter = Fingerprinter()
    copies = total * (len(TEMPLATES) - 1)
    for label, pages in (("extracted", extracted), ("true texts", truth)):
        dropped, wrong, refused = dedup([pages[i] for i in order], texts, fingerprinter)
        print(
            f"{label:<10}: reprints dropped {dropped}/{copies} = {dropped / copies:.1%}, "
            f"distinct dropped {len(wrong)} {wrong[: args.misses]}, refused {refused}"
        )


if __name__ == "__main__":
    main()
