"""Retention: fingerprints live in weekly (or any) generations; a document is decided
against every live one and an expired generation is deleted whole. Real Redis, a clock
the test moves."""

import random

import pytest

from news_crawler.dedup.index import Document, RedisStore, SentenceRule
from news_crawler.dedup.index.generations import FORMAT

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
    return sum(1 for _ in client.scan_iter(match=f"{store.namespace}:g{generation}:*", count=1000))


def test_copies_are_caught_across_generations_until_the_original_expires(redis_client, store, clock):
    a = 0x0123_4567_89AB_CDEF
    assert store.decide("a", a, (1, 2, 3, 4, 5), 100).kept
    assert store.generations.numbers() == [0]
    clock.advance(7)  # a new generation: "a" is read from the older one, sealed
    copy = store.decide("copy", flip(a, [1, 2]))
    assert (copy.duplicate_of, copy.rule) == ("a", "simhash")
    assert store.generations.numbers() == [1, 0] and redis_client.exists("keep:g0:sealed")
    by_sentences = store.decide("s", flip(a, range(0, 40, 4)), (5, 4, 3, 9, 8), 101)
    assert (by_sentences.duplicate_of, by_sentences.rule) == ("a", "sentences")
    assert store.lookup("a").kept and {d.id for d in store.drops()} == {"copy", "s"}
    assert [m.id for m in store.nearest(a)][:1] == ["a"]
    assert store.sentence_holders((1, 2), 100) == [[("a", a)], [("a", a)]]
    assert index_keys(redis_client, store, 0) > 0

    clock.advance(14)  # the generation after the first began 14 days ago: the first goes
    assert store.decide("later", flip(a, [3])).kept  # nothing of "a" is left to match
    assert index_keys(redis_client, store, 0) == 0 and store.generations.numbers() == [2, 1]
    assert store.lookup("a") is None
    assert store.lookup("copy") is None  # its record names what expired: decided again
    assert store.decide("a", a).duplicate_of == "later"  # an expired id is decided afresh
    assert store.counts()["kept"] == 2 and store.counts()["dropped"] == 3  # expired counts stay


@pytest.mark.parametrize(("query_bits", "named", "distance"), [([10], "old", 1), ([10, 20, 30], "new", 1)])
def test_the_nearer_of_an_older_generation_s_match_and_the_newest_s_is_named(
    redis_client, store, clock, query_bits, named, distance
):
    a = 0x0123_4567_89AB_CDEF
    assert store.decide("old", a).kept
    clock.advance(7)
    assert store.decide("new", flip(a, [10, 20, 30, 40])).kept  # 4 bits from "old"
    d = store.decide("q", flip(a, query_bits))  # 1 and 3 bits from them, or 3 and 1
    assert (d.duplicate_of, d.distance, d.rule) == (named, distance, "simhash")


@pytest.mark.parametrize(
    ("older", "newer", "named", "distance"),
    [
        ([1, 2, 3], [9], "newer", 1),  # the newer sealed generation's is nearer
        ([9], [1, 2, 3], "older", 1),  # the older sealed generation's is nearer
        ([1, 2], [9, 17], "newer", 2),  # as near: the newer generation's stands
    ],
)
def test_between_two_sealed_generations_the_nearer_match_is_named(
    redis_client, store, clock, older, newer, named, distance
):
    a = 0x0123_4567_89AB_CDEF
    assert store.decide("older", flip(a, older)).kept
    clock.advance(7)
    assert store.decide("newer", flip(a, newer)).kept
    clock.advance(7)
    d = store.decide("q", a)
    assert store.generations.numbers() == [2, 1, 0]  # a third generation: both were read from sealed ones
    assert (d.duplicate_of, d.distance, d.rule) == (named, distance, "simhash")


@pytest.mark.parametrize("simhash_first", [True, False])
def test_between_two_sealed_generations_the_simhash_rule_beats_the_sentence_rule(
    redis_client, store, clock, simhash_first
):
    a = 0x0123_4567_89AB_CDEF
    by_simhash = ("sim", flip(a, [1, 2, 3]), (), 0)  # 3 bits from the query, no sentences
    by_sentences = ("sen", flip(a, range(0, 40, 4)), (1, 2, 3, 4, 5), 100)  # 10 bits, its sentences
    for doc in (by_simhash, by_sentences) if simhash_first else (by_sentences, by_simhash):
        assert store.decide(*doc).kept
        clock.advance(7)
    d = store.decide("q", a, (1, 2, 3, 4, 5), 100)
    assert store.generations.numbers() == [2, 1, 0]
    assert (d.duplicate_of, d.distance, d.rule) == ("sim", 3, "simhash")


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
    weeks = 4  # each generation that expires unlinks its 458,752 key names: a second of Redis
    for week in range(weeks):
        docs = [
            Document(f"w{week}-{i}", rng.getrandbits(64), tuple(rng.getrandbits(24) for _ in range(5)), 100)
            for i in range(300)
        ]
        store.decide_many(docs)
        assert not any(
            d.kept for d in store.decide_many([(f"w{week}-copy{i}", d.simhash ^ 1) for i, d in enumerate(docs[:30])])
        )
        clock.advance(7)
    # Generation k goes once k + 1 began 14 days ago: in week 4, weeks 2 and 3 are live.
    assert store.generations.numbers() == [weeks - 1, weeks - 2]
    assert all(index_keys(redis_client, store, g) == 0 for g in range(0, weeks - 2))
    assert all(index_keys(redis_client, store, g) > 0 for g in range(weeks - 2, weeks))
    assert store.report()["fingerprints"] == 600
    store.decide("now", 1)
    assert store.generations.numbers() == [weeks, weeks - 1, weeks - 2] and store.expire() == []
    assert store.report()["fingerprints"] == 601 and store.counts()["kept"] == 300 * weeks + 1


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
    assert forever.live_prefixes() == ["forever:g0:"]
    with pytest.raises(ValueError):
        RedisStore(redis_client, "bad", retention_days=-1)


