"""On a real three-master Redis Cluster (valkey-server, cluster mode): the client is found
from any node, a crawl and its re-crawl work, check decides as on one server, and
concurrent writers keep no two near-duplicates."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
from collections import Counter

import pytest

from news_crawler import connection
from news_crawler.config import plain_settings
from news_crawler.engine import store_from_settings
from news_crawler.fingerprint import UnusableText
from news_crawler.index import Document, MemoryStore, RedisStore, SentenceRule
from news_crawler.index.base import id_key
from news_crawler.index.drop_records import read_records
from news_crawler.index.kept_ids import id_hash, short_ref
from news_crawler.index.spread_store import SpreadStore
from news_mirror.catalog import build_catalog
from news_mirror.server import Mirror, serve
from tests.conftest import DATA
from tests.crawl_helpers import crawl
from tests.test_concurrency import assert_no_two_duplicates, race


def test_any_node_gives_a_cluster_client_and_spider_keys_share_a_slot(cluster, cluster_client):
    from redis.cluster import RedisCluster

    assert isinstance(cluster_client, RedisCluster)
    assert connection.spider_key("%(spider)s:requests", "sina", cluster_client) == "{sina}:requests"
    slots = {cluster_client.keyslot(connection.spider_key(t, "sina", cluster_client))
             for t in ("%(spider)s:requests", "%(spider)s:dupefilter", "%(spider)s:outcomes", "%(spider)s:start_urls")}
    assert len(slots) == 1
    settings = plain_settings({"REDIS_URL": cluster.url, "REDIS_CLUSTER": "no"})
    connection._clients.clear()
    assert not connection.is_cluster(connection.from_settings(settings))  # the operator's word wins


def _check(url, namespace, lines, layout="one-slot"):
    out = subprocess.run([sys.executable, "-m", "news_crawler.cli.dedup", "check", "--redis-url", url,
                          "--namespace", namespace, "-"], input="\n".join(lines), capture_output=True, text=True,
                         timeout=300, env={**os.environ, "DEDUP_CLUSTER_INDEX": layout})
    assert out.returncode == 0, out.stderr
    return [json.loads(x) for x in out.stdout.splitlines()]


@pytest.mark.parametrize("layout", ["one-slot", "spread", "spread-balanced"])
def test_check_decides_on_the_cluster_as_on_one_server(cluster, cluster_client, redis_server, redis_client,
                                                       sina_articles, layout):
    rng = random.Random(4)
    lines = []
    for a in sina_articles[:600]:
        lines.append(json.dumps({"id": a["id"], "body": a["body"]}, ensure_ascii=False))
        if rng.random() < 0.3:  # a reprint: credits, the tail cut
            body = "来源：新华网\n" + a["body"][: len(a["body"]) * 9 // 10]
            lines.append(json.dumps({"id": a["id"] + "~r", "body": body}, ensure_ascii=False))
    on_cluster = _check(cluster.url, f"check-{layout}", lines, layout)
    alone = _check(redis_server.url, f"check-{layout}", lines)
    assert on_cluster == alone
    rules = Counter(r.get("rule") for r in on_cluster)
    assert rules["simhash"] and rules["sentences"] and rules[None] > 500
    assert _check(cluster.url, f"check-{layout}", lines[:50], layout) == [{**r, "replay": True} for r in on_cluster[:50]]
    if layout != "one-slot":  # spread over the masters indeed, a fifth of the keys or more on each
        per_master = cluster.keys_per_node(f"{{check-{layout}.*")
        assert min(per_master) >= 0.2 * sum(per_master), per_master


@pytest.mark.parametrize("layout", ["one-slot", "spread", "spread-balanced", "spread:3", "spread:4"])
def test_four_concurrent_writers_on_the_cluster_keep_no_two_duplicates(cluster, cluster_client, sina_articles,
                                                                      fingerprinter, layout):
    """In each layout a new index takes, and in layouts 3 and 4 (the compact ones of the
    versions before: an index they started is decided so still)."""
    layout, _, recorded = layout.partition(":")
    if recorded:
        cluster_client.set("race:spread:layout", recorded)
    docs = {}
    for n, a in enumerate(sina_articles[:300]):
        for suffix, body in (("", a["body"]), ("~r", "来源：澎湃新闻\n" + a["body"].replace("，", ",", 3)),
                             ("~e", a["body"][: len(a["body"]) * 9 // 10])):
            try:
                f = fingerprinter.fingerprint(body)
            except UnusableText:
                continue
            docs[a["id"] + suffix] = Document(a["id"] + suffix, f.value, f.sentences, f.length)
    ids = sorted(docs)
    streams = [[docs[i] for i in random.Random(w).sample(ids, k=int(len(ids) * 0.7))] for w in range(4)]
    race(cluster.url, streams, layout)

    rule = SentenceRule()
    store = (SpreadStore if layout.startswith("spread") else RedisStore)(cluster_client, "race", sentences=rule)
    kept = set(store.kept_documents())
    kept_docs = [docs[i] for i in sorted(kept)]
    assert_no_two_duplicates(kept_docs, rule)
    drops = store.drops(limit=10**6)
    missing = {d.id for s in streams for d in s} - kept - {d.id for d in drops}
    assert drops and not missing, missing  # every article is recorded kept or dropped
    assert len(kept) + len(drops) == len({d.id for s in streams for d in s})
    # Every drop names a kept article (spread: a drop naming an article another writer is
    # still deciding waits for that decision).
    named = {d.duplicate_of for d in drops}
    assert named <= kept, named - kept
    # The tables hold the kept articles, and no dropped one (a loser's claimed entries were
    # taken back).
    kept_fps = {doc.simhash for doc in kept_docs}
    assert all(store.nearest(fp, 1)[0].simhash == fp for fp in kept_fps)
    for d in drops:
        if d.simhash not in kept_fps:
            assert all(m.simhash != d.simhash for m in store.nearest(d.simhash, 50)), d


@pytest.mark.parametrize("layout", ["one-slot", "spread"])
def test_a_crawl_and_its_recrawl_on_the_cluster(tmp_path, cluster, cluster_client, layout):
    if not (DATA / "pages").is_dir():
        pytest.skip("saved pages not found")
    catalog = build_catalog(DATA)
    mirror = Mirror(catalog, day=1)
    server = serve(mirror)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    spiders = ["sina", "163", "huanqiu"]
    for name in spiders:  # each layout's crawl is a first crawl of these sites
        for key in list(cluster_client.scan_iter(match=f"{{{name}}}*")):
            cluster_client.delete(key)
    settings = {"DEDUP_NAMESPACE": f"crawl-{layout}", "DEDUP_CLUSTER_INDEX": layout}
    try:
        summary, items = crawl(tmp_path, cluster.url, url, spiders=spiders, name="day1", settings=settings)
        assert summary["failed"] == [] and items
        fetched = Counter(mirror.article_requests(0))
        wanted = {u.split("://")[1] for u, p in catalog.pages.items() if p.day == 1 and p.site in spiders}
        assert set(fetched) == wanted and max(fetched.values()) == 1
        # Every spider's keys sit in its own hash slot; together they use more than one master.
        owners = {name: cluster_client.keyslot(f"{{{name}}}") for name in spiders}
        assert all(cluster_client.exists(f"{{{name}}}:dupefilter") for name in spiders)
        assert len({cluster_client.get_node_from_key(f"{{{n}}}").name for n in owners}) >= 2

        before = len(mirror.requests)
        summary2, items2 = crawl(tmp_path, cluster.url, url, spiders=spiders, name="again", settings=settings)
        assert not Counter(mirror.article_requests(before))  # nothing fetched twice
        assert items2 == []

        status = subprocess.run([sys.executable, "-m", "news_crawler.cli.crawler", "status", "--json",
                                 "-s", f"REDIS_URL={cluster.url}", "-s", f"DEDUP_NAMESPACE=crawl-{layout}", "-s",
                                 f"DEDUP_CLUSTER_INDEX={layout}"], capture_output=True, text=True, timeout=120)
        report = json.loads(status.stdout)
        assert report["redis_masters"] == 3 and report["dedup"]["kept"] == len(items)
        if layout == "spread":
            assert cluster_client.get(f"crawl-{layout}:spread:layout") == b"5"
            assert min(cluster.keys_per_node(f"{{crawl-{layout}.*")) > 0
        assert all(report["spiders"][name]["seen_urls"] >= 1 for name in spiders)
    finally:
        server.shutdown()


def test_the_spread_index_decides_as_one_server_and_spreads_its_keys(cluster, cluster_client, redis_client):
    rule = SentenceRule()
    rng = random.Random(11)
    docs: list[Document] = []
    for i in range(3000):
        if docs and rng.random() < 0.5:  # a copy: some bits flipped, most sentence keys kept
            src = rng.choice(docs)
            flips = sum(1 << b for b in rng.sample(range(64), rng.randint(0, 30)))
            keys = tuple(k if rng.random() < 0.7 else rng.randrange(1 << 12) for k in src.sentences)
            docs.append(Document(f"d{i}", src.simhash ^ flips, keys, max(0, src.length + rng.randint(-6, 6))))
        else:
            docs.append(Document(f"d{i}", rng.getrandbits(64), tuple(rng.sample(range(1 << 12), rng.randint(0, 6))),
                                 rng.randint(80, 120)))
    docs += docs[:40]  # replays
    spread = SpreadStore(cluster_client, "news", sentences=rule, batch_size=37).decide_many(docs)
    assert spread == RedisStore(redis_client, "news", sentences=rule, batch_size=37).decide_many(docs)
    assert spread == MemoryStore(3, rule).decide_many(docs)
    assert {d.rule for d in spread} == {None, "simhash", "sentences"}
    store = SpreadStore(cluster_client, "news", sentences=rule)
    assert store.forget("d0") == "kept" and store.lookup("d0") is None
    assert store.decide("again", docs[0].simhash).kept  # gone from the four tables


def test_batches_begun_a_round_ahead_decide_as_one_server(cluster, cluster_client, redis_client):
    """Each next batch is begun in the round of this one's claims: an id of this batch met
    again in the next (same simhash or not) is begun in its turn, and a copy at distance 0
    of an article this batch drops is its duplicate's copy, as on one server. The masters
    start with no scripts loaded: each round's calls still run in their order (a batch's
    record ahead of the next batch's beginning)."""
    cluster_client.script_flush()
    original = 0x0F0F_0F0F_0F0F_0F0F
    docs = [Document("kept", original), Document("drop", original ^ 1), Document("x", 1 << 40),
            Document("x", 1 << 40), Document("kept", 5), Document("copy-of-drop", original ^ 1),
            Document("y", 0x7777_0000_7777_0000), Document("copy-of-x", 1 << 40), Document("drop", 7)]
    spread = SpreadStore(cluster_client, "ahead", batch_size=3).decide_many(docs)
    assert spread == RedisStore(redis_client, "ahead", batch_size=3).decide_many(docs)
    assert [(d.id, d.kept, d.duplicate_of, d.replayed) for d in spread] == [
        ("kept", True, None, False), ("drop", False, "kept", False), ("x", True, None, False),
        ("x", True, None, True), ("kept", True, None, True), ("copy-of-drop", False, "kept", False),
        ("y", True, None, False), ("copy-of-x", False, "x", False), ("drop", False, "kept", True)]
    assert not cluster_client.hexists(SpreadStore(cluster_client, "ahead").id_prefix + "ids",
                                      (original ^ 1).to_bytes(8, "big"))  # registered, then dropped


