"""Behaviour every store shares, run against the in-memory store and a real Redis."""

import random
from datetime import UTC, datetime

import pytest

from news_crawler.dedup.fingerprint import distance
from news_crawler.dedup.index import Document, MemoryStore, RedisStore, SentenceRule
from news_crawler.dedup.index.base import Published, id_key
from news_crawler.dedup.index.drop_records import drop_hashes, read_records
from news_crawler.dedup.index.kept_ids import id_hash


@pytest.fixture(params=["memory", "redis"])
def make_store(request):
    def make(max_distance=3, namespace="test", sentences=None):
        if request.param == "memory":
            return MemoryStore(max_distance, sentences)
        client = request.getfixturevalue("redis_client")
        return RedisStore(client, namespace, max_distance, sentences=sentences, batch_size=50)

    return make


def flip(fp, bits):
    for b in bits:
        fp ^= 1 << b
    return fp


def test_keep_then_drop_within_distance(make_store):
    store = make_store()
    a = 0xDEAD_BEEF_0123_4567
    assert store.decide("a", a).kept
    d = store.decide("b", flip(a, [0, 20, 40]))
    assert (d.duplicate_of, d.distance) == ("a", 3)
    assert store.decide("c", flip(a, [0, 20, 40, 60])).kept  # distance 4
    assert store.counts()["kept"] == 2 and store.counts()["dropped"] == 1


def test_nearest_duplicate_is_named(make_store):
    store = make_store()
    a = 0x1111_2222_3333_4444
    store.decide("far", flip(a, [1, 2]))
    store.decide_many([("near", flip(a, [63]))])  # distance 3 from "far", so dropped
    store2 = make_store(namespace="other")
    store2.decide_many([("x", flip(a, [1, 2, 3])), ("y", flip(a, [50]))])
    d = store2.decide("q", a)
    assert (d.duplicate_of, d.distance) == ("y", 1)


@pytest.mark.parametrize("smaller_first", [True, False])
def test_of_two_kept_at_the_same_distance_the_smaller_fingerprint_is_named(make_store, smaller_first):
    """Whatever order they were kept in (and so filed in a bucket): the order of filing never
    decides."""
    store = make_store()
    a = 0x1111_2222_3333_4444
    pair = sorted([flip(a, [1, 2]), flip(a, [3, 4])])  # 4 bits apart: both kept, each 2 from a
    names = {pair[0]: "smaller", pair[1]: "larger"}
    for fp in pair if smaller_first else pair[::-1]:
        assert store.decide(names[fp], fp).kept
    d = store.decide("q", a)
    assert (d.duplicate_of, d.distance) == ("smaller", 2)


@pytest.mark.parametrize("near_first", [True, False])
def test_of_two_sharing_as_many_sentences_the_nearer_is_named(make_store, near_first):
    store = make_store(sentences=SentenceRule(match=3, max_distance=20))
    a = 0x1111_2222_3333_4444
    near = Document("near", flip(a, range(0, 64, 8)), (1, 2, 3, 20, 21), 40)  # 8 bits from a
    far = Document("far", flip(a, range(1, 64, 5)[:14]), (3, 4, 5, 30, 31), 40)  # 14 bits
    assert all(d.kept for d in store.decide_many([near, far] if near_first else [far, near]))
    d = store.decide_many([Document("q", a, (1, 2, 3, 4, 5), 40)])[0]
    assert (d.duplicate_of, d.rule, d.distance) == ("near", "sentences", 8)


def test_max_distance_zero_drops_only_exact_copies(make_store):
    store = make_store(max_distance=0)
    store.decide("a", 42)
    assert store.decide("b", 43).kept
    assert store.decide("c", 42).duplicate_of == "a"


