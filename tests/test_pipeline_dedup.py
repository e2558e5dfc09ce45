"""The near-duplicate pipeline as a component: built by ``get_crawler``, with the default
process pool, deciding against a real Redis."""

import asyncio
import os
import signal

import pytest
from scrapy import Spider
from scrapy.exceptions import DropItem, NotConfigured

from news_crawler.items import ArticleItem
from news_crawler.pipelines.dedup import NearDuplicatePipeline


class Portal(Spider):
    name = "portal"


def article(url: str, body: str) -> ArticleItem:
    return ArticleItem(url=url, site="portal", title="t", body=body)


async def outcomes(pipeline, items):
    """Each item's outcome, processed concurrently as Scrapy would: the item or the DropItem."""
    results = await asyncio.gather(*(pipeline.process_item(i) for i in items), return_exceptions=True)
    for r in results:
        if not isinstance(r, (ArticleItem, DropItem)):
            raise r
    return results


def test_copies_are_dropped_with_what_they_copy(make_crawler, sina_articles):
    crawler = make_crawler(Portal, {"DEDUP_NAMESPACE": "pipe", "DEDUP_BATCH_SIZE": 8})  # default pool: processes
    pipeline = NearDuplicatePipeline.from_crawler(crawler)
    bodies = [a["body"] for a in sina_articles[:20] if len(a["body"]) > 300][:12]
    originals = [article(f"https://a.example/{n}", b) for n, b in enumerate(bodies)]
    copies = [
        article(f"https://b.example/{n}", "来源：某某网\n" + b + "\n责任编辑：张三") for n, b in enumerate(bodies)
    ]

    kept = asyncio.run(outcomes(pipeline, originals))
    assert all(isinstance(r, ArticleItem) and len(r["simhash"]) == 16 for r in kept)
    dropped = asyncio.run(outcomes(pipeline, copies))
    for n, r in enumerate(dropped):
        assert isinstance(r, DropItem) and f"near-duplicate of https://a.example/{n} (distance" in str(r)
    stats = crawler.stats.get_stats()
    assert sum(v for k, v in stats.items() if k.startswith("dedup/dropped_by/")) == len(bodies)
    # Never more than one Lua call per item (how many share a call depends on timing:
    # tests/test_batching.py checks the sharing itself).
    assert 0 < stats["dedup/round_trips"] <= 2 * len(bodies)

    # A crawl that died after the decision but before the item reached its feed: the
    # refetched article is kept again, since no outcome "kept" was recorded for it.
    (recovered,) = asyncio.run(outcomes(pipeline, originals[:1]))
    assert isinstance(recovered, ArticleItem) and crawler.stats.get_value("dedup/recovered/portal") == 1
    # Once its outcome is recorded, the next run drops it as seen before.
    pipeline.outcomes.record(originals[0]["url"], "kept")
    (again,) = asyncio.run(outcomes(pipeline, originals[:1]))
    assert isinstance(again, DropItem) and "already kept" in str(again)
    assert crawler.stats.get_value("dedup/seen_before/portal") == 1


def test_unusable_text_is_a_counted_invalid_item(make_crawler):
    crawler = make_crawler(Portal, {"DEDUP_NAMESPACE": "pipe", "DEDUP_PROCESSES": 0})
    pipeline = NearDuplicatePipeline.from_crawler(crawler)
    (result,) = asyncio.run(outcomes(pipeline, [article("https://a.example/x", "!!! ... ???")]))
    assert isinstance(result, DropItem) and "invalid article" in str(result)
    assert crawler.stats.get_value("articles/invalid_reason/unfingerprintable") == 1


def test_switched_off_by_setting(make_crawler):
    with pytest.raises(NotConfigured):
        NearDuplicatePipeline.from_crawler(make_crawler(Portal, {"DEDUP_ENABLED": False}))


def test_a_broken_pool_is_replaced_not_kept(make_crawler, sina_articles):
    crawler = make_crawler(Portal, {"DEDUP_NAMESPACE": "pool", "DEDUP_PROCESSES": 1})
    pipeline = NearDuplicatePipeline.from_crawler(crawler)
    bodies = [a["body"] for a in sina_articles[30:40] if len(a["body"]) > 300][:2]
    (first,) = asyncio.run(outcomes(pipeline, [article("https://p.example/1", bodies[0])]))
    assert isinstance(first, ArticleItem)
    (victim,) = pipeline.pool.get().pids()
    os.kill(victim, signal.SIGKILL)  # a worker killed, as by the OOM killer
    os.waitpid(victim, 0)
    (second,) = asyncio.run(outcomes(pipeline, [article("https://p.example/2", bodies[1])]))
    assert isinstance(second, ArticleItem) and len(second["simhash"]) == 16
    assert crawler.stats.get_value("pool/restarted") == 1 and pipeline.pool.get().pids() not in ([], [victim])