def test_expire_from_the_command_line(redis_server, redis_client):
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "DEDUP_RETENTION_DAYS": "14"}
    clock = Clock(1_000 * DAY)
    old = RedisStore(redis_client, "cli", retention_days=14, clock=clock)
    old.decide("a", 5)
    clock.advance(8)
    old.decide("b", 0xF0F0_F0F0_F0F0_F0F0)
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "news_crawler.cli.dedup",
            "expire",
            "--redis-url",
            redis_server.url,
            "--namespace",
            "cli",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report == {"retention_days": 14, "expired_generations": [0], "live_generations": ["g1"]}
    assert not redis_client.exists("cli:g0:held") and redis_client.exists("cli:g1:held")


def test_turning_retention_on_keeps_reading_the_index_kept_without_it(redis_client, clock):
    a, b = 0x0123_4567_89AB_CDEF, 0x7E57_0000_FFFF_1234
    plain = RedisStore(redis_client, "keep", sentences=SentenceRule(), clock=clock)
    assert plain.decide("a", a).kept
    clock.advance(30)
    store = RedisStore(
        redis_client, "keep", sentences=SentenceRule(), retention_days=14, generation_days=7, clock=clock
    )
    assert store.lookup("a").kept  # read before any decision with retention on
    assert store.decide("copy", flip(a, [1])).duplicate_of == "a"
    assert store.decide("b", b).kept  # written into a new generation
    assert redis_client.get("keep:g0:held") == b"1" and redis_client.get("keep:g1:held") == b"1"
    # The index kept without retention stopped being written when retention came on: it goes
    # 14 days after that.
    clock.advance(13)
    assert store.decide("copy2", flip(a, [2])).duplicate_of == "a"
    clock.advance(7)
    assert store.decide("copy3", flip(a, [3])).kept
    assert not redis_client.exists("keep:g0:held", "keep:g0:i" + f"{a >> 48:04x}", "keep:g0:0" + f"{a >> 48:04x}")
    assert redis_client.hget("keep:stats", "kept") == b"1"  # the counts of what expired stay
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
    assert plain.decide("c", 0x1111_2222_3333_4444).kept and redis_client.get("keep:g1:held") == b"2"
    assert plain.expire() == [] and plain.lookup("a").kept


def test_a_write_on_a_generation_another_process_sealed_is_decided_on_the_newest(redis_client, clock):
    """A process whose clock lags behind another's writes where the other sealed: its batch
    is refused whole and decided on the newest generation, against everything kept."""
    a = 0x0123_4567_89AB_CDEF
    behind = RedisStore(redis_client, "skew", retention_days=14, clock=lambda: clock.now - 3 * DAY)
    ahead = RedisStore(redis_client, "skew", retention_days=14, clock=clock)
    clock.now = (clock.now // (7 * DAY) + 1) * 7 * DAY + DAY  # a day into a period: behind is in the one before
    assert behind.decide("a", a).kept and ahead.generations.numbers() == [0]
    assert ahead.decide("b", flip(a, range(0, 64, 3))).kept  # a new period for ahead: generation 1, 0 sealed
    assert behind.live_prefixes() == ["skew:g0:"]  # what behind read before
    copies = behind.decide_many([("copy of b", flip(a, range(0, 64, 3)) ^ 1), ("copy of a", a ^ 1), ("c", 5)])
    assert [d.duplicate_of for d in copies] == ["b", "a", None]
    assert behind.live_prefixes() == ["skew:g1:", "skew:g0:"] and behind.lookup("c").kept
    assert redis_client.get("skew:g1:held") == b"2" and redis_client.get("skew:g0:held") == b"1"


def test_an_index_of_another_format_stops_with_one_line(redis_client):
    from news_crawler.dedup.index.generations import IndexFormatError

    redis_client.set("old:held", 3)  # as a version before formats were recorded wrote it
    with pytest.raises(
        IndexFormatError,
        match=r"^the index in namespace 'old' holds index keys with no format "
        r"version; .* `news-dedup forget --all --namespace old`$",
    ):
        RedisStore(redis_client, "old").decide("a", 1)
    RedisStore(redis_client, "other").decide("a", 1)
    redis_client.set("other:format", "0")
    with pytest.raises(IndexFormatError, match=f"holds format 0; this version reads format {FORMAT.decode()} only"):
        RedisStore(redis_client, "other").lookup("a")
