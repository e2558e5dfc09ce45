"""The Redis scheduler and dupefilter as components: built by ``get_crawler`` outside this
project's settings module, against a real Redis."""

import json

import pytest
from scrapy import Request, Spider

from news_crawler.frontier.scheduler import RedisDupeFilter, RedisScheduler

SCHEDULER = {"SCHEDULER": "news_crawler.frontier.scheduler.RedisScheduler"}


class Plain(Spider):
    name = "plain"


def open_scheduler(crawler) -> RedisScheduler:
    scheduler = RedisScheduler.from_crawler(crawler)
    scheduler.open(crawler.spider)
    return scheduler


def test_requests_go_through_redis_as_json_and_come_back(make_crawler, redis_client):
    crawler = make_crawler(Plain, SCHEDULER)
    scheduler = open_scheduler(crawler)
    request = Request("https://example.com/a", meta={"page": 2}, headers={"X-Test": "1"}, cb_kwargs={"k": "v"})
    assert scheduler.enqueue_request(request)
    (raw,) = redis_client.zrange("plain:requests", 0, -1)  # the default key, as scrapy-redis names it
    assert json.loads(raw)["url"] == "https://example.com/a"  # JSON, never pickle
    back = scheduler.next_request()
    assert (back.url, back.meta["page"], back.cb_kwargs, back.headers[b"X-Test"]) == (request.url, 2, {"k": "v"}, b"1")
    assert scheduler.next_request() is None
    stats = crawler.stats.get_stats()
    assert stats["scheduler/enqueued/redis"] == 1 and stats["scheduler/dequeued/redis"] == 1


def test_a_seen_request_is_filtered_across_runs_unless_dont_filter(make_crawler):
    persist = {**SCHEDULER, "SCHEDULER_PERSIST": True}
    first = open_scheduler(make_crawler(Plain, persist))
    assert first.enqueue_request(Request("https://example.com/a"))
    first.close("finished")
    crawler = make_crawler(Plain, persist)
    second = open_scheduler(crawler)  # the next run: the dupefilter persisted in Redis
    assert not second.enqueue_request(Request("https://example.com/a"))
    assert second.enqueue_request(Request("https://example.com/a", dont_filter=True))
    assert crawler.stats.get_value("dupefilter/filtered") == 1
    assert second.enqueue_request(Request("https://example.com/b"))
    assert crawler.stats.get_value("scheduler/enqueued/redis") == 2  # what was queued, not what was refused


def test_flush_on_start_begins_with_an_empty_queue_and_dupefilter(make_crawler, redis_client):
    """SCHEDULER_FLUSH_ON_START (scrapy-redis'): what a persisted run left, queued or seen,
    is gone when the next run opens; without it, both stay."""
    persist = {**SCHEDULER, "SCHEDULER_PERSIST": True}
    first = open_scheduler(make_crawler(Plain, persist))
    assert first.enqueue_request(Request("https://example.com/seen"))
    assert first.next_request() is not None
    assert first.enqueue_request(Request("https://example.com/queued"))
    first.close("finished")
    kept = open_scheduler(make_crawler(Plain, persist))
    assert len(kept) == 1 and not kept.enqueue_request(Request("https://example.com/seen"))
    kept.close("finished")
    flushed = open_scheduler(make_crawler(Plain, {**persist, "SCHEDULER_FLUSH_ON_START": True}))
    assert len(flushed) == 0 and not redis_client.exists("plain:requests", "plain:dupefilter")
    assert not redis_client.exists("plain:requests:inflight")  # the lease a run left goes too
    assert flushed.enqueue_request(Request("https://example.com/seen"))
    flushed.close("finished")


def test_unset_persist_means_scrapy_redis_default_and_forgets_at_close(make_crawler, redis_client):
    scheduler = open_scheduler(make_crawler(Plain, SCHEDULER))
    assert scheduler.persist is False
    assert scheduler.enqueue_request(Request("https://example.com/a"))
    scheduler.close("finished")
    assert not redis_client.exists("plain:requests", "plain:dupefilter")


