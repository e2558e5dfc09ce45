"""The index's layouts (the seed's 16/12/12/12/12 and any other split of the 64 bits): every
layout decides exactly as a scan of every kept fingerprint would, on a real Redis; a namespace
keeps its layout; fingerprints made elsewhere are decided by the simhash rule alone."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from news_crawler.dedup.fingerprint import distance
from news_crawler.dedup.index import Document, MemoryStore, RedisStore
from news_crawler.dedup.index.layout import DEFAULT, MAX_TABLES, Layout, LayoutError
from tests.crawl_helpers import ROOT

LAYOUTS = [
    ((16, 16, 16, 16), 3),
    ((16, 12, 12, 12, 12), 3),
    ((16, 12, 12, 12, 12), 4),
    ((16, 16, 16, 16), 2),
    ((16, 16, 16, 16), 0),
    ((10, 10, 10, 10, 12, 12), 4),  # blocks that cut bytes in two, buckets of 10 and 20 bits
]


def scan(docs: list[tuple[str, int]], k: int) -> list[tuple[str | None, int | None]]:
    """What a scan of every kept fingerprint decides: the nearest kept within k (the smallest
    fingerprint on a tie), else kept."""
    kept: list[tuple[int, str]] = []
    out = []
    for doc_id, fp in docs:
        near = min(((distance(fp, other), other, i) for other, i in kept if distance(fp, other) <= k), default=None)
        if near is None:
            kept.append((fp, doc_id))
            out.append((None, None))
        else:
            out.append((near[2], near[0]))
    return out


def stream(seed: int, stories: int = 150) -> list[tuple[str, int]]:
    """Stories of copies 0 to 6 bits from their first, and fingerprints a few bits from other
    stories' copies; in a random order."""
    rng = random.Random(seed)
    docs = []
    for s in range(stories):
        base = rng.getrandbits(64)
        for c in range(rng.randint(1, 4)):
            fp = base
            for bit in rng.sample(range(64), rng.randint(0, 6)):
                fp ^= 1 << bit
            docs.append((f"s{s}c{c}", fp))
    rng.shuffle(docs)
    return docs


@pytest.mark.parametrize(("blocks", "k"), LAYOUTS)
def test_every_layout_decides_as_a_scan_of_every_kept_fingerprint(redis_client, blocks, k):
    docs = stream(seed=sum(blocks) + k + len(blocks))
    expected = scan(docs, k)
    redis_store = RedisStore(redis_client, f"layout{len(blocks)}k{k}", k, batch_size=23, blocks=blocks)
    memory = MemoryStore(k, blocks=blocks)
    for store in (redis_store, memory):
        got = [(d.duplicate_of, d.distance) for d in store.decide_many([Document(i, fp) for i, fp in docs])]
        assert got == expected, (blocks, k, type(store).__name__)
    drops = [e for e in expected if e[0] is not None]
    assert drops and all(d <= k for _, d in drops) and len(drops) < len(docs)


def test_the_default_and_the_five_block_layout_keep_the_same_at_distance_3(redis_client):
    docs = [Document(i, fp) for i, fp in stream(seed=70, stories=300)]
    four = RedisStore(redis_client, "four", 3, blocks=(16, 16, 16, 16)).decide_many(docs)
    five = RedisStore(redis_client, "five", 3, blocks=(16, 12, 12, 12, 12)).decide_many(docs)
    assert four == five


def test_a_layout_s_tables_and_permutations():
    five = Layout((16, 12, 12, 12, 12), 3)
    assert len(five.tables) == 10 and five.tables[0] == (0, 1)
    assert five.describe() == "16,12,12,12,12 at distance 3: 10 tables keyed by 2 blocks"
    assert Layout((16, 12, 12, 12, 12), 4).describe() == "16,12,12,12,12 at distance 4: 5 tables keyed by 1 block"
    assert [DEFAULT.bucket_bits(t) for t in range(4)] == [16] * 4 and DEFAULT.entry_bytes(0) == 6
    four = Layout((16, 12, 12, 12, 12), 4)
    assert [four.bucket_bits(t) for t in range(5)] == [16, 12, 12, 12, 12] and four.entry_bytes(1) == 7
    rng = random.Random(1)
    for layout in (five, four, DEFAULT, Layout((10, 10, 10, 10, 12, 12), 4)):
        fps = [rng.getrandbits(64) for _ in range(50)]
        permuted = layout.permute_all(fps)
        for t in range(len(layout.tables)):
            assert [layout.permute(fp, t) for fp in fps] == [int(x) for x in permuted[:, t]]
            assert [layout.unpermute(layout.permute(fp, t), t) for fp in fps] == fps
            assert [int(x) for x in layout.unpermute_all(permuted[:, t], t)] == fps
    # at most MAX_TABLES tables: 64 one-bit blocks make exactly 64 at distance 63, 2,016 at 62
    assert len(Layout((1,) * 64, 63).tables) == MAX_TABLES == 64
    with pytest.raises(LayoutError, match="2016 tables, more than 64"):
        Layout((1,) * 64, 62)
    # the default's table t is the fingerprint with block t first, the rest in order: the
    # 16-bit block tables of the design card, each bucket named by one block
    fp = 0x1111_2222_3333_4444
    assert [hex(DEFAULT.permute(fp, t)) for t in range(4)] == [
        "0x1111222233334444",
        "0x2222111133334444",
        "0x3333111122224444",
        "0x4444111122223333",
    ]


