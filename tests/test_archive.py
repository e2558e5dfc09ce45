"""Archived generations (the seed's sorted, delta + Huffman tables, their ids and sentence keys
compressed): read-only, deciding every document exactly as the live index would, on a real
Redis."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import numpy as np
import pytest

from news_crawler.dedup.index import Document, RedisStore, SentenceRule
from news_crawler.dedup.index.archive import (
    _front_decoded,
    code_lengths,
    decode_table,
    encode_ids,
    encode_table,
)
from news_crawler.dedup.index.base import Published
from news_crawler.dedup.index.redis_store import ArchivedError
from tests.crawl_helpers import ROOT

RULE = SentenceRule()


def test_the_table_codes_and_decodes_every_block_exactly():
    rng = random.Random(70)
    for n in (0, 1, 2, 127, 128, 129, 256, 5000):
        values = np.unique(np.array([rng.getrandbits(64) for _ in range(n)], dtype=np.uint64))
        table = encode_table(values)
        back = decode_table(table["stream"], table["firsts"], table["starts"], table["lengths"], table["count"])
        assert back.dtype == np.uint64 and (back == values).all(), n
    # neighbours a bit apart, the top bits alike: the case that needs every code length
    close = np.unique(np.array([(1 << 63) + (i << 3) + rng.randrange(8) for i in range(3000)], dtype=np.uint64))
    table = encode_table(close)
    assert (
        decode_table(table["stream"], table["firsts"], table["starts"], table["lengths"], len(close)) == close
    ).all()
    assert len(table["stream"]) < 2 * len(close)  # a few bits a neighbour, not eight bytes
    assert max(code_lengths([1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610] * 4, limit=6)) <= 6


def test_ids_come_back_from_their_blocks():
    ids = sorted(f"https://news.example.com/{n:05d}/{'x' * (n % 7)}" for n in range(1500))
    # ids sharing more than the 255 bytes a shared prefix is counted in (long signed WeChat-like URLs)
    ids = sorted(ids + [f"https://mp.example.com/s?sig={'a' * 300}&n={n}" for n in range(3)])
    blocks = encode_ids(ids)
    import bz2

    starts = np.frombuffer(blocks["starts"], dtype=">u8").astype(int).tolist() + [len(blocks["stream"])]
    back = [i for a, b in zip(starts, starts[1:]) for i in _front_decoded(bz2.decompress(blocks["stream"][a:b]))]
    assert back == ids


def stories(sina_articles, fingerprinter, start: int, n: int, seed: int) -> list[Document]:
    """Real articles and copies of them (a few characters edited, a credit line), in a random order."""
    rng = random.Random(seed)
    docs = []
    for k, a in enumerate(sina_articles[start : start + n]):
        body = a["body"]
        versions = [body, "来源：新华网\n" + body.replace("，", ",", 2)]
        for v, text in enumerate(versions[: 1 + (k % 2)]):
            fp = fingerprinter.fingerprint(text)
            when = Published(1_530_000_000 + 3600 * (k + v), 1_530_000_000 + 3600 * (k + v))
            docs.append(Document(f"https://a{v}.example.com/{start + k}.html", fp.value, fp.sentences, fp.length, when))
    rng.shuffle(docs)
    return docs


@pytest.fixture
def archived_and_live(redis_client, sina_articles, fingerprinter):
    """The same stream decided into two namespaces; one of them then archived whole."""
    first = stories(sina_articles, fingerprinter, 0, 120, seed=1)
    # a reprint kept first, a copy of it, then its original (published earlier) in its place:
    # the copy's record names the reprint, which a link names the original by
    fp = fingerprinter.fingerprint(sina_articles[130]["body"])
    reprint = Document(
        "https://r.example.com/reprint.html", fp.value, fp.sentences, fp.length, Published(1_600_000_000, 1_600_000_000)
    )
    copy = Document("https://r.example.com/copy.html", fp.value ^ 0b11)
    original = Document(
        "https://r.example.com/original.html", fp.value ^ 0b100, published=Published(1_500_000_000, 1_500_000_000)
    )
    # two kept documents six bits apart, and later one three bits from each: a tie. The larger
    # shares the later one's first block, so a scan in table order finds it first
    x = random.Random(5).getrandbits(64) | (1 << 63)
    y = x ^ (0b111 << 61) ^ 0b111  # three bits off in the first block (the top one: smaller), three in the last
    twins = [Document("https://t.example.com/x.html", x), Document("https://t.example.com/y.html", y)]
    first += [reprint, copy, original, *twins]
    for namespace in ("arch", "live"):
        RedisStore(redis_client, namespace, sentences=RULE, batch_size=16).decide_many(first)
    store = RedisStore(redis_client, "arch", sentences=RULE)
    assert store.archive(include_live=True) == [0]
    return store, RedisStore(redis_client, "live", sentences=RULE), first


def test_an_archived_generation_decides_as_the_live_one(archived_and_live, sina_articles, fingerprinter, redis_client):
    archived, live, first = archived_and_live
    assert any(redis_client.scan_iter("arch:g0:A:meta")) and not list(redis_client.scan_iter("arch:g0:0:*"))
    # a second stream: copies of kept documents exactly 3 bits off, copies far off that share
    # their sentences, new stories, and the first stream again (replays)
    rng = random.Random(4)
    kept = [d for d in first if live.lookup(d.id).kept]
    flipped = [
        Document(f"https://b.example.com/{n}.html", d.simhash ^ sum(1 << b for b in rng.sample(range(64), 3)))
        for n, d in enumerate(kept[:40])
    ]
    sentenced = [
        Document(
            f"https://c.example.com/{n}.html",
            d.simhash ^ sum(1 << b for b in rng.sample(range(64), 12)),
            d.sentences,
            d.length,
        )
        for n, d in enumerate(k for k in kept[40:] if len(k.sentences) >= 3)
    ][:30]
    # at the sentence rule's bounds: 22 bits off, sizes 4 length codes apart (copies); 23 bits, 5 codes (kept)
    cases = [(22, 0), (10, -4), (10, 4), (23, 0), (10, -5), (10, 5)]
    holders = [k for k in kept if len(k.sentences) >= 3][-len(cases) :]
    bounds = [
        Document(f"https://d.example.com/{n}.html", d.simhash ^ ((1 << bits) - 1), d.sentences, d.length + codes)
        for n, (d, (bits, codes)) in enumerate(zip(holders, cases))
    ]
    tie = Document("https://t.example.com/between.html", first[-2].simhash ^ 0b111)  # x's first block, y's last
    chain = [d for d in first if d.id == "https://r.example.com/copy.html"]
    second = flipped + sentenced + bounds + [tie, *chain] + stories(sina_articles, fingerprinter, 200, 40, seed=2)
    second += first[:40]
    rng.shuffle(second)
    expected = live.decide_many(second)
    got = archived.decide_many(second)
    assert got == expected and set(archived._readers) == {"arch:g0:"}  # read from the archive
    assert sum(d.replayed for d in got) == 41
    by_id = {d.id: d for d in got}
    twins = first[-2:]  # x and x six bits off: the tie goes to the smaller fingerprint
    assert (by_id[tie.id].duplicate_of, by_id[tie.id].distance) == (min(twins, key=lambda d: d.simhash).id, 3)
    assert by_id["https://r.example.com/copy.html"].duplicate_of == "https://r.example.com/original.html"
    assert by_id["https://r.example.com/copy.html"].replayed
    assert sum(d.rule == "simhash" and d.distance == 3 and not d.replayed for d in got) >= 30
    assert sum(d.rule == "sentences" and not d.replayed for d in got) >= 20
    rules = [by_id[f"https://d.example.com/{n}.html"].rule for n in range(len(cases))]
    assert rules == ["sentences", "sentences", "sentences", None, None, None]
    for doc in first[:30]:
        assert archived.lookup(doc.id) == live.lookup(doc.id)
    assert archived.kept_documents().items() >= {k: v for k, v in live.kept_documents().items() if "/1" in k}.items()
    near = archived.nearest(first[0].simhash, 5)
    assert near == live.nearest(first[0].simhash, 5)
    assert archived.sentence_holders(first[3].sentences, first[3].length) == live.sentence_holders(
        first[3].sentences, first[3].length
    )
    assert [d.id for d in archived.drops(20)] and {d.duplicate_of for d in archived.drops(500)} <= set(
        archived.kept_documents()
    )


def test_an_archived_generation_is_read_only_and_archiving_again_changes_nothing(archived_and_live):
    archived, _, first = archived_and_live
    with pytest.raises(ArchivedError, match="is in an archived generation .* which is read-only"):
        archived.forget(first[0].id)
    assert archived.archive() == []
    counts = archived.counts()
    assert counts["kept"] + counts["dropped"] == len({d.id for d in first})


def test_news_dedup_archive_prints_one_line_and_stats_show_what_a_fingerprint_takes(redis_server, redis_client):
    rng = random.Random(3)
    lines = "\n".join(
        json.dumps({"id": f"https://news.example.com/{n}.html", "simhash": f"{rng.getrandbits(64):016x}"})
        for n in range(3000)
    )

    def dedup(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "news_crawler.cli.dedup",
                *args,
                "--redis-url",
                redis_server.url,
                "--namespace",
                "cli",
            ],
            input=stdin,
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )

    assert dedup("check", "-", stdin=lines).returncode == 0
    nothing = dedup("archive")
    assert (
        nothing.returncode == 0
        and nothing.stdout == "news-dedup: nothing to archive in namespace 'cli': no sealed generation left live\n"
    )
    done = dedup("archive", "--all")
    assert done.returncode == 0 and done.stdout.startswith("news-dedup: archived generation 0 of namespace 'cli' in ")
    per_kept = float(done.stdout.rsplit(": ", 1)[1].split()[0])
    assert 5 < per_kept < 40
    stats = json.loads(dedup("stats", "--json").stdout)
    assert stats["archived_generations"] == 1 and stats["bytes_a_kept_fingerprint_archived"] == per_kept
    assert stats["fingerprints"] == 3000
    again = dedup("check", "-", stdin=lines)  # every line a replay of the archived decision
    assert again.returncode == 0 and all(json.loads(x)["replay"] for x in again.stdout.splitlines())


def test_an_archive_of_another_format_is_one_line_naming_the_fix(redis_server, redis_client):
    lines = "\n".join(
        json.dumps({"id": f"https://news.example.com/{n}.html", "simhash": f"{n * 0x9E3779B97F4A7C15 % 2**64:016x}"})
        for n in range(1, 40)
    )

    def dedup(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "news_crawler.cli.dedup", *args, "--redis-url", redis_server.url]
        return subprocess.run(command, input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120)

    assert dedup("check", "-", "--namespace", "old", stdin=lines).returncode == 0
    assert dedup("archive", "--all", "--namespace", "old").returncode == 0
    meta = json.loads(redis_client.get("old:g0:A:meta"))
    redis_client.set("old:g0:A:meta", json.dumps({**meta, "format": "archive 0"}))
    refused = dedup("check", "-", "--namespace", "old", stdin=lines)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == (
        "news-dedup: the archived generation 'old:g0:' holds an archive of format 'archive 0'; this version "
        "reads 'archive 1' only: use a new DEDUP_NAMESPACE, or remove the old index with "
        "`news-dedup forget --all --namespace old`\n"
    )
    assert dedup("forget", "--all", "--namespace", "old").returncode == 0  # the fix it names works
    again = dedup("check", "-", "--namespace", "old", stdin=lines)
    decided = [json.loads(x) for x in again.stdout.splitlines()]
    assert again.returncode == 0 and len(decided) == 39 and not any(d.get("replay") for d in decided)