def test_forget_lets_a_failed_request_be_scheduled_again(make_crawler, redis_client):
    scheduler = open_scheduler(make_crawler(Plain, SCHEDULER))
    request = Request("https://example.com/failed")
    assert scheduler.enqueue_request(request)
    assert scheduler.next_request().url == request.url
    scheduler.forget(request)
    assert redis_client.scard("plain:dupefilter") == 0
    assert scheduler.enqueue_request(request)


def test_settings_name_the_keys_and_scrapys_default_dupefilter_means_ours(make_crawler, redis_client):
    settings = {
        **SCHEDULER,
        "SCHEDULER_QUEUE_KEY": "q:%(spider)s",
        "SCHEDULER_DUPEFILTER_KEY": "seen:%(spider)s",
        "SCHEDULER_QUEUE_CLASS": "scrapy_redis.queue.FifoQueue",
    }
    scheduler = open_scheduler(make_crawler(Plain, settings))
    assert isinstance(scheduler.df, RedisDupeFilter)
    for url in ("https://example.com/1", "https://example.com/2"):
        scheduler.enqueue_request(Request(url))
    assert redis_client.llen("q:plain") == 2 and redis_client.scard("seen:plain") == 2
    assert scheduler.next_request().url == "https://example.com/1"  # FIFO, as configured


def test_dupefilter_uses_the_crawlers_request_fingerprinter(make_crawler):
    crawler = make_crawler(Plain, SCHEDULER)
    df = RedisDupeFilter.from_crawler(crawler)
    request = Request("https://example.com/x?b=2&a=1")
    assert df.request_fingerprint(request) == crawler.request_fingerprinter.fingerprint(request).hex()
    assert not df.request_seen(request)
    assert df.request_seen(Request("https://example.com/x?a=1&b=2"))  # canonical URL: the same page


def test_idle_before_close_keeps_an_empty_queue_open_for_a_while(make_crawler, redis_client):
    assert not open_scheduler(make_crawler(Plain, SCHEDULER)).has_pending_requests()  # default: close at once
    settings = {**SCHEDULER, "SCHEDULER_IDLE_BEFORE_CLOSE": 3600}
    scheduler = open_scheduler(make_crawler(Plain, settings))
    now = [1000.0]
    scheduler.clock = lambda: now[0]
    assert scheduler.has_pending_requests()  # empty, but another worker may still add requests
    now[0] += 3599
    assert scheduler.has_pending_requests()
    now[0] += 2
    assert not scheduler.has_pending_requests()  # waited long enough
    scheduler.enqueue_request(Request("https://example.com/late"))
    assert scheduler.has_pending_requests()
    now[0] += 3601  # the wait starts again when the queue is next found empty
    scheduler.next_request()
    assert scheduler.has_pending_requests()


def test_a_pickle_serializer_is_refused_unless_allowed(make_crawler):
    import pytest

    settings = {**SCHEDULER, "SCHEDULER_SERIALIZER": "scrapy_redis.picklecompat"}
    with pytest.raises(ValueError, match="unpickling runs code"):
        RedisScheduler.from_crawler(make_crawler(Plain, settings))
    allowed = RedisScheduler.from_crawler(make_crawler(Plain, {**settings, "SCHEDULER_ALLOW_PICKLE": True}))
    assert allowed.serializer.__name__ == "scrapy_redis.picklecompat"
    json_module = RedisScheduler.from_crawler(make_crawler(Plain, {**SCHEDULER, "SCHEDULER_SERIALIZER": "json"}))
    assert json_module.serializer.__name__ == "json"