def test_redeciding_an_id_returns_the_earlier_decision(make_store):
    store = make_store()
    store.decide_many([("a", 1000), ("b", 1001)])
    again = store.decide_many([("a", 1000), ("b", 1001)])
    assert [d.replayed for d in again] == [True, True]
    assert (again[0].kept, again[1].duplicate_of, again[1].distance) == (True, "a", 1)
    assert store.counts()["kept"] == 1 and store.counts()["dropped"] == 1


def test_lookup_drops_and_daily_count(make_store):
    store = make_store()
    store.decide_many([("a", 7), ("b", 6)])
    assert store.lookup("a").kept and store.lookup("nope") is None
    (drop,) = store.drops()
    assert (drop.id, drop.duplicate_of, drop.distance, drop.simhash) == ("b", "a", 1, 6)
    assert store.counts()["drops:" + drop.time[:10]] == 1


def test_the_list_of_recent_drops_keeps_the_last_ten_thousand(redis_client):
    store = RedisStore(redis_client, "recent", batch_size=1000)
    store.decide("orig", 1 << 40)
    store.decide_many([(f"copy{i}", 1 << 40) for i in range(10_003)])
    assert redis_client.llen("recent:g0:drops:recent") == 10_000
    assert store.counts()["dropped"] == 10_003
    assert store.drops(limit=1)[0].id == "copy10002"


def test_drops_are_listed_newest_first(make_store):
    store = make_store()
    original = 0x0F0F_0F0F_0F0F_0F0F
    store.decide("orig", original)
    for i in range(12):  # one at a time: twelve batches
        assert store.decide(f"copy{i:02d}", original ^ (1 << (i % 5))).duplicate_of == "orig"
    assert [d.id for d in store.drops(limit=5)] == ["copy11", "copy10", "copy09", "copy08", "copy07"]
    assert store.forget("copy10") == "dropped"
    assert store.decide("copy03", 1).replayed  # a replay is not a new drop
    assert [d.id for d in store.drops(limit=3)] == ["copy11", "copy09", "copy08"]
    assert len(store.drops(limit=100)) == 11 and store.drops(limit=0) == []


def test_nearest_reads_every_kept_fingerprint_and_names_the_shared_table(make_store):
    store = make_store()
    a = 0xAAAA_BBBB_CCCC_DDDD
    store.decide("a", a)
    (m,) = store.nearest(flip(a, list(range(0, 48, 3))))  # only block 0 (the top 16 bits) unchanged
    assert (m.id, m.table, m.distance) == ("a", 0, 16)
    (m,) = store.nearest(flip(a, [0, 16, 32, 48]))  # every block differs: no bucket holds it, still found
    assert (m.id, m.table, m.distance) == ("a", -1, 4)
    rng = random.Random(5)  # the nearest of many, in order, whatever the buckets
    fps = {f"d{i}": rng.getrandbits(64) for i in range(300)}
    for i, fp in fps.items():
        store.decide(i, fp)
    kept = {i: fp for i, fp in fps.items() if not store.lookup(i).duplicate_of} | {"a": a}
    query = rng.getrandbits(64)
    got = store.nearest(query, limit=7)
    assert [m.distance for m in got] == sorted(distance(query, fp) for fp in kept.values())[:7]
    assert all(m.distance == distance(query, kept[m.id]) and m.simhash == kept[m.id] for m in got)


def test_same_decisions_as_brute_force(make_store):
    rng = random.Random(3)
    items = []
    for i in range(2000):
        if items and rng.random() < 0.4:
            items.append((f"d{i}", flip(rng.choice(items)[1], rng.sample(range(64), rng.randint(0, 6)))))
        else:
            items.append((f"d{i}", rng.getrandbits(64)))
    store = make_store()
    decisions = store.decide_many(items)
    kept: list[tuple[str, int]] = []
    for (doc_id, fp), d in zip(items, decisions):
        near = [(distance(fp, k), kid) for kid, k in kept if distance(fp, k) <= 3]
        if near:
            assert not d.kept and d.distance == min(near)[0], doc_id
            assert any(kid == d.duplicate_of and dist == d.distance for dist, kid in near)
        else:
            assert d.kept, doc_id
            kept.append((doc_id, fp))
    assert 0 < len(kept) < len(items)


