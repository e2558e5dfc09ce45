"""Retention: fingerprints live in weekly (or any) generations; a document is decided
against every live one and an expired generation is deleted whole. Real Redis, a clock
the test moves."""

import random

import pytest

from news_crawler.index import Document, RedisStore, SentenceRule

DAY = 86_400


class Clock:
    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, days: float) -> None:
        self.now += days * DAY


def flip(fp, bits):
    for b in bits:
        fp ^= 1 << b
    return fp


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(redis_client, clock):
    return RedisStore(redis_client, "keep", sentences=SentenceRule(), retention_days=14, generation_days=7, clock=clock)


def index_keys(client, store, generation):
    return sum(1 for _ in client.scan_iter(match=f"{store.prefix(generation)}*", count=1000))


def test_copies_are_caught_across_generations_until_the_original_expires(redis_client, store, clock):
    a = 0x0123_4567_89AB_CDEF
    first = store.generations.current()
    assert store.decide("a", a, (1, 2, 3, 4, 5), 100).kept
    clock.advance(7)  # a new generation: "a" is read from the older one
    copy = store.decide("copy", flip(a, [1, 2]))
    assert (copy.duplicate_of, copy.rule) == ("a", "simhash")
    by_sentences = store.decide("s", flip(a, range(0, 40, 4)), (5, 4, 3, 9, 8), 101)
    assert (by_sentences.duplicate_of, by_sentences.rule) == ("a", "sentences")
    assert store.lookup("a").kept and {d.id for d in store.drops()} == {"copy", "s"}
    assert [m.id for m in store.nearest(a)][:1] == ["a"]
    assert store.sentence_holders((1, 2), 100) == [[("a", a)], [("a", a)]]
    assert index_keys(redis_client, store, first) > 0

    clock.advance(14)  # three generations on: the first is older than 14 days and goes
    assert store.decide("later", flip(a, [3])).kept  # nothing of "a" is left to match
    assert index_keys(redis_client, store, first) == 0
    assert store.lookup("a") is None
    assert store.lookup("copy") is None  # its record names what expired: decided again
    assert store.decide("a", a).duplicate_of == "later"  # an expired id is decided afresh
    assert first not in {int(g) for g in redis_client.smembers(store.generations.key)}


