"""Four processes push overlapping streams of real articles into one namespace at once."""

import multiprocessing
import random

from news_crawler.fingerprint import UnusableText, distance
from news_crawler.index import RedisStore

WORKERS = 4


def _worker(url, items, start, seed):
    import redis

    store = RedisStore(redis.Redis.from_url(url), "race", batch_size=64)
    rng = random.Random(seed)
    start.wait(30)
    i = 0
    while i < len(items):
        n = rng.randint(1, 8)
        store.decide_many(items[i : i + n])
        i += n


def test_concurrent_workers_never_keep_two_near_duplicates(redis_client, redis_server, sina_articles, fingerprinter):
    articles = sina_articles[:400]
    fps = {}
    for a in articles:
        try:
            fps[a["id"]] = fingerprinter.fingerprint(a["body"]).value
        except UnusableText:
            continue
        # A reprint: new headline line, source and editor lines, a few characters edited.
        reprint = "来源：澎湃新闻\n" + a["body"].replace("，", ",", 3) + "\n责任编辑：李明"
        fps[a["id"] + "-reprint"] = fingerprinter.fingerprint(reprint).value
    ids = sorted(fps)
    streams = []
    for w in range(WORKERS):
        rng = random.Random(w)
        chosen = rng.sample(ids, k=int(len(ids) * 0.7))  # streams overlap heavily
        # The same story also arrives under a worker-specific id, as a copy on another site.
        streams.append([(f"w{w}:{i}" if rng.random() < 0.3 else i, fps[i]) for i in chosen])

    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    procs = [ctx.Process(target=_worker, args=(redis_server.url, s, start, w)) for w, s in enumerate(streams)]
    for p in procs:
        p.start()
    start.set()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0

    store = RedisStore(redis_client, "race")
    kept = {k.decode(): int.from_bytes(v, "big") for k, v in redis_client.hgetall(store.docs_key).items()}
    values = sorted(kept.values())
    for i, a in enumerate(values):
        for b in values[i + 1 :]:
            assert distance(a, b) > 3
    drops = store.drops(limit=10**6)
    assert drops and len(kept) + len(drops) == len({i for s in streams for i, _ in s})
    for d in drops:
        assert d.duplicate_of in kept
        assert distance(d.simhash, kept[d.duplicate_of]) == d.distance <= 3
    counts = store.counts()
    assert (counts["kept"], counts["dropped"]) == (len(kept), len(drops))
