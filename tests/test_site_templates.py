"""Real stories on the fifty-seven kinds of site of ``benchmarks/site_templates.py``,
``benchmarks/more_site_templates.py``, ``benchmarks/markup_templates.py``,
``benchmarks/cms_templates.py`` and ``benchmarks/headline_templates.py`` (a one-table older
CMS in GBK, a county site without a charset, a government portal, portals, a mobile page, a
self-media article, a forum portal, JSON-LD and microdata, DedeCMS, WordPress, a word
processor's paste, a page without ``<h1>``...): every page gives the story as its body, the
headline, the byline's writer and the byline's time, and every copy after the first is
dropped as a near-duplicate of the first."""

import random
import re
import sys
from pathlib import Path

import pytest

from news_crawler.dedup.fingerprint import Fingerprinter
from news_crawler.dedup.index import MemoryStore, SentenceRule
from news_crawler.extraction import extract_article
from news_crawler.extraction.decode import decode_html

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from cross_site import lines_of, similarity  # noqa: E402
from headline_templates import ALL as TEMPLATES  # noqa: E402


@pytest.fixture(scope="module")
def stories(sina_articles):
    return [a for a in sina_articles if len(a["body"]) > 300][:12]


def test_every_kind_of_site_gives_body_writer_and_time(stories):
    rng = random.Random(5)
    misses = []
    for n, story in enumerate(stories):
        lines = lines_of(story["body"])
        others = [stories[(n + k) % len(stories)]["title"] for k in (1, 2, 3, 4, 5, 6)]
        for name, template in TEMPLATES.items():
            raw, want = template(story["title"], lines, others, rng)
            article = extract_article(decode_html(raw)[0])
            numbers = [int(x) for x in re.findall(r"\d+", article.published_at)][: len(want["time"])]
            if (
                similarity(article.body, want["text"]) < 0.95
                or (want["author"] and article.author != want["author"])
                or numbers != want["time"]
                or article.title != story["title"]
            ):
                misses.append((name, n, article.author, want["author"], article.published_at))
    assert not misses, misses


def test_copies_on_other_sites_are_dropped_and_the_first_kept(stories):
    rng = random.Random(6)
    fingerprinter, store = Fingerprinter(), MemoryStore(sentences=SentenceRule())
    kept = []
    for n, story in enumerate(stories):
        lines = lines_of(story["body"])
        others = [stories[(n + k) % len(stories)]["title"] for k in (1, 2, 3, 4, 5, 6)]
        for name, template in TEMPLATES.items():
            body = extract_article(decode_html(template(story["title"], lines, others, rng)[0])[0]).body
            fp = fingerprinter.fingerprint(body)
            decision = store.decide(f"{name}/{n}", fp.value, fp.sentences, fp.length)
            if decision.kept:
                kept.append(decision.id)
            else:
                assert decision.duplicate_of.endswith(f"/{n}"), (decision.id, decision.duplicate_of)
    assert kept == [f"government/{n}" for n in range(len(stories))]
