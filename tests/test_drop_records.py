"""Drop records as ``lua/drops.lua`` writes them, and the JSON ones of earlier versions."""

import json
import random
from datetime import datetime, timezone

from news_crawler.index import RedisStore, SentenceRule
from news_crawler.index.scripts import shared

ORIGINAL = 0x0F0F_0F0F_0F0F_0F0F
URL = "https://news.example.com.cn/c/2019-10-23/doc-iicezuev4202091.shtml"
LONG = "https://mp.weixin.qq.com/s?__biz=MzI2MzEwNTY3OQ==&mid=2648978231&idx=1&sn=dd091611fcf1aa0c2aef" * 2


def test_a_drop_record_is_compact_and_reads_back_whole(redis_client):
    store = RedisStore(redis_client, "dr", batch_size=50)
    originals = {URL: ORIGINAL, LONG: 0xF0F0_0000_FFFF_0000, "\x00odd": 0x00FF_00FF_00FF_00FF, "plain": 1 << 40}
    store.decide_many(list(originals.items()))
    copies = [(f"https://copy.example.cn/{n}.html", fp ^ 1) for n, fp in enumerate(originals.values())]
    decided = store.decide_many(copies)
    assert [d.duplicate_of for d in decided] == list(originals)
    raw = redis_client.hget(store.drops_key, copies[0][0])
    assert raw[:1] == b"\x02" and len(raw) == 15 + len(b"\x041/c/\x94\x93-\x8a-\x97/doc-iicezuev\xaa\x82\x891.shtml")
    records = {d.id: d for d in store.drops()}
    for (copy, fp), original in zip(copies, originals):
        rec = records[copy]
        assert (rec.duplicate_of, rec.simhash, rec.distance, rec.rule) == (original, fp, 1, "simhash")
        assert abs(datetime.fromisoformat(rec.time) - datetime.now(timezone.utc)).total_seconds() < 600
        again = store.decide(copy, 5)  # a replay answers from the record
        assert again.replayed and (again.duplicate_of, again.simhash, again.distance) == (original, fp, 1)
        assert store.lookup(copy).duplicate_of == original


def test_a_json_record_of_earlier_versions_is_read_replayed_and_forgotten_from_its_day(redis_client):
    store = RedisStore(redis_client, "dr", sentences=SentenceRule())
    store.decide("a", ORIGINAL)
    old = {"simhash": f"{ORIGINAL ^ 3:016x}", "duplicate_of": "a", "distance": 2, "time": "2019-03-01T08:00:00+00:00",
           "rule": "sentences"}
    redis_client.hset(store.drops_key, "b", json.dumps(old))
    redis_client.hset(store.stats_key, mapping={"dropped": 1, "dropped:sentences": 1, "drops:2019-03-01": 1})
    (rec,) = store.drops()
    assert (rec.id, rec.duplicate_of, rec.distance, rec.rule, rec.time) == ("b", "a", 2, "sentences", old["time"])
    again = store.decide("b", 12345)
    assert again.replayed and (again.duplicate_of, again.simhash, again.rule) == ("a", ORIGINAL ^ 3, "sentences")
    assert store.forget("b") == "dropped"
    counts = store.counts()
    assert (counts["dropped"], counts["dropped:sentences"], counts["drops:2019-03-01"]) == (0, 0, 0)


def test_forgetting_a_compact_record_takes_it_off_the_day_it_was_counted_under(redis_client):
    store = RedisStore(redis_client, "dr", batch_size=50)
    store.decide_many([("a", ORIGINAL), ("b", ORIGINAL ^ 1)])
    (rec,) = store.drops()
    assert store.counts()["drops:" + rec.time[:10]] == 1
    assert store.forget("b") == "dropped" and store.counts()["drops:" + rec.time[:10]] == 0


def test_the_day_of_a_time_is_the_utc_calendar_day(redis_client):
    script = redis_client.register_script(shared("ids.lua", "drops.lua") + "local out = {} for i = 1, #ARGV do "
                                          "out[i] = day_of(tonumber(ARGV[i])) end return out")
    rng = random.Random(3)
    times = [0, 86399, 86400, 951782400, 951868799, 951868800, 1709251199, 1709251200, 4102444799, 4102444800]
    times += [rng.randrange(0, 2**32) for _ in range(500)]
    want = [datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%d") for t in times]
    assert [d.decode() for d in script(keys=[], args=times)] == want
