"""Drop records as ``lua/drops.lua`` writes them."""

import random
from datetime import UTC, datetime

import pytest

from news_crawler.dedup.index import Document, MemoryStore, RedisStore, SentenceRule
from news_crawler.dedup.index.base import id_key
from news_crawler.dedup.index.drop_records import drop_hash
from news_crawler.dedup.index.scripts import shared

ORIGINAL = 0x0F0F_0F0F_0F0F_0F0F
URL = "https://news.example.com.cn/c/2019-10-23/doc-iicezuev4202091.shtml"
LONG = "https://mp.weixin.qq.com/s?__biz=MzI2MzEwNTY3OQ==&mid=2648978231&idx=1&sn=dd091611fcf1aa0c2aef" * 2


def filed_record(client, store, doc_id, era=0):
    key = id_key(doc_id)
    return client.hget(drop_hash(store.live_prefixes()[0], era, key), key[1:])


def test_a_drop_record_is_23_bytes_filed_by_id_key_and_reads_back_whole(redis_client):
    store = RedisStore(redis_client, "dr", batch_size=50)
    originals = {URL: ORIGINAL, LONG: 0xF0F0_0000_FFFF_0000, "\x00odd": 0x00FF_00FF_00FF_00FF, "plain": 1 << 40}
    store.decide_many(list(originals.items()))
    copies = [(f"https://copy.example.cn/{n}.html", fp ^ 1) for n, fp in enumerate(originals.values())]
    decided = store.decide_many(copies)
    assert [d.duplicate_of for d in decided] == list(originals)
    for (copy, fp), original in zip(copies, originals.values()):
        raw = filed_record(redis_client, store, copy)
        assert raw[:1] == b"\x03" and len(raw) == 23 and raw[1:9] == fp.to_bytes(8, "big")
        assert raw[15:] == original.to_bytes(8, "big")  # the kept simhash names the original
    records = {d.id: d for d in store.drops()}
    for (copy, fp), original in zip(copies, originals):
        rec = records[copy]
        assert (rec.duplicate_of, rec.simhash, rec.distance, rec.rule) == (original, fp, 1, "simhash")
        assert abs(datetime.fromisoformat(rec.time) - datetime.now(UTC)).total_seconds() < 600
        again = store.decide(copy, 5)  # a replay answers from the record
        assert again.replayed and (again.duplicate_of, again.simhash, again.distance) == (original, fp, 1)
        assert store.lookup(copy).duplicate_of == original


def test_a_drop_by_sentences_names_the_document_whose_sentences_it_shares(redis_client):
    store = RedisStore(redis_client, "dr", sentences=SentenceRule())
    store.decide_many(
        [Document("a", ORIGINAL, (1, 2, 3, 4, 5), 100), Document("b", ORIGINAL ^ 0xFFFF, (1, 2, 3, 9, 8), 100)]
    )
    rec = store.lookup("b")
    assert (rec.duplicate_of, rec.rule, rec.distance) == ("a", "sentences", 16)
    assert filed_record(redis_client, store, "b")[15:] == ORIGINAL.to_bytes(8, "big")


@pytest.mark.parametrize("kind", ["redis", "memory"])
def test_a_record_whose_original_was_forgotten_is_decided_again(redis_client, kind):
    store = RedisStore(redis_client, "dr") if kind == "redis" else MemoryStore()
    store.decide_many([("a", ORIGINAL), ("b", ORIGINAL ^ 1)])
    assert store.forget("a") == "kept"
    assert store.lookup("b") is None  # its record names nothing kept now
    again = store.decide("b", ORIGINAL ^ 1)
    assert not again.replayed and again.kept and store.lookup("b").kept
    if kind == "redis":
        assert filed_record(redis_client, store, "b") is None
    assert store.decide("c", ORIGINAL).duplicate_of == "b"


def test_forgetting_a_compact_record_takes_it_off_the_day_it_was_counted_under(redis_client):
    store = RedisStore(redis_client, "dr", batch_size=50)
    store.decide_many([("a", ORIGINAL), ("b", ORIGINAL ^ 1)])
    (rec,) = store.drops()
    assert store.counts()["drops:" + rec.time[:10]] == 1
    assert store.forget("b") == "dropped" and store.counts()["drops:" + rec.time[:10]] == 0


def test_the_day_of_a_time_is_the_utc_calendar_day(redis_client):
    script = redis_client.register_script(
        shared("ids.lua", "drops.lua") + "local out = {} for i = 1, #ARGV do "
        "out[i] = day_of(tonumber(ARGV[i])) end return out"
    )
    rng = random.Random(3)
    times = [0, 86399, 86400, 951782400, 951868799, 951868800, 1709251199, 1709251200, 4102444799, 4102444800]
    times += [rng.randrange(0, 2**32) for _ in range(500)]
    want = [datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d") for t in times]
    assert [d.decode() for d in script(keys=[], args=times)] == want