def test_a_dupefilter_set_filled_by_scrapy_redis_keeps_working(make_crawler, redis_client):
    from scrapy_redis.dupefilter import RFPDupeFilter

    seen = Request("https://example.com/old?b=1&a=2")
    RFPDupeFilter(redis_client, "plain:dupefilter").request_seen(seen)  # what scrapy-redis left behind
    ours = RedisDupeFilter.from_crawler(make_crawler(Plain, {"DUPEFILTER_FINGERPRINT": "scrapy-redis"}))
    assert ours.request_seen(Request("https://example.com/old?a=2&b=1"))  # seen before the switch
    assert not ours.request_seen(Request("https://example.com/new"))
    default = RedisDupeFilter.from_crawler(make_crawler(Plain))
    assert not default.request_seen(seen)  # another fingerprint: why the setting exists


def test_an_unknown_fingerprint_mode_is_refused_with_the_choices(make_crawler):
    import pytest

    with pytest.raises(ValueError, match="'scrapy-redis'"):
        RedisDupeFilter.from_crawler(make_crawler(Plain, {"DUPEFILTER_FINGERPRINT": "md5"}))


def test_the_scheduler_picks_its_paths_once_by_the_contracts_its_parts_keep(make_crawler, redis_client):
    """The project's queue and dupefilters keep the Protocols of ``contracts.py``; a plain
    scrapy-redis queue does not, and the scheduler then marks and queues in two steps."""
    from news_crawler.protocols import LeasedQueue, Scheduling, SeenSet

    leased = open_scheduler(make_crawler(Plain, SCHEDULER))
    assert isinstance(leased.queue, LeasedQueue) and leased.leased is leased.queue
    assert isinstance(leased.df, SeenSet) and leased.seen_set is leased.df and isinstance(leased, Scheduling)
    assert leased.enqueue_request(Request("https://example.com/a"))
    assert leased.seen_many([Request("https://example.com/a"), Request("https://example.com/b")]) == [True, False]
    bloom = open_scheduler(
        make_crawler(Plain, {**SCHEDULER, "DUPEFILTER_CLASS": "news_crawler.frontier.bloom.BloomDupeFilter"})
    )
    assert isinstance(bloom.df, SeenSet) and bloom.enqueue_request(Request("https://example.com/c"))
    assert not bloom.enqueue_request(Request("https://example.com/c"))  # its bits were set with the push

    plain = open_scheduler(
        make_crawler(
            Plain,
            {
                **SCHEDULER,
                "SCHEDULER_QUEUE_CLASS": "scrapy_redis.queue.PriorityQueue",
                "SCHEDULER_QUEUE_KEY": "%(spider)s:plain",
                "SCHEDULER_DUPEFILTER_KEY": "%(spider)s:plain-seen",
            },
        )
    )
    assert not isinstance(plain.queue, LeasedQueue) and plain.leased is None
    assert plain.enqueue_request(Request("https://example.com/d")) and not plain.enqueue_request(
        Request("https://example.com/d")
    )
    request = plain.next_request()
    assert request.url == "https://example.com/d" and "lease" not in request.meta
    plain.ack(request)  # nothing to end: no lease
    plain.postpone_now(request)  # no queue of postponed requests: the dupefilter forgets it instead
    assert plain.enqueue_request(Request("https://example.com/d"))


@pytest.mark.parametrize("debug,lines", [(False, 1), (True, 3)])
def test_dupefilter_debug_logs_every_filtered_request_else_the_first(make_crawler, caplog, debug, lines):
    """DUPEFILTER_DEBUG, as Scrapy and scrapy-redis read it; each filtered request is counted."""
    import logging

    crawler = make_crawler(Plain, {**SCHEDULER, "DUPEFILTER_DEBUG": debug})
    scheduler = open_scheduler(crawler)
    assert scheduler.enqueue_request(Request("https://example.com/twice"))
    with caplog.at_level(logging.DEBUG):
        for _ in range(3):
            assert not scheduler.enqueue_request(Request("https://example.com/twice"))
    assert sum("Filtered duplicate request" in r.getMessage() for r in caplog.records) == lines
    assert crawler.stats.get_value("dupefilter/filtered") == 3
