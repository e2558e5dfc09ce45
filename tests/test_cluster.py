"""On a real three-master Redis Cluster (valkey-server, cluster mode): the client is found
from any node, a crawl and its re-crawl work, check decides as on one server, concurrent
writers keep no two near-duplicates (across a generation switch too), and with retention
the generations spread over the masters."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter

import pytest

from news_crawler import connection
from news_crawler.config import plain_settings
from news_crawler.dedup.fingerprint import UnusableText
from news_crawler.dedup.index import Document, RedisStore, SentenceRule
from news_crawler.dedup.index.generations import IndexFormatError
from news_mirror.catalog import build_catalog
from news_mirror.server import Mirror, serve
from tests.conftest import DATA
from tests.crawl_helpers import crawl, originals
from tests.test_concurrency import T0, WEEK, assert_no_two_duplicates, race
from tests.test_retention import Clock, flip


def test_any_node_gives_a_cluster_client_and_spider_keys_share_a_slot(cluster, cluster_client):
    from redis.cluster import RedisCluster

    assert isinstance(cluster_client, RedisCluster)
    assert connection.spider_key("%(spider)s:requests", "sina", cluster_client) == "{sina}:requests"
    slots = {
        cluster_client.keyslot(connection.spider_key(t, "sina", cluster_client))
        for t in ("%(spider)s:requests", "%(spider)s:dupefilter", "%(spider)s:outcomes", "%(spider)s:start_urls")
    }
    assert len(slots) == 1
    settings = plain_settings({"REDIS_URL": cluster.url, "REDIS_CLUSTER": "no"})
    assert not connection.is_cluster(connection.from_settings(settings))  # the operator's word wins


def _check(url, namespace, lines, **env):
    out = subprocess.run(
        [sys.executable, "-m", "news_crawler.cli.dedup", "check", "--redis-url", url, "--namespace", namespace, "-"],
        input="\n".join(lines),
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **env},
    )
    assert out.returncode == 0, out.stderr
    return [json.loads(x) for x in out.stdout.splitlines()]


def test_check_decides_on_the_cluster_as_on_one_server(
    cluster, cluster_client, redis_server, redis_client, sina_articles
):
    rng = random.Random(4)
    lines = []
    for a in sina_articles[:600]:
        lines.append(json.dumps({"id": a["id"], "body": a["body"]}, ensure_ascii=False))
        if rng.random() < 0.3:  # a reprint: credits, the tail cut
            body = "来源：新华网\n" + a["body"][: len(a["body"]) * 9 // 10]
            lines.append(json.dumps({"id": a["id"] + "~r", "body": body}, ensure_ascii=False))
    on_cluster = _check(cluster.url, "check", lines)
    alone = _check(redis_server.url, "check", lines)
    assert on_cluster == alone
    rules = Counter(r.get("rule") for r in on_cluster)
    assert rules["simhash"] and rules["sentences"] and rules[None] > 500
    assert _check(cluster.url, "check", lines[:50]) == [{**r, "replay": True} for r in on_cluster[:50]]
    # Without retention the index is one generation: one slot, one atomic call a batch.
    assert sorted(n > 0 for n in cluster.keys_per_node("{check:g0}*")) == [False, False, True]


def _documents(sina_articles, fingerprinter, n=300) -> dict[str, Document]:
    docs = {}
    for a in sina_articles[:n]:
        for suffix, body in (
            ("", a["body"]),
            ("~r", "来源：澎湃新闻\n" + a["body"].replace("，", ",", 3)),
            ("~e", a["body"][: len(a["body"]) * 9 // 10]),
        ):
            try:
                f = fingerprinter.fingerprint(body)
            except UnusableText:
                continue
            docs[a["id"] + suffix] = Document(a["id"] + suffix, f.value, f.sentences, f.length)
    return docs


@pytest.mark.parametrize("switch", [False, True], ids=["one-generation", "across-a-generation-switch"])
def test_four_concurrent_writers_on_the_cluster_keep_no_two_duplicates(
    cluster, cluster_client, sina_articles, fingerprinter, switch
):
    """Four processes; with the switch, each moves its clock into the next generation at a
    point of its own, so that some write where another has sealed."""
    docs = _documents(sina_articles, fingerprinter)
    ids = sorted(docs)
    streams = [[docs[i] for i in random.Random(w).sample(ids, k=int(len(ids) * 0.7))] for w in range(4)]
    race(cluster.url, streams, switch)

    rule = SentenceRule()
    store = RedisStore(
        cluster_client, "race", sentences=rule, retention_days=14 if switch else 0, clock=lambda: T0 + WEEK
    )
    assert store.generations.numbers() == ([1, 0] if switch else [0])
    kept = set(store.kept_documents())
    assert_no_two_duplicates([docs[i] for i in sorted(kept)], rule)
    drops = store.drops(limit=10**6)
    decided = {d.id for s in streams for d in s}
    assert drops and decided == kept | {d.id for d in drops}  # every article is recorded kept or dropped
    assert len(kept) + len(drops) == len(decided)
    assert {d.duplicate_of for d in drops} <= kept  # every drop names a kept article
    if switch:  # both generations were written: the switch happened mid-race
        assert all(store.held(prefix) > 0 for prefix in store.live_prefixes())


def test_generations_spread_over_the_masters_and_are_decided_as_on_one_server(cluster, cluster_client, redis_client):
    """Retention on the cluster: each generation is one slot, three of them on three masters;
    the same stream, a generation a week of it, is decided as one server decides it; the
    oldest generation's keys go from its master when it expires."""
    rng = random.Random(11)
    base = [rng.getrandbits(64) for _ in range(200)]
    weeks = []
    for week in range(3):
        docs = [Document(f"w{week}-{i}", rng.getrandbits(64), (rng.getrandbits(24), 7, 8), 100) for i in range(100)]
        for i in range(100):  # copies of earlier stories: a few bits off, or more and the same sentences
            b = rng.randrange(len(base))
            docs.append(
                Document(
                    f"w{week}-copy{i}",
                    flip(base[b], rng.sample(range(64), rng.randint(0, 10))),
                    (1000 + b, 2000 + b, 3000 + b),
                    100,
                )
            )
        weeks.append(docs)
    answers = []
    # on the cluster and on one server, each generation archived as it is sealed (DEDUP_ARCHIVE);
    # and on one server, never archived
    for client, namespace, archived in (
        (cluster_client, "keep", True),
        (redis_client, "keep", True),
        (redis_client, "plain", False),
    ):
        clock = Clock()
        store = RedisStore(
            client, namespace, sentences=SentenceRule(), retention_days=14, clock=clock, archive_sealed=archived
        )
        decided = []
        for week, docs in enumerate(weeks):
            clock.advance(7 if week else 0)
            decided += store.decide_many(docs)
        answers.append(decided)
        assert len(store._readers) == (2 if archived else 0)  # the two sealed generations read archived
    assert answers[0] == answers[1] == answers[2]
    assert any(d.rule == "sentences" for d in answers[0]) and any(d.rule == "simhash" for d in answers[0])

    store = RedisStore(cluster_client, "keep", retention_days=14, clock=clock)
    prefixes = store.live_prefixes()
    assert len(prefixes) == 3
    masters = [cluster_client.get_node_from_key(p + "held").name for p in prefixes]
    assert len(set(masters)) == 3, masters
    per_master = [cluster.keys_per_node(f"{p}*") for p in prefixes]
    assert all(sorted(n > 0 for n in counts) == [False, False, True] for counts in per_master), per_master
    clock.advance(7)
    store.decide("later", 1 << 40)  # a fourth generation: the first's successor began 14 days ago
    assert sum(cluster.keys_per_node(f"{prefixes[-1]}*")) == 0 and len(store.live_prefixes()) == 3