def test_a_spread_index_written_before_docids_still_answers_replays(cluster, cluster_client):
    from tests.test_index import as_earlier_versions_wrote_it

    cluster_client.set("news:spread:layout", 2)  # the layouts before the compact one had an ids hash
    store = SpreadStore(cluster_client, "news")
    store.decide_many([("a", 0x0F0F_0F0F_0F0F_0F0F), ("b", 0x0F0F_0F0F_0F0F_0F0E), ("c", 1 << 40)])
    as_earlier_versions_wrote_it(cluster_client, store)
    store = SpreadStore(cluster_client, "news")  # a worker started after the upgrade
    again = store.decide_many([("a", 5), ("b", 6), ("c", 7)])
    assert [(d.replayed, d.kept, d.simhash) for d in again] == [
        (True, True, 0x0F0F_0F0F_0F0F_0F0F), (True, False, 0x0F0F_0F0F_0F0F_0F0E), (True, True, 1 << 40)]
    assert store.forget("a") == "kept" and store.lookup("a") is None and store.lookup("c").simhash == 1 << 40
    assert store.decide("d", 0x0F0F_0F0F_0F0F_0F0F).kept


def test_compact_spread_drop_records_are_capped_by_eras(cluster, cluster_client):
    store = SpreadStore(cluster_client, "news", drops_max=4)  # two records an era, two eras live
    original = 0x0F0F_0F0F_0F0F_0F0F
    store.decide_many([("orig", original)] + [(f"c{i}", original ^ (1 << (i % 3))) for i in range(9)])
    prefix, ids = store.live[0], [f"c{i}" for i in range(9)]
    assert [r is not None for r in read_records(cluster_client, prefix, store.drops_rotate, ids)] == [False] * 6 + [True] * 3
    assert not cluster_client.exists(prefix + "drops", prefix + "drops:old")
    assert store.lookup("c8").duplicate_of == "orig" and store.lookup("c0") is None  # its record went with its era
    counted = store.counts()
    assert store.decide("c8", 5).replayed and store.forget("c8") == "dropped"
    assert store.counts()["dropped"] == counted["dropped"] - 1 and store.lookup("c8") is None