def dedup(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "news_crawler.cli.dedup", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_check_decides_fingerprints_given_by_the_simhash_rule_and_a_namespace_keeps_its_layout(
    redis_server, redis_client
):
    rng = random.Random(7)
    base = rng.getrandbits(64)
    lines = [
        {"id": "a", "simhash": f"{base:016x}"},
        {"id": "b", "simhash": f"{base ^ 0b1111:016X}"},  # 4 bits off: a copy at distance 4 only
        {"id": "c", "simhash": "123"},
        {"id": "d", "simhash": f"{rng.getrandbits(64):016x}", "body": "ignored when a fingerprint is given"},
    ]
    stdin = "\n".join(json.dumps(x) for x in lines) + "\n"
    common = ["--redis-url", redis_server.url, "--namespace", "five"]
    out = dedup("check", *common, "--blocks", "16,12,12,12,12", "--max-distance", "4", "-", stdin=stdin)
    assert out.returncode == 0, out.stderr
    a, b, c, d = (json.loads(x) for x in out.stdout.splitlines())
    assert a == {"id": "a", "simhash": f"{base:016x}", "duplicate_of": None, "distance": None}
    assert (b["duplicate_of"], b["distance"], b["rule"]) == ("a", 4, "simhash")
    assert c == {"id": "c", "error": 'line 3: "simhash" must be 16 hex digits'} and d["duplicate_of"] is None
    # the namespace keeps its layout: a check with another is one line, exit 2
    again = dedup("check", *common, "-", stdin=stdin)
    assert again.returncode == 2 and again.stdout == ""
    assert again.stderr.splitlines() == [
        "news-dedup: the index in namespace 'five' has blocks 16,12,12,12,12 at max distance 4; this run asks "
        "for 16,16,16,16 at 3: use the namespace's (DEDUP_BLOCKS=16,12,12,12,12 DEDUP_MAX_DISTANCE=4, or "
        "news-dedup check --blocks 16,12,12,12,12 --max-distance 4) or another DEDUP_NAMESPACE"
    ]
    # what only looks reads it as recorded
    explained = json.loads(dedup("explain", *common, "--id", "b", "--json").stdout)
    assert explained["duplicate_of"] == "a" and explained["evidence"]["matched_blocks"] == [0, 1, 2, 3]
    assert explained["blocks"] == [f"{base >> 48:04x}", *(f"{(base >> s) & 0xFFF:03x}" for s in (36, 24, 12))] + [
        f"{(base ^ 0b1111) & 0xFFF:03x}"
    ]
    stats = json.loads(dedup("stats", *common, "--json").stdout)
    assert stats["layout"] == "16,12,12,12,12 at distance 4: 5 tables keyed by 1 block"


QUERY = 0x8000_0000_0000_0001


@pytest.mark.parametrize(
    ("blocks", "k", "larger", "smaller"),
    [  # each as far from the query as the other, and further apart than k: both kept
        ((16, 16, 16, 16), 3, QUERY ^ 0b110, QUERY ^ (0b11 << 62)),
        ((16, 12, 12, 12, 12), 4, QUERY ^ 0b1110, QUERY ^ (0b111 << 61)),
    ],
)
def test_a_tie_goes_to_the_smallest_fingerprint_whatever_was_kept_first(redis_client, blocks, k, larger, smaller):
    query, off = QUERY, distance(QUERY, larger)
    assert larger > smaller and distance(query, smaller) == off and distance(larger, smaller) > k
    for store in (RedisStore(redis_client, f"tie{k}", k, blocks=blocks), MemoryStore(k, blocks=blocks)):
        store.decide_many([Document("larger", larger), Document("smaller", smaller)])
        (d,) = store.decide_many([Document("q", query)])
        assert (d.duplicate_of, d.distance) == ("smaller", off), type(store).__name__
