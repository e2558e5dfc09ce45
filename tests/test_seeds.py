"""Cluster seeds: popped once by one worker, and the idle clock starts when the spider opens."""

import pytest
from scrapy.exceptions import DontCloseSpider

from news_crawler.spiders.news import NewsSpider
from news_crawler.spiders.seeds import RedisSeeds, seed


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def make_seeds(redis_client, clock, scheduled, responses=lambda: 0):
    return RedisSeeds(redis_client, "news:start_urls", 30.0, responses, scheduled.append, clock)


def spider():
    return NewsSpider(start_urls="https://a.example/", allow=r"/\d+\.html")


def test_seed_pushes_start_urls_and_each_is_popped_once(redis_client):
    assert seed(redis_client, [spider()], "%(spider)s:start_urls") == {"news": 1}
    clock, scheduled = Clock(), []
    first, second = make_seeds(redis_client, clock, scheduled), make_seeds(redis_client, clock, scheduled)
    with pytest.raises(DontCloseSpider):
        first.spider_idle(spider())
    with pytest.raises(DontCloseSpider):
        second.spider_idle(spider())  # nothing left, but not idle long enough to close
    assert [r.url for r in scheduled] == ["https://a.example/"] and scheduled[0].dont_filter
    # a seed is a start page as the spider's own are: a list page (one that fails is recorded,
    # never postponed to be fetched twice), and never an article with an outcome of its own
    from news_crawler.crawl.meta import is_list_page

    assert is_list_page(scheduled[0]) and scheduled[0].errback is not None


def test_seeds_are_not_pushed_again_while_the_last_ones_wait(redis_client):
    assert seed(redis_client, [spider()], "%(spider)s:start_urls") == {"news": 1}
    assert seed(redis_client, [spider()], "%(spider)s:start_urls") == {"news": 0}  # nobody took them
    assert redis_client.llen("news:start_urls") == 1
    redis_client.lpop("news:start_urls")  # a worker took them
    assert seed(redis_client, [spider()], "%(spider)s:start_urls") == {"news": 1}


def test_idle_time_counts_from_spider_opened_not_from_start_up(redis_client):
    clock, scheduled = Clock(), []
    seeds = make_seeds(redis_client, clock, scheduled)
    clock.now += 60  # a slow start-up (pipelines loading) must not count as idle time
    seeds.spider_opened(spider())
    clock.now += 29
    with pytest.raises(DontCloseSpider):
        seeds.spider_idle(spider())
    clock.now += 2
    seeds.spider_idle(spider())  # idle for 31 s since opening: the spider may close


def test_work_done_resets_the_idle_clock(redis_client):
    clock, scheduled, responses = Clock(), [], [0]
    seeds = make_seeds(redis_client, clock, scheduled, lambda: responses[0])
    seeds.spider_opened(spider())
    clock.now += 25
    responses[0] = 5
    with pytest.raises(DontCloseSpider):
        seeds.spider_idle(spider())
    clock.now += 25
    with pytest.raises(DontCloseSpider):
        seeds.spider_idle(spider())


def test_a_seed_no_request_can_be_made_of_is_refused_counted_and_the_worker_goes_on(redis_client, caplog):
    redis_client.rpush("news:start_urls", "example.com/list.html", "http://[::1/list", "https://a.example/")
    clock, scheduled, refused = Clock(), [], []
    seeds = RedisSeeds(
        redis_client, "news:start_urls", 30.0, lambda: 0, scheduled.append, clock, lambda: refused.append(1)
    )
    seeds.spider_opened(spider())
    for _ in range(3):  # one seed an idle signal: each keeps the worker open
        with pytest.raises(DontCloseSpider):
            seeds.spider_idle(spider())
    assert [r.url for r in scheduled] == ["https://a.example/"] and len(refused) == 2
    assert "seed example.com/list.html refused" in caplog.text


def test_an_idle_worker_waits_for_redis_rather_than_close_while_it_is_away(redis_client):
    """Past WORKER_IDLE_SECONDS with nothing to pop a worker closes; when the pop itself fails
    (Redis away) it stays open: the scheduler's outage watch takes over."""
    import socket

    import redis

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    away = redis.Redis(port=port, socket_connect_timeout=1, retry=Retry(NoBackoff(), 0))  # refused at once
    clock, scheduled = Clock(), []
    seeds, stranded = make_seeds(redis_client, clock, scheduled), make_seeds(away, clock, scheduled)
    clock.now += 31  # idle longer than WORKER_IDLE_SECONDS (30)
    assert seeds.spider_idle(spider()) is None  # nothing left: the worker may close
    with pytest.raises(DontCloseSpider):
        stranded.spider_idle(spider())
    assert scheduled == []
