"""What a scrapy-redis user brings along keeps working: its settings, its classes, its data.
Built outside this project's settings module, as a project naming this one's add-on
(``ADDONS = {"news_crawler.addon.NewsCrawler": 0}``), against a real Redis."""

import asyncio
import json
import pickle

import pytest
from scrapy import Request, Spider
from scrapy_redis.dupefilter import RFPDupeFilter
from scrapy_redis.queue import FifoQueue, PriorityQueue

from news_crawler.cli.crawler import main as news_crawler
from news_crawler.frontier.dupefilter import RedisDupeFilter
from news_crawler.frontier.leasing import LeasedPriorityQueue
from news_crawler.frontier.scheduler import RedisScheduler
from news_crawler.pipelines.redis_export import RedisListPipeline, RedisPipeline

SCHEDULER = {"SCHEDULER": "news_crawler.frontier.scheduler.RedisScheduler"}


class Shop(Spider):
    name = "shop"

    def parse_item(self, response):
        pass


def open_scheduler(crawler) -> RedisScheduler:
    scheduler = RedisScheduler.from_crawler(crawler)
    scheduler.open(crawler.spider)
    return scheduler


def test_scrapy_redis_dupefilter_under_our_scheduler_is_the_spiders_persistent_set(make_crawler, redis_client):
    settings = {**SCHEDULER, "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter", "SCHEDULER_PERSIST": True}
    scheduler = open_scheduler(make_crawler(Shop, settings))
    assert type(scheduler.df) is RFPDupeFilter and scheduler.df.key == "shop:dupefilter"
    assert scheduler.df.server is scheduler.server  # one client, not scrapy-redis' localhost:6379
    assert scheduler.enqueue_request(Request("https://shop.example/1"))
    scheduler.close("finished")
    again = open_scheduler(make_crawler(Shop, settings))
    assert not again.enqueue_request(Request("https://shop.example/1"))
    assert redis_client.scard("shop:dupefilter") == 1


def test_scheduler_dupefilter_class_wins_over_dupefilter_class(make_crawler):
    settings = {
        **SCHEDULER,
        "SCHEDULER_DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        "DUPEFILTER_CLASS": "news_crawler.frontier.dupefilter.RedisDupeFilter",
    }
    assert type(open_scheduler(make_crawler(Shop, settings)).df) is RFPDupeFilter


def test_dupefilter_key_names_the_standalone_set_else_the_spiders_own(make_crawler):
    df = RedisDupeFilter.from_crawler(make_crawler(Shop, {"DUPEFILTER_KEY": "seen:%(spider)s:%(timestamp)s"}))
    prefix, spider, stamp = df.key.split(":")
    assert (prefix, spider) == ("seen", "shop") and stamp.isdigit()
    assert RedisDupeFilter.from_crawler(make_crawler(Shop)).key == "shop:dupefilter"  # kept across runs


def test_pickle_when_allowed_round_trips_through_the_leased_queue(make_crawler, redis_client):
    settings = {**SCHEDULER, "SCHEDULER_SERIALIZER": "pickle", "SCHEDULER_ALLOW_PICKLE": True}
    scheduler = open_scheduler(make_crawler(Shop, settings))
    request = Request("https://shop.example/p", callback=scheduler.spider.parse_item, meta={"n": b"\x00\xff\n"})
    assert scheduler.enqueue_request(request)
    (raw,) = redis_client.zrange("shop:requests", 0, -1)
    assert pickle.loads(raw)["url"] == request.url  # the same bytes scrapy-redis' PriorityQueue holds
    back = scheduler.next_request()
    assert (back.url, back.meta["n"], back.callback) == (request.url, b"\x00\xff\n", scheduler.spider.parse_item)
    scheduler.queue.held.clear()  # this worker "dies": its lease is not its own any more
    assert scheduler.queue.reclaim() == 0  # a live owner's lease is not taken before it expires
    scheduler.ack(back)
    assert redis_client.zcard("shop:requests:inflight") == 0


def test_a_queue_built_without_a_serializer_writes_json(redis_client):
    queue = LeasedPriorityQueue(redis_client, Shop(), "direct:requests")
    queue.push(Request("https://shop.example/j"))
    (raw,) = redis_client.zrange("direct:requests", 0, -1)
    assert json.loads(raw)["url"] == "https://shop.example/j"


def push_item(crawler, pipeline_cls, item):
    pipeline = pipeline_cls.from_crawler(crawler)
    return asyncio.run(pipeline.process_item(item))


def shout(item) -> str:
    return json.dumps({k.upper(): v for k, v in item.items()}, ensure_ascii=False)


def test_the_items_pipeline_reads_scrapy_redis_settings(make_crawler, redis_client):
    push_item(make_crawler(Shop), RedisPipeline, {"title": "新闻"})  # scrapy-redis' default key
    assert json.loads(redis_client.lindex("shop:items", 0)) == {"title": "新闻"}
    settings = {"REDIS_ITEMS_KEY": "out:%(spider)s", "REDIS_ITEMS_SERIALIZER": f"{__name__}.shout"}
    push_item(make_crawler(Shop, settings), RedisListPipeline, {"title": "新闻"})
    assert json.loads(redis_client.lindex("out:shop", 0)) == {"TITLE": "新闻"}


