"""``check``'s workers give what one process gives, in input order, whether they are forked
(Linux) or spawned (where there is no fork: the fingerprinter travels pickled)."""

import json
import multiprocessing
import pickle

import pytest

from news_crawler.cli import check_workers
from news_crawler.cli.check import parse_line
from news_crawler.cli.check_workers import chunks, parse_in_workers
from news_crawler.dedup.fingerprint import Fingerprinter


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_workers_parse_in_input_order(monkeypatch, sina_articles, method):
    monkeypatch.setattr(check_workers, "_context", lambda: multiprocessing.get_context(method))
    before = set(multiprocessing.active_children())  # other tests' pools in this process
    lines = [
        json.dumps({"id": str(n), "body": a["body"]}, ensure_ascii=False).encode()
        for n, a in enumerate(sina_articles[:120])
    ] + [b"not json"]
    fingerprinter = Fingerprinter()
    expected = [parse_line(line, n, fingerprinter) for n, line in enumerate(lines, 1)]
    parsed = [row for batch in parse_in_workers(chunks(lines, 16), Fingerprinter(), parse_line, 2) for row in batch]
    assert parsed == expected
    # The pool has ended with the input: no worker left for Python's exit to race with.
    assert set(multiprocessing.active_children()) - before == set()


def test_a_fingerprinter_survives_pickling_with_the_same_answers(sina_articles):
    fingerprinter = Fingerprinter()
    body = sina_articles[0]["body"]
    copy = pickle.loads(pickle.dumps(fingerprinter))
    assert copy.fingerprint(body) == fingerprinter.fingerprint(body)