def test_invalid_max_distance_is_explained():
    with pytest.raises(ValueError, match=r"DEDUP_MAX_DISTANCE=4: must be from 0 to 3, fewer than the 4 blocks"):
        MemoryStore(max_distance=4)
    assert MemoryStore(max_distance=4, blocks=(16, 12, 12, 12, 12)).layout.describe() == (
        "16,12,12,12,12 at distance 4: 5 tables keyed by 1 block"
    )


def test_redis_store_refuses_decoding_client(redis_server):
    with pytest.raises(ValueError, match="decode_responses=False"):
        RedisStore(redis_server.client(decode_responses=True))


def test_redis_store_survives_script_flush(redis_client):
    store = RedisStore(redis_client, "flush")
    store.decide("a", 1)
    redis_client.script_flush()
    assert store.decide("b", 3).duplicate_of == "a"


def test_namespaces_are_separate(redis_client):
    RedisStore(redis_client, "one").decide("a", 5)
    assert RedisStore(redis_client, "two").decide("a2", 5).kept


def test_a_replay_answers_with_the_stored_simhash_not_the_new_one(make_store):
    store = make_store()
    store.decide_many([("a", 1000), ("b", 1001)])
    again = store.decide_many([("a", 5_000_000), ("b", 9_000_000)])  # same ids, other bodies
    assert [(d.id, d.simhash, d.replayed) for d in again] == [("a", 1000, True), ("b", 1001, True)]
    assert (again[1].duplicate_of, again[1].distance) == ("a", 1)
    assert store.lookup("a").simhash == 1000 and store.counts()["kept"] == 1


def test_forgetting_a_drop_counted_on_a_day_of_another_zone_takes_no_day_below_zero(redis_client):
    """The day a drop is uncounted from is its time's in TIMEZONE now: a zone changed since
    names a day with no count, which stays absent."""
    from zoneinfo import ZoneInfo

    at = datetime(2026, 12, 1, 20, 0, tzinfo=UTC).timestamp()  # 12-02 04:00 in Shanghai
    shanghai = RedisStore(redis_client, "zone", clock=lambda: at, zone=ZoneInfo("Asia/Shanghai"))
    shanghai.decide_many([("orig", 1 << 30), ("copy", 1 << 30)])
    assert shanghai.counts()["drops:2026-12-02"] == 1
    assert RedisStore(redis_client, "zone", clock=lambda: at).forget("copy") == "dropped"
    counts = shanghai.counts()
    assert counts["dropped"] == 0 and "drops:2026-12-01" not in counts and counts["drops:2026-12-02"] == 1


def test_forget_removes_a_kept_article_so_its_copy_is_kept_next(make_store):
    store = make_store()
    original, copy, other = 0x0F0F_0F0F_0F0F_0F0F, 0x0F0F_0F0F_0F0F_0F0E, 0x0F0F_0F0F_0F0F_0FF0
    store.decide_many([("a", original), ("o", other), ("b", copy)])
    assert store.lookup("b").duplicate_of == "a"
    assert store.forget("a") == "kept" and store.lookup("a") is None
    assert [m.id for m in store.nearest(original)] == ["o"]  # gone from all four tables; "o" stays
    (drop,) = [d for d in store.drops() if d.id == "b"]
    today = "drops:" + drop.time[:10]
    assert store.counts().get(today) == 1
    assert store.forget("b") == "dropped" and store.forget("b") == "" and store.forget("never") == ""
    assert store.counts().get(today) == 0  # "dropped today" counts the drops still recorded
    assert store.decide("b", copy).kept  # decided afresh: nothing kept is near it now
    assert store.counts()["kept"] == 2 and store.counts()["dropped"] == 0


def key_hash(store, key):
    """The small hash a kept id's 8-byte key is filed in (lua/ids.lua)."""
    return f"{store.live_prefixes()[0]}k{key[:2].hex()}"


