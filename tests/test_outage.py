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