def test_spread_drop_records_of_the_layouts_before_are_capped(cluster, cluster_client):
    cluster_client.set("news:spread:layout", 2)  # one drops hash, renamed drops:old when full
    store = SpreadStore(cluster_client, "news", drops_max=4)
    original = 0x0F0F_0F0F_0F0F_0F0F
    store.decide_many([("orig", original)] + [(f"c{i}", original ^ (1 << (i % 3))) for i in range(9)])
    drops, old = (cluster_client.hlen(store.id_prefix + k) for k in ("drops", "drops:old"))
    assert drops + old <= 4 and old == 2
    old_keys = set(cluster_client.hkeys(store.id_prefix + "drops:old"))  # records by id key, 23 bytes each
    assert all(len(v) == 23 for v in cluster_client.hvals(store.id_prefix + "drops:old"))
    in_old = next(f"c{i}" for i in range(9) if id_key(f"c{i}") in old_keys)
    assert store.lookup(in_old).duplicate_of == "orig"
    counted = store.counts()
    assert store.decide(in_old, 5).replayed and store.forget(in_old) == "dropped"
    day = next(k for k in counted if k.startswith("drops:"))
    assert store.counts()[day] == counted[day] - 1 and store.counts()["dropped"] == counted["dropped"] - 1


def test_a_document_whose_duplicate_lost_its_claim_meanwhile_is_decided_again(cluster, cluster_client):
    """Between a spread decision's read and its record, the kept document it duplicates can
    lose its own claim to a third worker and go (its id record with it): the document is
    then decided again instead of being recorded as the copy of nothing."""
    store = SpreadStore(cluster_client, "news")
    original = 0x0F0F_0F0F_0F0F_0F0F
    assert store.decide("y", original).kept
    record = store._record
    calls = []

    def third_worker_takes_y_back(rows, *take_back):
        if not calls:
            store.forget("y")  # as a third worker dropping it would: out of the tables and the ids hash
        calls.append(rows)
        return record(rows, *take_back)

    store._record = third_worker_takes_y_back
    decided = store.decide("x", original ^ 1)
    assert [row[0] for rows in calls for row in rows] == ["D", "K"]  # dropped as y's copy, then kept
    assert decided.kept and store.lookup("x").kept and not store.drops()