def test_kept_ids_are_filed_by_their_key_and_found_among_the_kept_ids(redis_client):
    store = RedisStore(redis_client, "test", batch_size=50)
    url = "https://news.example.com.cn/c/2019-10-23/doc-iicezuev4202091.shtml"
    store.decide_many([(url, 1000), ("b", 1 << 40)])
    key = id_key(url)
    assert redis_client.hget(key_hash(store, key), key[2:5]) == (1000).to_bytes(8, "big")[:2]  # where it is filed
    assert redis_client.object("encoding", key_hash(store, key)) == b"listpack"
    # Another id whose key collides with url's (forced here) is not taken for url's replay,
    # and both are filed under the key.
    c = id_key("c")
    redis_client.hset(key_hash(store, c), c[2:5], (1000).to_bytes(8, "big")[:2])
    decided = store.decide("c", 0xFFFF_0000_FFFF_0000)
    assert decided.kept and not decided.replayed
    assert redis_client.hget(key_hash(store, c), c[2:5]) == (1000).to_bytes(8, "big")[:2] + b"\xff\xff"
    assert store.lookup(url).simhash == 1000 and store.decide(url, 5).replayed
    assert store.decide("c", 5).replayed and store.forget("c") == "kept" and store.lookup("c") is None
    assert redis_client.hget(key_hash(store, c), c[2:5]) == (1000).to_bytes(8, "big")[:2]


def test_kept_urls_are_filed_short_by_their_origin_and_read_back_whole(redis_client):
    store = RedisStore(redis_client, "test", batch_size=50)
    a = "https://news.example.com.cn/c/2019-10-23/doc-iicezuev4202091.shtml"  # 66 characters
    b = "https://news.example.com.cn:8080/c/2019-10-24/doc-iicezuev4202092.shtml?from=rss#top"
    long_ = (
        "https://mp.weixin.qq.com/s?__biz=MzI2MzEwNTY3OQ==&mid=2648978231&idx=1&sn=dd091611fcf1aa0c2aef&chksm=fabcdeb"
    )
    odd = "\x01" + "9/not a short form"
    odd4 = "\x04" + "12/not a paired form"
    no_pairs = "https://news.example.com.cn/a/b-1.html"
    iri = "https://news.example.com.cn/新闻/2019/1.html"
    fps = {
        a: 0x0F0F_0000_0000_0000,
        b: 0x00F0_0F00_0000_0000,
        long_: 0x0000_00F0_0F00_0000,
        odd: 0x0000_0000_00F0_0F00,
        "plain-id": 0x0000_0000_0000_F0F0,
        odd4: 0xF000_0000_0000_000F,
        no_pairs: 0x0F00_0F00_0F00_0F00,
        iri: 0x00F0_00F0_00F0_00F0,
    }
    assert all(d.kept for d in store.decide_many(list(fps.items())))
    home = id_hash(store.live_prefixes()[0], fps[a].to_bytes(8, "big"))
    filed = redis_client.hget(home, fps[a].to_bytes(8, "big")[2:])
    # byte 4, the origin's number, the rest with two digits in a row as one byte (128 + them)
    assert filed == b"\x041/c/\x94\x93-\x8a-\x97/doc-iicezuev\xaa\x82\x891.shtml"
    assert redis_client.object("encoding", home) == b"listpack"
    assert redis_client.hget(store.live_prefixes()[0] + "origins", "1") == b"https://news.example.com.cn"
    assert redis_client.hget(store.live_prefixes()[0] + "origins", "2") == b"https://news.example.com.cn:8080"
    # Whole in the ids hash: two that would read as short forms, one over 64 bytes short.
    assert set(redis_client.hvals(store.live_prefixes()[0] + "ids")) == {odd.encode(), odd4.encode(), long_.encode()}
    long_home = id_hash(store.live_prefixes()[0], fps[long_].to_bytes(8, "big"))
    low = fps[long_].to_bytes(8, "big")[2:]
    assert redis_client.hget(long_home, low) == b"\0" and redis_client.object("encoding", long_home) == b"listpack"
    for url, form in ((no_pairs, b"\x011/a/b-1.html"), (iri, "\x011/新闻/2019/1.html".encode())):  # kept as they are
        assert (
            redis_client.hget(
                id_hash(store.live_prefixes()[0], fps[url].to_bytes(8, "big")), fps[url].to_bytes(8, "big")[2:]
            )
            == form
        )
    assert store.kept_documents() == fps and store.report()["fingerprints"] == 8
    assert store.decide("copy of a", fps[a] ^ 3).duplicate_of == a
    copies = [(f"copy of {i}", fp ^ 1) for i, fp in fps.items()]
    assert [d.duplicate_of for d in store.decide_many(copies)] == list(fps)
    assert [m.id for m in store.nearest(fps[b] ^ 3)][:1] == [b]
    assert all(d.replayed and d.kept for d in store.decide_many([(i, 1) for i in fps]))
    assert store.forget(a) == "kept" and store.forget(long_) == "kept" and store.report()["fingerprints"] == 6
    assert (
        redis_client.hget(home, fps[a].to_bytes(8, "big")[2:]) is None
        and redis_client.hlen(store.live_prefixes()[0] + "ids") == 2
    )
    assert redis_client.hget(long_home, low) is None  # its marker went with it
    assert store.decide("again", fps[a] ^ 1).kept  # nothing kept near a now