def test_an_index_of_another_format_on_the_cluster_is_one_error(cluster, cluster_client):
    cluster_client.set("{old}:held", 1)
    with pytest.raises(IndexFormatError, match="namespace 'old' holds index keys with no format version"):
        RedisStore(cluster_client, "old").decide("a", 1)


@pytest.mark.parametrize("retention", [0, 14])
def test_a_crawl_and_its_recrawl_on_the_cluster(tmp_path, cluster, cluster_client, retention):
    catalog = build_catalog(DATA)
    mirror = Mirror(catalog, day=1)
    server = serve(mirror)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    spiders = ["sina", "163", "huanqiu"]
    namespace = f"crawl-{retention}"
    settings = {"DEDUP_NAMESPACE": namespace, "DEDUP_RETENTION_DAYS": retention}
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

        status = subprocess.run(
            [
                sys.executable,
                "-m",
                "news_crawler.cli.crawler",
                "status",
                "--json",
                "-s",
                f"REDIS_URL={cluster.url}",
                "-s",
                f"DEDUP_NAMESPACE={namespace}",
                "-s",
                f"DEDUP_RETENTION_DAYS={retention}",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        report = json.loads(status.stdout)
        assert report["redis_masters"] == 3 and report["dedup"]["kept"] == len(originals(items))
        assert all(report["spiders"][name]["seen_urls"] >= 1 for name in spiders)
    finally:
        server.shutdown()