def test_a_document_decided_again_waits_for_the_batches_after_it(cluster, cluster_client):
    """A batch is recorded in the round of the next one's claims: when its record finds a
    document's duplicate gone, the document is decided again after the batches that follow
    are recorded (it may be their copy), never waiting for this worker's own batches."""
    store = SpreadStore(cluster_client, "news", batch_size=1)
    original = 0x0F0F_0F0F_0F0F_0F0F
    assert store.decide("y", original).kept
    begun, rounds = store._begun, []

    def y_goes_before_the_first_record(first, early):
        rounds.append(list(first))
        if len(rounds) == 2:  # x claimed and dropped as y's copy, its record not yet made
            store.forget("y")
        return begun(first, early)

    def no_wait(fps):
        raise AssertionError(f"waited for {fps}: nobody else is deciding")

    store._begun, store._await_decided = y_goes_before_the_first_record, no_wait
    x, z = store.decide_many([Document("x", original ^ 1), Document("z", original ^ 2)])
    assert rounds[:2] == [["x"], ["z"]] and rounds[2:] == [["x"]]  # x decided again after z
    assert z.kept and (x.kept, x.duplicate_of, x.distance) == (False, "z", 2)
    assert store.lookup("x").duplicate_of == "z" and store.counts()["decided_again"] == 1


def test_a_forgotten_documents_sentence_entries_drop_nothing(cluster, cluster_client):
    """Its sentence entries stay in their buckets (forget knows its simhash, not its
    sentences); a later document sharing them is not taken as its copy."""
    store = SpreadStore(cluster_client, "news", sentences=SentenceRule())
    original = 0x0F0F_0F0F_0F0F_0F0F
    assert store.decide_many([Document("a", original, (1, 2, 3, 4), 100)])[0].kept
    assert store.decide_many([Document("c", original ^ 0xFF, (1, 2, 3, 6), 99)])[0].duplicate_of == "a"
    assert store.forget("a") == "kept" and store.forget("c") == "dropped"
    decided = store.decide_many([Document("b", original ^ 0xFF, (1, 2, 3, 5), 101)])[0]
    assert decided.kept and store.lookup("b").kept and not store.drops()


def _a_copy(rule: str, original: int) -> Document:
    """A copy by the simhash rule (distance 1), or by sentences only (distance 8, three shared)."""
    return (Document("b", original ^ 1, (9, 10, 11, 12), 100) if rule == "simhash"
            else Document("b", original ^ 0xFF, (1, 2, 3, 5), 101))


