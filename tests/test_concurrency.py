"""Four processes push overlapping streams of real articles into one namespace at once:
no two articles that either rule (simhash, shared sentences) calls duplicates are both kept."""

import multiprocessing
import random

import pytest

from news_crawler.dedup.fingerprint import UnusableText, distance
from news_crawler.dedup.index import Document, RedisStore, SentenceRule
from news_crawler.dedup.index.generations import FORMAT

WORKERS = 4


T0 = 1_700_000_000.0  # the race's clock starts here
WEEK = 7 * 86_400


def _worker(url, items, start, seed, switch):
    from news_crawler import connection
    from news_crawler.config import plain_settings

    # Batches of four, calls of up to twelve, while the other workers do too. With a switch,
    # retention is on and this worker's clock enters the next week after a random share of
    # its items: the others are then in the old generation, or already in the new one.
    rng = random.Random(seed)
    switch_at = rng.randrange(len(items)) if switch else len(items)
    done = 0
    store = RedisStore(
        connection.from_settings(plain_settings({"REDIS_URL": url})),
        "race",
        batch_size=4,
        sentences=SentenceRule(),
        retention_days=14 if switch else 0,
        clock=lambda: T0 + (WEEK if done >= switch_at else 0),
    )
    start.wait(30)
    while done < len(items):
        n = rng.randint(1, 12)
        store.decide_many(items[done : done + n])
        done += n


def race(url: str, streams: list[list[Document]], switch: bool = False) -> None:
    """Each stream decided by a process of its own, all let go at once (namespace "race");
    with ``switch``, each moves to a new generation at a point of its own."""
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    procs = [ctx.Process(target=_worker, args=(url, s, start, w, switch)) for w, s in enumerate(streams)]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0


def assert_no_two_duplicates(kept_docs: list[Document], rule: SentenceRule) -> None:
    for i, a in enumerate(kept_docs):
        for b in kept_docs[i + 1 :]:
            # whichever was kept later would have been a copy of the other (the order is unknown here)
            both = sentence_duplicates(a, b, rule) and sentence_duplicates(b, a, rule)
            assert distance(a.simhash, b.simhash) > 3 and not both, (a.id, b.id)


def sentence_duplicates(a: Document, b: Document, rule: SentenceRule) -> bool:
    """Whether ``a``, decided after ``b`` was kept, is its copy by the sentence rule."""
    return (
        bool(a.sentences)  # the rule asks nothing of a document without keys
        and len(set(a.sentences) & set(b.sentences)) >= rule.needed(len(a.sentences))
        and distance(a.simhash, b.simhash) <= rule.max_distance
        and abs(a.length - b.length) <= rule.length_slack
    )


@pytest.mark.parametrize("switch", [False, True], ids=["one-generation", "across-a-generation-switch"])
def test_concurrent_workers_never_keep_two_near_duplicates(
    redis_client, redis_server, sina_articles, fingerprinter, switch
):
    articles = sina_articles[:400]
    fps = {}

    def add(doc_id, body):
        f = fingerprinter.fingerprint(body)
        fps[doc_id] = Document(doc_id, f.value, f.sentences, f.length)

    for n, a in enumerate(articles):
        try:
            add(a["id"], a["body"])
        except UnusableText:
            continue
        # A reprint: new headline line, source and editor lines, a few characters edited.
        add(a["id"] + "-reprint", "来源：澎湃新闻\n" + a["body"].replace("，", ",", 3) + "\n责任编辑：李明")
        # A re-edit: the last tenth cut and another story's paragraph put on top (mostly further
        # than distance 3: the sentence rule's work).
        other = articles[(n + 1) % len(articles)]["body"].split("\n")[0]
        add(a["id"] + "-reedit", other + "\n" + a["body"][: len(a["body"]) * 9 // 10])
    ids = sorted(fps)
    streams = []
    for w in range(WORKERS):
        rng = random.Random(w)
        chosen = rng.sample(ids, k=int(len(ids) * 0.7))  # streams overlap heavily
        # The same story also arrives under a worker-specific id, as a copy on another site.
        streams.append([fps[i]._replace(id=f"w{w}:{i}") if rng.random() < 0.3 else fps[i] for i in chosen])

    race(redis_server.url, streams, switch)

    rule = SentenceRule()
    store = RedisStore(
        redis_client, "race", sentences=rule, retention_days=14 if switch else 0, clock=lambda: T0 + WEEK
    )
    assert len(store.live_prefixes()) == (2 if switch else 1)
    by_id = {doc.id: doc for s in streams for doc in s}
    kept = store.kept_documents()
    assert_no_two_duplicates([by_id[i] for i in sorted(kept)], rule)
    drops = store.drops(limit=10**6)
    assert drops and len(kept) + len(drops) == len(by_id)
    for d in drops:
        assert d.duplicate_of in kept
        assert distance(d.simhash, kept[d.duplicate_of]) == d.distance
        if d.rule == "simhash":
            assert d.distance <= 3
        else:
            assert d.distance > 3 and sentence_duplicates(by_id[d.id], by_id[d.duplicate_of], rule)
    assert {d.rule for d in drops} == {"simhash", "sentences"}
    counts = store.counts()
    assert (counts["kept"], counts["dropped"]) == (len(kept), len(drops))
    assert counts["dropped:sentences"] == sum(d.rule == "sentences" for d in drops)


ROUNDS = 40


def _starter(url, barrier, writer):
    """Each round, on a fresh namespace: a writer begins the index (its format, then its keys)
    while a reader checks the format, all let go at once by ``barrier``; exits 1 on any
    format error."""
    from news_crawler import connection
    from news_crawler.config import plain_settings
    from news_crawler.dedup.index.generations import IndexFormatError

    client = connection.from_settings(plain_settings({"REDIS_URL": url}))
    for n in range(ROUNDS):
        store = RedisStore(client, f"fresh-{n}")
        barrier.wait(30)
        try:
            if writer:
                store.decide(f"doc-{n}", n + 1)
            else:
                store.generations.check_format()
        except IndexFormatError as e:
            raise SystemExit(f"round {n}: {e}") from None


def test_processes_starting_one_fresh_index_never_see_a_format_error(redis_server, redis_client):
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(6)
    procs = [ctx.Process(target=_starter, args=(redis_server.url, barrier, w % 2 == 0)) for w in range(6)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * 6
    assert all(redis_client.get(f"fresh-{n}:format") == FORMAT for n in range(ROUNDS))
