"""rjieba where it gives jieba's words exactly, jieba otherwise: the fingerprint never
depends on the backend. Checked on real articles, against ``simhash.Simhash``."""

import gzip
import json
import logging
from itertools import islice

import pytest
import simhash

from news_crawler.dedup.fingerprint import Fingerprinter
from tests.conftest import DATA

ARTICLES = 800


@pytest.fixture(scope="module")
def bodies():
    """The first 800 non-empty sina articles (as many as the repository holds)."""
    with gzip.open(DATA.sina_corpus, "rt", encoding="utf-8") as f:
        return list(islice((a["body"] for a in map(json.loads, f) if a["body"].strip()), ARTICLES))


def test_both_backends_give_the_same_words_and_simhash_on_800_real_articles(bodies):
    fast, reference = Fingerprinter(segmenter="rjieba"), Fingerprinter(segmenter="jieba")
    assert (fast.weigher.segment.backend, reference.weigher.segment.backend) == ("rjieba", "jieba")
    differ = compared = 0
    for body in bodies:
        text = fast.prepare(body)[0]
        words = fast.weigher.words(text)
        differ += words != reference.weigher.words(text)
        features = fast.weigher.weigh(words)
        if features:
            expected = simhash.Simhash(features, f=64).value
            assert fast.fingerprint(body).value == reference.fingerprint(body).value == expected
            compared += 1
    assert len(bodies) == ARTICLES and differ == 0 and compared > 0.99 * ARTICLES


def test_auto_falls_back_to_jieba_where_rjieba_is_not_exact_and_says_why(tmp_path, caplog):
    assert Fingerprinter().weigher.segment.backend == "rjieba"
    user_dict = tmp_path / "user.txt"
    user_dict.write_text("新冠肺炎 100 n\n", encoding="utf-8")
    with caplog.at_level(logging.INFO, logger="news_crawler.dedup.fingerprint.segment"):
        assert Fingerprinter(hmm=True).weigher.segment.backend == "jieba"
        with_dict = Fingerprinter(user_dict=user_dict)
    assert with_dict.weigher.segment.backend == "jieba"
    assert "新冠肺炎" in with_dict.weigher.words("新冠肺炎疫情")  # the user dictionary is used
    assert "the HMM is on" in caplog.text and "a user dictionary is set" in caplog.text


def test_rjieba_is_refused_where_it_would_not_be_exact():
    with pytest.raises(ValueError, match="cannot reproduce jieba's words when the HMM is on"):
        Fingerprinter(hmm=True, segmenter="rjieba")
    with pytest.raises(ValueError, match="use one of auto, jieba, rjieba"):
        Fingerprinter(segmenter="thulac")