@pytest.mark.parametrize("rule", ["simhash", "sentences"])
def test_a_worker_claiming_after_another_kept_a_copy_finds_it(cluster, cluster_client, rule):
    """Worker B keeps a near-duplicate after worker A began its batch and before A claims the
    tables: A's claims find B's entries, and A's document is B's copy."""
    sentences = SentenceRule()
    a, b = (SpreadStore(cluster_client, "news", sentences=sentences) for _ in range(2))
    original = 0x0F0F_0F0F_0F0F_0F0F
    begin = a._begin

    def b_keeps_theirs_meanwhile(docs):
        begun = begin(docs)
        assert b.decide_many([_a_copy(rule, original)])[0].kept
        return begun

    a._begin = b_keeps_theirs_meanwhile
    decided = a.decide_many([Document("a", original, (1, 2, 3, 4), 100)])[0]
    assert (decided.kept, decided.duplicate_of, decided.rule) == (False, "b", rule)
    assert [m.id for m in a.nearest(original, 5)] == ["b"]  # a's entries were taken back
    assert b.decide_many([Document("a2", original, (1, 2, 3, 4), 100)])[0].duplicate_of == "b"


@pytest.mark.parametrize("rule", ["simhash", "sentences"])
def test_a_worker_deciding_between_anothers_claims_and_its_record_waits_for_it(cluster, cluster_client, rule):
    """Worker A has claimed the tables for its document and not yet recorded it when worker B
    decides a near-duplicate: B finds A's entries, waits for A's record, and B's document is
    A's copy."""
    sentences = SentenceRule()
    a, b = (SpreadStore(cluster_client, "news", sentences=sentences) for _ in range(2))
    original = 0x0F0F_0F0F_0F0F_0F0F
    record, wait = a._record, b._await_decided
    b_waits = threading.Event()
    seen, workers = [], []

    def b_waits_for(fps):
        b_waits.set()
        wait(fps)

    def b_decides_theirs_meanwhile(rows, *take_back):
        workers.append(threading.Thread(target=lambda: seen.append(b.decide_many([_a_copy(rule, original)])[0])))
        workers[0].start()
        assert b_waits.wait(30)  # B found A's entries and waits for A's record
        return record(rows, *take_back)

    b._await_decided = b_waits_for
    a._record = b_decides_theirs_meanwhile
    assert a.decide_many([Document("a", original, (1, 2, 3, 4), 100)])[0].kept
    workers[0].join(30)
    assert (seen[0].kept, seen[0].duplicate_of, seen[0].rule) == (False, "a", rule)
    assert [m.id for m in a.nearest(original, 5)] == ["a"]  # b's entries were taken back
    assert b.lookup("b").duplicate_of == "a" and a.counts()["kept"] == 1