def test_a_fingerprint_is_kept_at_least_the_retention(redis_client, store, clock):
    clock.now = (clock.now // (7 * DAY) + 1) * 7 * DAY - 1  # the last second of a generation
    store.decide("a", 42)
    for days in (1, 7, 13.99):
        probe = clock.now
        clock.advance(days)
        assert store.decide(f"copy{days}", 43).duplicate_of == "a", days
        clock.now = probe
    clock.advance(14 + 7)  # beyond retention plus one generation: gone
    assert store.decide("late", 43).kept


def test_memory_stays_bounded_over_many_generations(redis_client, store, clock):
    rng = random.Random(2)
    for week in range(8):
        docs = [Document(f"w{week}-{i}", rng.getrandbits(64), tuple(rng.getrandbits(24) for _ in range(5)), 100)
                for i in range(300)]
        store.decide_many(docs)
        assert not any(d.kept for d in store.decide_many([(f"w{week}-copy{i}", d.simhash ^ 1) for i, d in enumerate(docs[:30])]))
        clock.advance(7)
    live = store.generations.live_count()
    now = store.generations.current()
    assert live == 3
    assert sorted(int(g) for g in redis_client.smembers(store.generations.key)) == list(range(now - 3, now))
    # Deleted when the last batch started its generation (now - 1): everything older than
    # that batch's live window; now - 3 goes with the next new generation.
    assert all(index_keys(redis_client, store, g) == 0 for g in range(now - 8, now - 3))
    assert all(index_keys(redis_client, store, g) > 0 for g in range(now - 3, now))
    assert store.report()["fingerprints"] == 600  # two weeks of 300 in today's live window
    store.decide("now", 1)
    assert index_keys(redis_client, store, now - 3) == 0 and store.expire() == []


def test_forget_finds_the_generation(redis_client, store, clock):
    store.decide("a", 1000)
    clock.advance(7)
    store.decide("b", 1001)
    assert store.forget("a") == "kept" and store.forget("b") == "dropped"
    assert store.decide("c", 1001).kept


def test_expire_command_and_no_retention(redis_client, clock):
    forever = RedisStore(redis_client, "forever", clock=clock)
    forever.decide("a", 7)
    clock.advance(1000)
    assert forever.expire() == [] and forever.decide("b", 7).duplicate_of == "a"
    assert forever.prefix() == "forever:" and not redis_client.exists(forever.generations.key)
    with pytest.raises(ValueError):
        RedisStore(redis_client, "bad", retention_days=-1)


def test_expire_from_the_command_line(redis_server, redis_client):
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "DEDUP_RETENTION_DAYS": "14"}
    old = RedisStore(redis_client, "cli", retention_days=14, clock=lambda: 1_000 * DAY)
    old.decide("a", 5)
    RedisStore(redis_client, "cli").decide("p", 0xF0F0_F0F0_F0F0_F0F0)  # kept before retention was turned on
    out = subprocess.run([sys.executable, "-m", "news_crawler.cli.dedup", "expire", "--redis-url", redis_server.url,
                          "--namespace", "cli"], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["retention_days"] == 14 and report["expired_generations"] == [1000 // 7]
    assert "plain" in report["live_generations"] and len(report["live_generations"]) == 4
    assert not redis_client.exists(old.prefix() + "held") and redis_client.exists("cli:held")


def test_turning_retention_on_keeps_reading_the_index_kept_without_it(redis_client, clock):
    a, b = 0x0123_4567_89AB_CDEF, 0x7E57_0000_FFFF_1234
    plain = RedisStore(redis_client, "keep", sentences=SentenceRule(), clock=clock)
    assert plain.decide("a", a).kept
    clock.advance(30)
    store = RedisStore(redis_client, "keep", sentences=SentenceRule(), retention_days=14, generation_days=7,
                       clock=clock)
    assert store.lookup("a").kept  # read before any decision with retention on
    assert store.decide("copy", flip(a, [1])).duplicate_of == "a"
    assert store.decide("b", b).kept  # written into the current generation
    assert redis_client.get("keep:held") == b"1" and redis_client.get(f"{store.prefix()}held") == b"1"
    # The old index counts as kept the day retention came on: it goes with that generation.
    clock.advance(14)
    assert store.decide("copy2", flip(a, [2])).duplicate_of == "a"
    clock.advance(7)
    assert store.decide("copy3", flip(a, [3])).kept
    assert not redis_client.exists("keep:held", "keep:i" + f"{a >> 48:04x}", "keep:0" + f"{a >> 48:04x}")
    assert redis_client.exists("keep:stats")  # the counts stay
    assert store.lookup("a") is None


def test_turning_retention_off_keeps_reading_the_generations(redis_client, store, clock):
    a = 0x0123_4567_89AB_CDEF
    assert store.decide("a", a, (1, 2, 3, 4, 5), 100).kept
    clock.advance(7)
    assert store.decide("b", flip(a, range(0, 64, 2))).kept
    clock.advance(100)  # far past the retention: without it nothing expires
    plain = RedisStore(redis_client, "keep", sentences=SentenceRule(), clock=clock)
    assert plain.lookup("a").kept and plain.lookup("b").kept
    assert plain.decide("copy", flip(a, [5])).duplicate_of == "a"
    assert plain.decide("sentences", flip(a, range(0, 40, 4)), (5, 4, 3, 9, 8), 101).duplicate_of == "a"
    assert plain.decide("c", 0x1111_2222_3333_4444).kept and redis_client.get("keep:held") == b"1"
    assert plain.expire() == [] and plain.lookup("a").kept
