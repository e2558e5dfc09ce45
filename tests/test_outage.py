"""Writes wait out a real outage in order; the limit is counted from the first failure."""

import asyncio

import pytest

from news_crawler.connection import get_redis
from news_crawler.connection.outage import Outage, RedisUnavailable
from tests.redis_server import TestServer


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def server(tmp_path):
    server = TestServer(tmp_path / "redis", durable=True)
    yield server
    server.stop()


def test_writes_during_an_outage_wait_and_are_replayed_in_order(server):
    client, outage = get_redis(server.url), Outage(limit=60, clock=Clock())
    assert outage.run(lambda: client.rpush("log", 1))
    server.kill()
    assert not outage.run(lambda: client.rpush("log", 2)) and outage.down
    calls = []
    assert not outage.run(lambda: calls.append("tried"))  # not even tried while down
    assert calls == [] and len(outage.backlog) == 2
    server.start()
    assert outage.probe(client.ping) and not outage.down
    assert client.lrange("log", 0, -1) == [b"1", b"2"] and calls == ["tried"] and not outage.backlog


def test_past_the_limit_a_waiting_call_gives_up(server):
    client, clock = get_redis(server.url), Clock()
    outage = Outage(limit=10, clock=clock)
    server.kill()
    assert not outage.probe(client.ping)
    clock.now = 11
    with pytest.raises(RedisUnavailable):
        asyncio.run(outage.call(client.ping))


def test_a_waiting_call_resumes_when_the_server_is_back(server):
    client, outage = get_redis(server.url), Outage(limit=600)
    server.kill()

    async def main():
        task = asyncio.create_task(outage.call(client.incr, "n", backoff=0.05))
        while not outage.down:  # the call met the outage
            await asyncio.sleep(0.01)
        await asyncio.to_thread(server.start)
        return await task

    assert asyncio.run(main()) == 1 and not outage.down


def test_an_items_list_past_the_limit_drops_the_article_as_unsettled_else_pushes_it_whole(server, make_crawler):
    """The Redis list sink: unbounded (``ITEMS_REDIS_MAX = 0``) every article is pushed as it
    is; with Redis away past the limit the article is Unsettled (no outcome, the next run
    fetches it again), and the list holds nothing of it."""
    from scrapy import Spider

    from news_crawler.outcomes.drops import Unsettled
    from news_crawler.pipelines.redis_export import RedisListPipeline

    class Shop(Spider):
        name = "shop"

    settings = {"REDIS_URL": server.url, "ITEMS_REDIS_KEY": "%(spider)s:list", "ITEMS_REDIS_MAX": 0}
    crawler = make_crawler(Shop, settings)
    pipeline = RedisListPipeline.from_crawler(crawler)
    client, clock = get_redis(server.url), Clock()
    pipeline.outage.clock = clock
    for n in range(3):
        asyncio.run(pipeline.process_item({"url": f"https://a.cn/{n}", "title": "新闻"}))
    assert [line.decode() for line in client.lrange("shop:list", 0, -1)] == [
        f'{{"url": "https://a.cn/{n}", "title": "新闻"}}' for n in range(3)
    ]
    assert not crawler.stats.get_value("items/redis_trimmed")  # unbounded: nothing trimmed, nothing counted
    server.kill()
    assert not pipeline.outage.probe(client.ping)
    clock.now = 11 + pipeline.outage.limit
    with pytest.raises(Unsettled) as e:
        asyncio.run(pipeline.process_item({"url": "https://a.cn/away", "title": "t"}))
    assert e.value.url == "https://a.cn/away" and not e.value.ends_lease and e.value.outcome == ""
    assert "the next run fetches it again" in str(e.value)
    server.start()
    assert client.llen("shop:list") == 3


@pytest.mark.parametrize(
    "record", ['{"format": 0, "sinks": ["a"]}', '{"sinks": ["a"]}', '["a"]', "not json", '{"format": 1}']
)
def test_a_delivery_record_of_another_format_is_one_clear_error(make_crawler, redis_client, record):
    """What an earlier attempt's sinks took is read back only in this version's format; any
    other record stops the article with one line saying which keys to delete."""
    from scrapy import Spider

    from news_crawler.errors import UserError
    from news_crawler.pipelines.delivery import FORMAT, Deliveries

    class Shop(Spider):
        name = "shop"

    deliveries = Deliveries.of(crawler := make_crawler(Shop), "a")
    assert Deliveries.of(crawler, "b") is deliveries
    item = {"url": "https://a.cn/1", "version": 1}
    redis_client.hset("shop:deliveries", "https://a.cn/2 1", f'{{"format": {FORMAT}, "sinks": ["a"]}}')
    other = {"url": "https://a.cn/2"}
    assert asyncio.run(deliveries.has(other, "a")) and not asyncio.run(deliveries.has(other, "b"))
    redis_client.hset("shop:deliveries", "https://a.cn/1 1", record)
    with pytest.raises(UserError, match=r"^a delivery record was written by another version .*DELIVERIES_KEY"):
        asyncio.run(deliveries.has(item, "a"))
