"""The story's original is its earliest published copy (``original="earliest"``): a copy
published earlier than the kept one takes its place in the same atomic step, and every copy
that named the old one names it. Run against the in-memory store (the reference) and a real
Redis."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from news_crawler.dedup.index import Document, MemoryStore, RedisStore, SentenceRule
from news_crawler.dedup.index.base import Published, outlet_key, outlet_keys, published_span

T0 = 1_780_000_000  # a publication time, seconds since 1970
HOUR = 3600


def at(seconds: int) -> Published:
    return Published(seconds, seconds)


def flip(fp: int, *bits: int) -> int:
    for b in bits:
        fp ^= 1 << b
    return fp


@pytest.fixture(params=["memory", "redis"])
def make_store(request):
    def make(original="earliest", sentences=None, namespace="orig"):
        if request.param == "memory":
            return MemoryStore(3, sentences, original)
        client = request.getfixturevalue("redis_client")
        return RedisStore(client, namespace, 3, batch_size=50, sentences=sentences, original=original)

    return make


A = 0x0123_4567_89AB_CDEF


def test_an_earlier_copy_decided_later_takes_the_place_of_the_reprint(make_store):
    store = make_store()
    reprint, copy = Document("reprint", flip(A, 1), published=at(T0 + 5 * HOUR)), Document("copy", flip(A, 40))
    assert store.decide_many([reprint, copy])[1].duplicate_of == "reprint"  # no time: the first decided
    d = store.decide_many([Document("original", A, published=at(T0))])[0]
    assert d.kept and d.supersedes == ("reprint",) and d.duplicate_of is None
    # the reprint is now a copy of the original, and so is what named the reprint
    was = store.lookup("reprint")
    assert (was.duplicate_of, was.distance, was.rule) == ("original", 1, "simhash")
    assert store.lookup("copy").duplicate_of == "original"
    assert store.lookup("original").kept and store.lookup("original").replayed
    assert {r.id: r.duplicate_of for r in store.drops()} == {"reprint": "original", "copy": "original"}
    # a later copy of the story is dropped onto the original; re-deciding changes nothing
    assert store.decide_many([Document("late", flip(A, 60), published=at(T0 + 9 * HOUR))])[0].duplicate_of == "original"
    again = store.decide_many(
        [Document("original", A, published=at(T0)), Document("reprint", flip(A, 1)), Document("copy", flip(A, 40))]
    )
    assert again[0].kept and again[0].supersedes == () and again[1].duplicate_of == again[2].duplicate_of == "original"
    assert all(d.replayed for d in again)
    counts = store.counts()
    assert (counts["kept"], counts["dropped"], counts["superseded"]) == (1, 3, 1)


def test_the_original_decided_first_drops_the_reprint_as_before(make_store):
    store = make_store()
    assert store.decide_many([Document("original", A, published=at(T0))])[0].kept
    d = store.decide_many([Document("reprint", flip(A, 2, 3), published=at(T0 + HOUR))])[0]
    assert (d.duplicate_of, d.distance, d.supersedes) == ("original", 2, ())


@pytest.mark.parametrize(
    ("earlier_by", "supersedes"),
    [(61, True), (60, False), (59, False), (0, False), (-HOUR, False)],
)
def test_copies_within_a_minute_of_each_other_keep_the_first_decided(make_store, earlier_by, supersedes):
    store = make_store()
    store.decide_many([Document("first", A, published=at(T0))])
    d = store.decide_many([Document("second", flip(A, 9), published=at(T0 - earlier_by))])[0]
    assert d.kept is supersedes and d.supersedes == (("first",) if supersedes else ())


def test_no_time_on_either_side_or_the_first_rule_keeps_the_first_decided(make_store):
    store = make_store()
    store.decide_many([Document("untimed", A)])
    assert store.decide_many([Document("timed", flip(A, 5), published=at(T0))])[0].duplicate_of == "untimed"
    store.decide_many([Document("timed2", flip(A, 5, 6, 7, 8, 9), published=at(T0 + HOUR))])  # another story
    assert store.decide_many([Document("untimed2", flip(A, 5, 6, 7, 8))])[0].duplicate_of == "timed2"
    first = make_store(original="first", namespace="first")
    first.decide_many([Document("reprint", A, published=at(T0 + HOUR))])
    d = first.decide_many([Document("original", flip(A, 1), published=at(T0))])[0]
    assert d.duplicate_of == "reprint" and d.supersedes == ()


def test_a_date_without_a_time_is_earlier_only_when_its_whole_day_is(make_store):
    shanghai = ZoneInfo("Asia/Shanghai")
    day = published_span("2026-11-28", shanghai)
    noon = published_span("2026-11-28T12:00:00", shanghai)
    assert day == Published(noon.earliest - 12 * HOUR, noon.earliest + 12 * HOUR - 1)
    assert published_span("2026-11-28T04:00:00Z") == at(int(datetime(2026, 11, 28, 4, tzinfo=UTC).timestamp()))
    offset = published_span("2026-11-28T12:00:00+08:00", UTC)
    assert offset == at(
        int(datetime(2026, 11, 28, 12, tzinfo=timezone(__import__("datetime").timedelta(hours=8))).timestamp())
    )
    assert published_span("", shanghai) is None
    with pytest.raises(ValueError, match="'yesterday' is not an ISO 8601 time"):
        published_span("yesterday")
    store = make_store()
    store.decide_many([Document("noon", A, published=noon)])
    assert not store.decide_many([Document("same day", flip(A, 1), published=day)])[0].kept
    the_day_before = published_span("2026-11-27", shanghai)
    assert store.decide_many([Document("day before", flip(A, 2), published=the_day_before)])[0].supersedes == ("noon",)


def test_an_original_found_by_its_shared_sentences_takes_the_place_and_files_its_own(make_store):
    rule = SentenceRule(match=3, max_distance=20)
    store = make_store(sentences=rule)
    sentences = (101, 102, 103, 104, 105)
    far = flip(A, *range(0, 40, 3))  # 14 bits apart: only the sentence rule meets them
    store.decide_many([Document("reprint", far, sentences, 40, at(T0 + HOUR))])
    d = store.decide_many([Document("original", A, sentences, 40, at(T0))])[0]
    assert d.supersedes == ("reprint",)
    assert store.lookup("reprint").rule == "sentences"
    # the original's own sentences are in the index: a copy sharing them is dropped onto it
    copy = store.decide_many([Document("copy", flip(A, *range(1, 40, 3)), (101, 102, 103, 999, 998), 40)])[0]
    assert (copy.duplicate_of, copy.rule) == ("original", "sentences")


def test_a_chain_of_earlier_copies_ends_with_the_earliest_kept_and_every_copy_named(make_store):
    store = make_store()
    for n in range(6):  # each decided copy published an hour before the one decided before it
        store.decide_many([Document(f"c{n}", flip(A, n), published=at(T0 - n * HOUR))])
    assert [store.lookup(f"c{n}").duplicate_of for n in range(6)] == ["c5"] * 5 + [None]
    assert store.counts()["superseded"] == 5 and store.counts()["kept"] == 1


def test_forgetting_the_original_makes_its_copies_decided_afresh(make_store):
    store = make_store()
    store.decide_many([Document("reprint", A, published=at(T0 + HOUR))])
    store.decide_many([Document("original", flip(A, 1), published=at(T0))])
    assert store.forget("original") == "kept"
    assert store.decide_many([Document("reprint", A)])[0].kept


def test_random_stories_in_random_orders_keep_their_earliest_copy_as_redis_and_memory_agree(redis_client):
    """Stories of four copies each (within 2 bits of each other), every copy's time hours apart,
    decided in a random order in batches: each story keeps its earliest copy, every other copy
    names it; the Redis store decides exactly as the reference."""
    rng = random.Random(69)
    docs = []
    for s in range(60):
        base = rng.getrandbits(64)
        times = rng.sample(range(0, 48), 4)
        for c, hours in enumerate(times):
            published = None if (s % 10 == 0 and c == 1) else at(T0 + hours * HOUR)  # a few untimed
            # each copy a bit from the story's base: copies of one story are within 2 of each other
            docs.append(Document(f"s{s}c{c}", flip(base, *rng.sample(range(64), min(c, 1))), published=published))
    rng.shuffle(docs)
    memory, redis_store = MemoryStore(3), RedisStore(redis_client, "rand", 3, batch_size=7)
    for start in range(0, len(docs), 17):
        batch = docs[start : start + 17]
        assert memory.decide_many(batch) == redis_store.decide_many(batch)
    for store in (memory, redis_store):
        kept = {d.id for d in docs if store.lookup(d.id).kept}
        assert len(kept) == 60  # one copy a story
        for d in docs:
            story = d.id.split("c")[0]
            (original,) = [k for k in kept if k.split("c")[0] == story]
            assert d.id == original or store.lookup(d.id).duplicate_of == original
        for s in range(1, 60):  # stories whose copies are all timed: the earliest is kept
            if s % 10:
                timed = [d for d in docs if d.id.startswith(f"s{s}c")]
                assert min(timed, key=lambda d: d.published.earliest).id in kept


def test_an_original_found_by_its_simhash_files_its_own_sentences(make_store):
    store = make_store(sentences=SentenceRule(match=3, max_distance=20))
    store.decide_many([Document("reprint", A, (1, 2, 3, 4, 5), 40, at(T0 + HOUR))])
    d = store.decide_many([Document("original", flip(A, 1), (11, 12, 13, 14, 15), 40, at(T0))])[0]
    assert d.supersedes == ("reprint",)
    # a copy sharing only the original's sentences, 13 bits from it, is dropped onto it
    copy = store.decide_many([Document("copy", flip(A, *range(2, 40, 3)), (11, 12, 13, 98, 99), 40)])[0]
    assert (copy.duplicate_of, copy.rule) == ("original", "sentences")


COUNTY, PORTAL, WIRE = outlet_key("城关县融媒体中心"), outlet_key("某某门户网"), outlet_key("新华社")


@pytest.mark.parametrize(
    ("original_at", "supersedes"),
    [(None, True), (T0, True), (T0 + 60, True), (T0 + 61, False), (T0 - HOUR, True)],
)
def test_the_outlet_a_kept_reprint_names_as_its_source_is_the_story_s_original(make_store, original_at, supersedes):
    """The portal's reprint names the county in its 来源 line: the county's copy decided after
    it takes its place, when its time is unknown or not later than the reprint's by more than
    a minute (earlier by more: the time rule alone)."""
    store = make_store()
    reprint = Document("reprint", A, published=at(T0), outlet=PORTAL, credits=COUNTY)
    assert store.decide_many([reprint])[0].kept
    published = None if original_at is None else at(original_at)
    d = store.decide_many([Document("county", flip(A, 3), published=published, outlet=COUNTY)])[0]
    assert d.kept is supersedes and d.supersedes == (("reprint",) if supersedes else ())
    assert store.lookup("reprint").duplicate_of == ("county" if supersedes else None)


def test_a_copy_of_another_outlet_or_one_naming_none_takes_no_one_s_place(make_store):
    store = make_store()
    store.decide_many([Document("reprint", A, published=at(T0), outlet=PORTAL, credits=WIRE)])
    other = Document("other", flip(A, 1), published=at(T0), outlet=COUNTY)  # not the outlet it names
    assert store.decide_many([other])[0].duplicate_of == "reprint"
    unnamed = make_store(namespace="unnamed")
    unnamed.decide_many([Document("first", A, published=at(T0), outlet=PORTAL)])  # names no source
    assert unnamed.decide_many([Document("county", flip(A, 1), outlet=COUNTY)])[0].duplicate_of == "first"
    # a copy naming itself is no reprint: the keys say so (outlet_keys)
    assert outlet_keys("城关县融媒体中心", " 城关县 融媒体中心") == (COUNTY, 0)
    assert outlet_keys("", "新华社") == (0, WIRE) and outlet_keys("某某门户网", "") == (PORTAL, 0)
    first = make_store(original="first", namespace="first-named")
    first.decide_many([Document("reprint", A, outlet=PORTAL, credits=COUNTY)])
    assert first.decide_many([Document("county", flip(A, 1), outlet=COUNTY)])[0].duplicate_of == "reprint"


def test_stories_with_named_outlets_in_random_orders_are_decided_by_redis_as_by_memory(redis_client):
    """Stories of three copies: the outlet's own and two reprints naming it, times missing or
    within minutes of each other, decided in a random order in batches: the Redis store
    decides exactly as the reference, and an untimed story ends with the outlet's copy kept."""
    rng = random.Random(71)
    docs = []
    for s in range(60):
        base, own = rng.getrandbits(64), outlet_key(f"县{s}")
        for c in range(3):
            published = None if s % 2 == 0 else at(T0 + rng.randrange(-180, 180))
            outlets = (own, 0) if c == 0 else (outlet_key(f"门户{c}"), own)
            docs.append(
                Document(f"s{s}c{c}", flip(base, c), published=published, outlet=outlets[0], credits=outlets[1])
            )
    rng.shuffle(docs)
    memory, redis_store = MemoryStore(3), RedisStore(redis_client, "named", 3, batch_size=7)
    for start in range(0, len(docs), 17):
        batch = docs[start : start + 17]
        assert memory.decide_many(batch) == redis_store.decide_many(batch)
    assert all(redis_store.lookup(f"s{s}c0").kept for s in range(0, 60, 2))


def test_a_reprint_kept_in_a_sealed_generation_stays_the_story_s_original(redis_client):
    """Only the newest generation is written: an earlier copy that comes after the week its
    reprint was kept in ended is dropped onto the reprint, which keeps its place."""
    now = [float(T0)]
    store = RedisStore(
        redis_client, "sealed", 3, original="earliest", retention_days=14, generation_days=7, clock=lambda: now[0]
    )
    assert store.decide_many([Document("reprint", A, published=at(T0 + HOUR))])[0].kept
    now[0] += 7 * 86_400  # a new generation: the reprint's is sealed
    d = store.decide_many([Document("original", flip(A, 2), published=at(T0))])[0]
    assert (d.duplicate_of, d.supersedes) == ("reprint", ())
    assert store.lookup("reprint").kept