def fill_like_scrapy_redis(redis_client, spider):
    """A queue as scrapy-redis 0.9.1 leaves it: its own classes, its default (pickle) serializer."""
    queue = PriorityQueue(redis_client, spider, "shop:requests")
    queue.push(Request("https://shop.example/low", callback=spider.parse_item, priority=1))
    queue.push(Request("https://shop.example/high", callback=spider.parse_item, priority=9, meta={"page": 2}))
    redis_client.zadd("shop:requests", {b"\x80\x04not a request": 0})
    FifoQueue(redis_client, spider, "list:requests").push(Request("https://shop.example/fifo"))
    redis_client.sadd(
        "shop:dupefilter", RFPDupeFilter(redis_client, "x").request_fingerprint(Request("https://shop.example/old"))
    )


def test_adopt_keeps_pickles_until_told_then_converts_them(make_crawler, redis_client, redis_server, capsys):
    spider = make_crawler(Shop).spider
    fill_like_scrapy_redis(redis_client, spider)
    before = redis_client.zrange("shop:requests", 0, -1, withscores=True)
    url = f"REDIS_URL={redis_server.url}"
    assert news_crawler(["adopt", "shop", "-s", url]) == 1
    out = capsys.readouterr().out
    assert "3 pickled requests left as they are" in out and 'DUPEFILTER_FINGERPRINT = "scrapy-redis"' in out
    assert redis_client.zrange("shop:requests", 0, -1, withscores=True) == before  # untouched

    compat = ["-s", url, "-s", "DUPEFILTER_FINGERPRINT=scrapy-redis"]
    assert news_crawler(["adopt", "shop", "--unpickle", *compat]) == 0
    assert "2 converted from pickles, 1 unreadable" in capsys.readouterr().out
    assert redis_client.lrange("shop:requests:unreadable", 0, -1) == [b"\x80\x04not a request"]
    assert news_crawler(["adopt", "shop", *compat]) == 0  # a second run finds nothing left to do
    assert news_crawler(["adopt", "list", "--unpickle", *compat]) == 0
    assert redis_client.type("list:requests") == b"zset"

    crawler = make_crawler(Shop, {**SCHEDULER, "DUPEFILTER_FINGERPRINT": "scrapy-redis"})
    scheduler = open_scheduler(crawler)
    first, second = scheduler.next_request(), scheduler.next_request()
    assert (first.url, first.meta["page"], first.callback) == (
        "https://shop.example/high",
        2,
        crawler.spider.parse_item,
    )
    assert second.url == "https://shop.example/low" and scheduler.next_request() is None
    assert not scheduler.enqueue_request(Request("https://shop.example/old"))  # seen by scrapy-redis


def test_adopt_leaves_a_key_of_another_type_alone(redis_client, redis_server, capsys):
    redis_client.set("odd:requests", "x")
    assert news_crawler(["adopt", "odd", "-s", f"REDIS_URL={redis_server.url}"]) == 1
    assert "is a string, not a request queue" in capsys.readouterr().out
    assert redis_client.get("odd:requests") == b"x"


def test_the_items_list_keeps_the_newest_and_counts_what_it_trims(make_crawler, redis_client):
    crawler = make_crawler(Shop, {"REDIS_ITEMS_KEY": "capped:%(spider)s", "ITEMS_REDIS_MAX": 3})
    for n in range(5):
        push_item(crawler, RedisListPipeline, {"n": n})
    assert [json.loads(x)["n"] for x in redis_client.lrange("capped:shop", 0, -1)] == [2, 3, 4]
    assert crawler.stats.get_value("items/redis_trimmed") == 2


def test_a_project_that_names_no_add_on_is_told_in_one_line_to_name_it(redis_server):
    from scrapy.utils.test import get_crawler

    from news_crawler.errors import UserError

    crawler = get_crawler(Shop, {**SCHEDULER, "REDIS_URL": redis_server.url})
    crawler.spider = Shop.from_crawler(crawler)
    with pytest.raises(UserError) as refused:
        RedisScheduler.from_crawler(crawler)
    assert str(refused.value) == (
        'news_crawler\'s components need its defaults: add ADDONS = {"news_crawler.addon.NewsCrawler": 0} '
        "to the project's settings"
    )
    # named, the project's own values win over the defaults
    named = get_crawler(Shop, {**SCHEDULER, "ADDONS": {"news_crawler.addon.NewsCrawler": 0}, "DEDUP_BATCH_SIZE": 7})
    assert named.settings.getint("DEDUP_BATCH_SIZE") == 7 and named.settings.get("DEDUP_NAMESPACE")
    # the downloader that holds each site's concurrency, unless the project chose its own
    assert named.settings.get("DOWNLOADER") == "news_crawler.crawl.downloader.Downloader"
    own = get_crawler(Shop, {"ADDONS": {"news_crawler.addon.NewsCrawler": 0}, "DOWNLOADER": "my.Downloader"})
    assert own.settings.get("DOWNLOADER") == "my.Downloader"


def test_the_stream_entry_names_url_and_version_and_an_item_without_one_is_version_1(make_crawler, redis_client):
    from news_crawler.pipelines.redis_export import RedisStreamPipeline

    crawler = make_crawler(Shop, {"ITEMS_REDIS_STREAM": "%(spider)s:stream", "ITEMS_REDIS_STREAM_MAXLEN": 0})
    push_item(crawler, RedisStreamPipeline, {"url": "https://shop.example/a", "title": "新闻"})
    push_item(crawler, RedisStreamPipeline, {"url": "https://shop.example/a", "version": 3, "title": "新闻"})
    entries = [fields for _, fields in redis_client.xrange("shop:stream")]
    assert [(e[b"url"], e[b"version"]) for e in entries] == [
        (b"https://shop.example/a", b"1"),
        (b"https://shop.example/a", b"3"),
    ]
    assert json.loads(entries[1][b"item"]) == {"url": "https://shop.example/a", "version": 3, "title": "新闻"}