@pytest.mark.parametrize("rest", [60, 61, 62, 2000])
def test_an_id_whose_form_is_over_64_bytes_is_filed_whole_and_read_back(redis_client, rest):
    """A short form over 64 bytes (a listpack's longest value) goes whole to the ids hash,
    marked in its small hash, which stays a listpack."""
    store = RedisStore(redis_client, "long", batch_size=50)
    url = "https://mp.example.com/" + "s?x" * (rest // 3) + "y" * (rest % 3)  # short: byte 1, "1", "/" and rest
    plain = "q" * (rest + 3)  # no origin: its form is itself, as long
    fps = {url: 0x0F0F_0000_0000_0000, plain: 0x0F0F_00F0_F000_0000, "https://mp.example.com/a": 0x0F0F_F000_000F_0000}
    assert all(d.kept for d in store.decide_many(list(fps.items())))
    home = id_hash(store.live_prefixes()[0], fps[url].to_bytes(8, "big"))  # all three are filed here
    whole = {v for v in redis_client.hvals(store.live_prefixes()[0] + "ids")}
    assert whole == ({url.encode(), plain.encode()} if rest + 3 > 64 else set())
    assert redis_client.object("encoding", home) == b"listpack"
    assert store.kept_documents() == fps and store.report()["fingerprints"] == 3
    copies = store.decide_many([(f"copy {i}", fp ^ 7) for i, fp in enumerate(fps.values())])
    assert [(d.duplicate_of, d.distance) for d in copies] == [(i, 3) for i in fps]
    assert all(d.replayed and d.kept for d in store.decide_many([(i, 1) for i in fps]))
    assert store.lookup(url).simhash == fps[url] and store.lookup("copy 1").duplicate_of == plain
    assert store.forget(url) == "kept" and store.forget(plain) == "kept"
    assert redis_client.hkeys(home) == [(0x0F0F_F000_000F_0000).to_bytes(8, "big")[2:]]  # no marker left
    assert not redis_client.hlen(store.live_prefixes()[0] + "ids") and store.kept_documents() == {
        "https://mp.example.com/a": 0x0F0F_F000_000F_0000
    }
    assert store.decide("again", fps[url] ^ 1).kept  # nothing kept near url now


def test_drop_records_are_capped_and_the_oldest_go_first(redis_client):
    store = RedisStore(redis_client, "test", batch_size=7, drops_max=10)  # eras of 5 records, two live
    original = 0x0F0F_0F0F_0F0F_0F0F
    copies = [(f"copy{i:02d}", original ^ (1 << (i % 3))) for i in range(23)]
    assert all(not d.kept for d in store.decide_many([("orig", original), *copies])[1:])
    live = [read_records(redis_client, store.live_prefixes()[0], store.drops_rotate, [c]) != [None] for c, _ in copies]
    assert live == [False] * 15 + [True] * 8  # eras 3 (copies 15-19) and 4 (20-22); 0-2 deleted
    assert not any(redis_client.exists(*drop_hashes(store.live_prefixes()[0], era)) for era in (0, 1, 2))
    assert [d.id for d in store.drops(limit=100)] == [f"copy{i:02d}" for i in range(22, 14, -1)]
    assert [d.id for d in store.drops(limit=3)] == ["copy22", "copy21", "copy20"]
    newest = store.decide("copy22", 5)  # a recent drop: answered from its record
    assert newest.replayed and newest.duplicate_of == "orig"
    oldest = store.decide("copy00", original ^ 1)  # its record went: decided again, the same way
    assert not oldest.replayed and not oldest.kept and oldest.duplicate_of == "orig"
    assert store.lookup("copy16").duplicate_of == "orig" and store.forget("copy16") == "dropped"
    assert store.lookup("copy16") is None


@pytest.mark.parametrize(
    "bad",
    [
        Document("big", 1 << 64),
        Document("neg", -1),
        Document("len", 5, (1, 2, 3), 256),
        Document("key", 5, (1 << 24, 2, 3), 100),
    ],
)
def test_a_document_the_index_cannot_hold_is_refused_before_anything_is_decided(redis_client, bad):
    store = RedisStore(redis_client, "bad", sentences=SentenceRule())
    with pytest.raises(ValueError, match=bad.id):
        store.decide_many([Document("fine", 7), bad])
    assert store.lookup("fine") is None and store.counts()["kept"] == 0


@pytest.mark.parametrize(
    "doc,problem",
    [
        (Document("a", 1 << 64), "a simhash is an integer of 64 bits"),
        (Document("a", -1), "a simhash is an integer of 64 bits"),
        (Document("a", 1, (1 << 24,), 10), "sentence keys must be 24-bit"),
        (Document("a", 1, (1,), 256), "the length code a byte"),
        (Document("a", 1, tuple(range(256)), 10), "at most 255 sentence keys, got 256"),
        (Document("a", 1, published=Published(0, 5)), "a publication time is between 1970 and 2106"),
        (Document("a", 1, published=Published(6, 5)), "a publication time is between"),
        (Document("a", 1, published=Published(1, 1 << 32)), "a publication time is between"),
        (Document("a", 1, outlet=1 << 32), "outlet keys are 32-bit"),
        (Document("a", 1, credits=-1), "outlet keys are 32-bit"),
    ],
)
def test_a_document_the_index_cannot_hold_is_refused_before_any_write(redis_client, doc, problem):
    store = RedisStore(redis_client, "limits", sentences=SentenceRule())
    with pytest.raises(ValueError, match=problem):
        store.decide_many([doc])
    assert not list(redis_client.scan_iter(match="limits:*"))
    edge = Document("b", (1 << 64) - 1, tuple(range(255)), 255, Published(1, (1 << 32) - 1), (1 << 32) - 1, 0)
    assert store.decide_many([edge])[0].kept  # every field at its limit is held


@pytest.mark.parametrize("match,distance", [(0, 3), (1, 65), (1, -1), (1.5, 3)])
def test_a_sentence_rule_out_of_range_is_refused(match, distance):
    with pytest.raises(ValueError, match="sentence match must be a positive integer|sentence max distance"):
        SentenceRule(match=match, max_distance=distance)
    assert SentenceRule(match=1, max_distance=64).max_distance == 64
