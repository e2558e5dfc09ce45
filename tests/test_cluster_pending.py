"""The spread index sends a round's calls at once and begins each next batch while the
worker decides the one it claimed (``spread_pending.py``): on a real three-master cluster,
those calls survive masters that lost their scripts, and a run that fails leaves no
connection behind with a reply unread."""

from __future__ import annotations

import random

import pytest

from news_crawler.index import Document, RedisStore, SentenceRule
from news_crawler.index import spread_claim, spread_store
from news_crawler.index.spread_pending import SentCalls
from news_crawler.index.spread_store import SpreadStore


def _docs(n: int, seed: int) -> list[Document]:
    rng, docs = random.Random(seed), []
    for i in range(n):
        if docs and rng.random() < 0.4:  # a copy of an earlier one, by either rule
            src = rng.choice(docs)
            flips = sum(1 << b for b in rng.sample(range(64), rng.choice((1, 2, 9))))
            docs.append(Document(f"d{i}", src.simhash ^ flips, src.sentences, src.length))
        else:
            docs.append(Document(f"d{i}", rng.getrandbits(64), tuple(rng.getrandbits(24) for _ in range(4)), 100))
    return docs + docs[:10]  # and replays


def test_a_rounds_calls_sent_to_masters_that_lost_their_scripts_are_made_again(cluster, cluster_client, redis_client,
                                                                           monkeypatch):
    """Every master's scripts are flushed just before each round's calls are sent (the
    claims, the next batch's beginning, the record of the batch before): they come back
    refused, are made again in their order with the scripts loaded, and every decision is
    the one server's."""
    sent = []

    def flushed_first(client, calls):
        cluster_client.script_flush()  # every master
        sent.append(calls)
        return SentCalls(client, calls)

    monkeypatch.setattr(spread_store, "SentCalls", flushed_first)
    monkeypatch.setattr(spread_claim, "SentCalls", flushed_first)
    docs, rule = _docs(300, 1), SentenceRule()
    spread = SpreadStore(cluster_client, "flushed", sentences=rule, batch_size=20).decide_many(docs)
    # Each next batch begun after the claims, then the record of the batch before (none in the first round).
    ends = [[call[0].name for call in c][-2:] for c in sent]
    assert len(sent) >= 15 and ends[0][-1] == "decided" and all(e == ["decided", "finish"] for e in ends[1:-1]), ends
    assert spread == RedisStore(redis_client, "flushed", sentences=rule, batch_size=20).decide_many(docs)
    assert {d.rule for d in spread} == {None, "simhash", "sentences"}


def test_a_run_that_fails_leaves_no_connection_waiting_for_a_reply(cluster, cluster_client, redis_client):
    """A run stopped when its next batch's beginning is still unread gives that connection
    up: the master's connections do not grow run after run, and the next run (on other
    articles) decides as one server."""

    class Failing(SpreadStore):
        def _begun(self, first, begun):
            if begun:  # the round after the first: a beginning was sent ahead
                raise RuntimeError("stopped")
            return super()._begun(first, begun)

    rule = SentenceRule()
    docs, later = _docs(100, 2), _docs(200, 3)
    later = [Document("l" + d.id, d.simhash, d.sentences, d.length) for d in later]
    SpreadStore(cluster_client, "failing", sentences=rule, batch_size=20).decide_many(docs)
    ids_master = cluster_client.get_node_from_key(SpreadStore(cluster_client, "failing").id_prefix)

    def connections() -> int:
        return len(cluster_client.client_list(target_nodes=ids_master))

    before = connections()
    rng = random.Random(4)
    for run in range(3):  # unrelated articles (their first batch is left claimed and unrecorded)
        stray = [Document(f"s{run}-{i}", rng.getrandbits(64), (), 100) for i in range(60)]
        with pytest.raises(RuntimeError, match="stopped"):
            Failing(cluster_client, "failing", sentences=rule, batch_size=20).decide_many(stray)
    assert connections() <= before
    spread = SpreadStore(cluster_client, "failing", sentences=rule, batch_size=20).decide_many(later)
    alone = RedisStore(redis_client, "failing", sentences=rule, batch_size=20)
    alone.decide_many(docs)
    assert spread == alone.decide_many(later)