@pytest.mark.parametrize("size", [300, 10_000])
def test_every_master_holds_a_fifth_of_the_spread_index_keys(cluster, cluster_client, size):
    """Block table 0 with the sentence table; two block tables and half of the fourth; the
    other half and the id records and drop records: a fifth of the keys or more on each
    master, on a few hundred articles with five sentence keys each (the sentence table then
    has a bucket a key) as on 10,000 (its buckets filling), with copies of three in ten;
    with the sentence rule or without (then in layout 3: two block tables, two, and the id
    hashes)."""
    rng = random.Random(3)
    docs = [Document(f"d{i}", rng.getrandbits(64), tuple(rng.getrandbits(24) for _ in range(5)), rng.randint(80, 120))
            for i in range(size)]
    copies = [Document(f"c{i}", d.simhash ^ 1, d.sentences, d.length) for i, d in enumerate(docs[: size * 3 // 10])]
    for name, rule in (("spread", SentenceRule()), ("off", None)):
        store = SpreadStore(cluster_client, name, sentences=rule, batch_size=500)
        assert store.layout == (5 if rule else 3) and all(d.kept for d in store.decide_many(docs))
        assert not any(d.kept for d in store.decide_many(copies))
        per_master = cluster.keys_per_node(f"{{{name}.*")
        assert min(per_master) >= 0.2 * sum(per_master), per_master


@pytest.mark.parametrize("layout", [1, 2, 3, 4])
def test_a_spread_index_of_an_earlier_layout_is_still_read_and_added_to(cluster, cluster_client, layout):
    rule, rng, old = SentenceRule(), random.Random(5), f"old{layout}"
    docs = [Document(f"d{i}", rng.getrandbits(64), tuple(rng.getrandbits(24) for _ in range(4)), 100) for i in range(50)]
    cluster_client.set(f"{old}:spread:layout", layout)  # begun by a version that placed the roles so
    first = SpreadStore(cluster_client, old, sentences=rule)
    assert all(d.kept for d in first.decide_many(docs))
    assert cluster_client.exists(first.sentence_bucket_key(docs[0].sentences[0]))
    if layout >= 3:  # its id records as those versions wrote them: short, in the sentence table's slot
        # (layout 3) or beside table 3 (layout 4, where the sentence table is in table 0's)
        assert int(cluster_client.get(first.live[0] + "held")) == 50
        assert first.tags["ids"] == first.tags["s"] if layout == 3 else first.tags["s"] == first.tags["t0"]
    else:
        assert cluster_client.hlen(first.id_prefix + "ids") == 50
    cluster_client.delete(f"{old}:spread:layout")  # and wrote no record of it
    store = SpreadStore(cluster_client, old, sentences=rule)
    assert store.layout == layout and cluster_client.get(f"{old}:spread:layout") == str(layout).encode()
    copies = [Document(f"c{i}", d.simhash ^ (1 << i % 64 | 1 << 40), d.sentences, d.length) for i, d in enumerate(docs)]
    assert [d.duplicate_of for d in store.decide_many(copies)] == [d.id for d in docs]
    far = [Document(f"f{i}", d.simhash ^ ((1 << 20) - 1 << 30), d.sentences, d.length) for i, d in enumerate(docs[:5])]
    assert [(d.duplicate_of, d.rule) for d in store.decide_many(far)] == [(d.id, "sentences") for d in docs[:5]]
    assert store.decide("new", rng.getrandbits(64)).kept and store.counts()["kept"] == 51
    assert store.forget("d7") == "kept" and store.lookup("d7") is None and store.counts()["kept"] == 50


def test_the_setting_chooses_a_new_spread_indexs_layout_and_an_index_keeps_its_own(cluster, cluster_client):
    def store(namespace, index, sentences=True):
        return store_from_settings(plain_settings({"DEDUP_NAMESPACE": namespace, "DEDUP_CLUSTER_INDEX": index,
                                                   "DEDUP_SENTENCES": sentences}), cluster_client)

    assert store("wide", "spread-balanced").layout == 2 and store("wide0", "spread-balanced", False).layout == 1
    assert store("small", "spread").layout == 5 and store("small0", "spread", False).layout == 3
    assert store("wide", "spread").layout == 2 and store("small", "spread-balanced").layout == 5  # recorded
    assert type(store("one", "one-slot")) is RedisStore
    with pytest.raises(ValueError, match="DEDUP_CLUSTER_INDEX must be one of one-slot, spread, spread-balanced"):
        store("odd", "spread-wide")


def test_a_new_spread_index_takes_the_compact_layout_and_says_so(cluster, cluster_client):
    rule = SentenceRule()
    assert SpreadStore(cluster_client, "fresh", sentences=rule).layout == 5
    cluster_client.delete("fresh:spread:layout")  # its record lost: the index found tells
    assert SpreadStore(cluster_client, "fresh").layout == 5
    store = SpreadStore(cluster_client, "fresh2")  # without the sentence rule: layout 3
    assert store.layout == 3 and store.decide("a", 1).kept
    cluster_client.delete("fresh2:spread:layout")
    assert SpreadStore(cluster_client, "fresh2", sentences=rule).layout == 3
    cluster_client.set("odd:spread:layout", "9")
    with pytest.raises(ValueError, match="odd:spread:layout names layout"):
        SpreadStore(cluster_client, "odd", sentences=rule)


def test_the_compact_layout_files_ids_as_one_server_and_answers_by_them(cluster, cluster_client, redis_client):
    """Kept URLs filed short in small hashes (a long one in pieces), no ids or docids hash;
    replays, copies by either rule, lookups, forgetting and the counts answer as one server."""
    rule, rng = SentenceRule(), random.Random(11)
    long_url = "https://mp.weixin.qq.com/s?__biz=MzA3&mid=2650&idx=1&sn=" + "ab12" * 40
    urls = [f"https://news.example.com.cn/c/2024-05-{i % 28 + 1:02d}/doc-{i:08d}.shtml" for i in range(40)] + [long_url]
    docs = [Document(u, rng.getrandbits(64), tuple(rng.getrandbits(24) for _ in range(4)), 100) for u in urls]
    store, alone = SpreadStore(cluster_client, "cmp", sentences=rule), RedisStore(redis_client, "cmp", sentences=rule)
    assert store.layout == 5 and store.tags["s"] == store.tags["t0"] != store.tags["ids"]
    assert all(d.kept for d in store.decide_many(docs))
    prefix = store.live[0]
    assert not cluster_client.exists(prefix + "ids", prefix + "docids")
    assert int(cluster_client.get(prefix + "held")) == 41 and store.report()["fingerprints"] == 41
    filed = cluster_client.hget(id_hash(prefix, docs[0].simhash.to_bytes(8, "big")), docs[0].simhash.to_bytes(8, "big")[2:])
    assert filed[:1] == b"\4" and len(filed) < len(urls[0]) - 20  # origin numbered, digits two to a byte
    entry = cluster_client.get(store.sentence_bucket_key(docs[0].sentences[0]))
    assert len(entry) % 6 == 0 and short_ref(docs[0].simhash.to_bytes(8, "big")) in entry
    copies = [Document(f"https://other.example.org/{i}", d.simhash ^ 1, (), 100) for i, d in enumerate(docs[:20])]
    copies += [Document(f"https://other.example.org/s{i}", d.simhash ^ 0xFFFF_FF00, d.sentences, 101)
               for i, d in enumerate(docs[20:])]
    alone.decide_many(docs)
    assert store.decide_many(copies) == alone.decide_many(copies)
    assert [(d.duplicate_of, d.rule) for d in store.decide_many(copies[-2:])] == [(urls[-2], "sentences"), (long_url, "sentences")]
    replays = store.decide_many([(u, 5) for u in urls])
    assert [(d.replayed, d.simhash) for d in replays] == [(True, d.simhash) for d in docs]
    assert store.lookup(long_url).simhash == docs[-1].simhash and store.lookup(copies[3].id).duplicate_of == urls[3]
    assert store.forget(long_url) == "kept" and store.lookup(long_url) is None
    assert store.counts()["kept"] == 40 and int(cluster_client.get(prefix + "held")) == 40
    assert store.decide(copies[-1].id + "x", docs[-1].simhash ^ 0xFFFF_FF00, docs[-1].sentences, 101).kept  # nothing left of it
    assert store.decide(long_url, docs[-1].simhash, docs[-1].sentences, 100).duplicate_of == copies[-1].id + "x"


def test_spread_buckets_take_no_spare_room(cluster, cluster_client):
    """A bucket grown one claim at a time takes about the memory of the same bytes written at
    once (APPEND would leave spare room in every bucket)."""
    rule = SentenceRule()
    store = SpreadStore(cluster_client, "news", sentences=rule)
    rng = random.Random(3)
    for i in range(40):  # one article a batch; all in one block-0 bucket, all sharing a sentence key
        store.decide_many([Document(f"d{i}", (0xABCD << 48) | rng.getrandbits(48), (7, *rng.sample(range(8, 1 << 20), 3)),
                                    100)])
    for key in (store.bucket_key(0, 0xABCD), store.sentence_bucket_key(7)):
        value = cluster_client.get(key)
        assert len(value) >= 40 * 6
        copy = key[:-5] + "X" + key[-4:]  # the same slot (hash tag) and length: not a bucket's name
        cluster_client.set(copy, value)
        # Within an allocator step of the copy (APPEND's spare room is some 70% more).
        assert cluster_client.memory_usage(key) <= 1.1 * cluster_client.memory_usage(copy), key


def test_the_spread_index_refuses_a_document_it_cannot_hold(cluster, cluster_client):
    store = SpreadStore(cluster_client, "news", sentences=SentenceRule())
    with pytest.raises(ValueError, match="length code"):
        store.decide_many([Document("fine", 7), Document("long", 9, (1, 2, 3), 300)])
    with pytest.raises(ValueError, match="at most 255 sentence keys"):  # a byte counts them in a claim
        store.decide_many([Document("fine", 7), Document("many", 9, tuple(range(256)), 100)])
    assert store.lookup("fine") is None


def _dies_mid_run(url: str, docs: list[Document], stopped) -> None:
    """A worker deciding ``docs`` in batches of two that stops for good in its third round
    (two batches claimed and not recorded, a third begun): ``stopped`` is set, and the test
    kills it there."""
    import threading

    import news_crawler.index.spread_store as spread_store
    from news_crawler.engine import store_from_settings

    settings = plain_settings({"REDIS_URL": url, "DEDUP_NAMESPACE": "news", "DEDUP_CLUSTER_INDEX": "spread",
                               "DEDUP_BATCH_SIZE": 2})
    store = store_from_settings(settings, connection.from_settings(settings))
    claim, rounds = spread_store.claim, []

    def claim_then_stop(*args, **kwargs):
        rounds.append(1)
        if len(rounds) == 3:
            stopped.set()
            threading.Event().wait()  # never set: killed here
        return claim(*args, **kwargs)

    spread_store.claim = claim_then_stop
    store.decide_many(docs)


def test_a_worker_killed_mid_run_leaves_nothing_undecidable(cluster, cluster_client, monkeypatch):
    """kill -9 of a worker in the middle of a run of batches (batches claimed and not
    recorded, the next begun): another worker deciding the same articles waits for their
    records, finds none, takes out what the dead one left and decides them all; no copy is
    kept beside its original and every drop names a kept article."""
    import multiprocessing
    import os
    import signal

    import news_crawler.index.spread_store as spread_store

    rng = random.Random(9)
    originals = [rng.getrandbits(64) for _ in range(5)]
    docs = [Document(f"d{i}", originals[i // 2] ^ (i % 2), (4 * i, 4 * i + 1), 100)
            for i in range(10)]  # d1 copies d0 (distance 1), d3 copies d2, ...
    ctx = multiprocessing.get_context("spawn")
    stopped = ctx.Event()
    worker = ctx.Process(target=_dies_mid_run, args=(cluster.url, docs, stopped))
    worker.start()
    try:
        assert stopped.wait(60)
        os.kill(worker.pid, signal.SIGKILL)
    finally:
        worker.join(30)
    assert worker.exitcode == -signal.SIGKILL
    assert cluster_client.hlen(SpreadStore(cluster_client, "news").id_prefix + "begun") > 0  # left behind

    monkeypatch.setattr(spread_store, "WAIT_SECONDS", 0.5)
    other = SpreadStore(cluster_client, "news", batch_size=2)
    decided = other.decide_many(docs)
    assert [d.kept for d in decided] == [i % 2 == 0 for i in range(10)]
    assert [d.duplicate_of for d in decided[1::2]] == [f"d{i}" for i in range(0, 10, 2)]
    assert other.counts()["kept"] == 5 and not cluster_client.hlen(other.id_prefix + "begun")
    assert all(other.lookup(d.id) is not None for d in docs)


def test_a_worker_that_died_between_its_claims_and_its_record_leaves_nothing_undecidable(cluster, cluster_client,
                                                                                         monkeypatch):
    """A worker registers and claims its articles, then dies before recording them: another
    worker waits for the record, finds none, and completes the decision itself."""
    import news_crawler.index.spread_store as spread_store

    monkeypatch.setattr(spread_store, "WAIT_SECONDS", 0.5)
    rule = SentenceRule()
    dying = SpreadStore(cluster_client, "news", sentences=rule)
    original = Document("a", 0x0F0F_0F0F_0F0F_0F0F, (1, 2, 3, 4), 100)

    def die(rows, *take_back):
        raise ConnectionError("the worker died here")

    dying._record = die
    with pytest.raises(ConnectionError):
        dying.decide_many([original, Document("b", 0x7777_0000_7777_0000, (5, 6, 7, 8), 100)])
    other = SpreadStore(cluster_client, "news", sentences=rule)
    decided = other.decide_many([original, Document("b", 0x7777_0000_7777_0000, (5, 6, 7, 8), 100)])
    assert [d.kept for d in decided] == [True, True]
    assert other.lookup("a").kept and other.counts()["kept"] == 2
    copy = other.decide_many([Document("copy", original.simhash ^ 1), Document("s", original.simhash ^ 0xFF, (1, 2, 3, 9), 100)])
    assert [(d.duplicate_of, d.rule) for d in copy] == [("a", "simhash"), ("a", "sentences")]
    assert [m.id for m in other.nearest(original.simhash, 5)] == ["a"]  # one entry a table, not two


def test_spread_drop_records_are_compact_and_those_of_earlier_versions_still_answer(cluster, cluster_client):
    cluster_client.set("news:spread:layout", 2)  # records by id key in one drops hash (layouts 1 and 2)
    store = SpreadStore(cluster_client, "news")
    original = 0x0F0F_0F0F_0F0F_0F0F
    store.decide_many([("orig", original), ("copy", original ^ 1)])
    raw = cluster_client.hget(store.id_prefix + "drops", id_key("copy"))
    assert raw[:1] == b"\x03" and len(raw) == 23 and raw[15:] == original.to_bytes(8, "big")
    assert [(d.id, d.duplicate_of, d.distance) for d in store.drops()] == [("copy", "orig", 1)]
    assert not store.drops_by_id  # begun by this version: records are filed by id key only
    # An index begun by an earlier version (no form key) with a JSON record filed by the id:
    old = {"simhash": f"{original ^ 3:016x}", "duplicate_of": "orig", "distance": 2, "time": "2019-03-01T08:00:00+00:00"}
    cluster_client.hset(store.id_prefix + "drops", "older", json.dumps(old))
    cluster_client.hincrby(store.stats_key, "drops:2019-03-01", 1)
    cluster_client.delete(store.id_prefix + "form")
    store = SpreadStore(cluster_client, "news")
    assert store.drops_by_id and SpreadStore(cluster_client, "news").drops_by_id
    again = store.decide_many([("copy", 5), ("older", 6)])
    assert [(d.replayed, d.duplicate_of, d.simhash) for d in again] == [(True, "orig", original ^ 1), (True, "orig", original ^ 3)]
    assert store.forget("older") == "dropped" and store.counts()["drops:2019-03-01"] == 0
    assert store.forget("orig") == "kept"
    assert store.lookup("copy") is None  # what it duplicated was forgotten: decided afresh
    assert store.decide("copy", original ^ 1).kept
