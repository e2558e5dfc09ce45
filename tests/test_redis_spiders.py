"""scrapy-redis' spiders take their start URLs from the same Redis as the scheduler."""

from news_crawler.spiders.redis_spiders import RedisCrawlSpider, RedisSpider
from tests.crawl_helpers import project_crawler


class Feed(RedisSpider):
    name = "feed"


class Rules(RedisCrawlSpider):
    name = "rules"
    rules = ()


def test_start_urls_come_from_the_configured_redis(redis_server, redis_client):
    redis_client.lpush("feed:start_urls", "https://a.example/1", "https://a.example/2")
    crawler = project_crawler(Feed, settings_dict={"REDIS_URL": redis_server.url})
    spider = Feed.from_crawler(crawler)
    assert spider.server.get_connection_kwargs()["port"] == redis_server.port
    urls = sorted(r.url for r in spider.next_requests())
    assert urls == ["https://a.example/1", "https://a.example/2"] and spider.count_size(spider.redis_key) == 0


def test_host_and_port_and_sets_work_as_in_scrapy_redis(redis_server, redis_client):
    redis_client.sadd("custom:rules", "https://b.example/")
    settings = {
        "REDIS_HOST": "127.0.0.1",
        "REDIS_PORT": redis_server.port,
        "REDIS_START_URLS_AS_SET": True,
        "REDIS_START_URLS_KEY": "custom:%(name)s",
    }
    spider = Rules.from_crawler(project_crawler(Rules, settings_dict=settings))
    assert [r.url for r in spider.next_requests()] == ["https://b.example/"]
    assert redis_client.scard("custom:rules") == 0


def test_batch_size_setting_still_counts(redis_server, redis_client):
    redis_client.lpush("feed:start_urls", *[f"https://c.example/{i}" for i in range(5)])
    settings = {"REDIS_URL": redis_server.url, "REDIS_START_URLS_BATCH_SIZE": 2}
    spider = Feed.from_crawler(project_crawler(Feed, settings_dict=settings))
    assert len(list(spider.next_requests())) == 2 and redis_client.llen("feed:start_urls") == 3


def test_a_sorted_set_of_start_urls_is_read_highest_score_first_from_our_redis(redis_server, redis_client):
    """REDIS_START_URLS_AS_ZSET (scrapy-redis'): the start URLs of a sorted set, read and
    removed through the one client, highest score first; its size counted there too."""
    redis_client.zadd("feed:start_urls", {"https://d.example/low": 1, "https://d.example/high": 9})
    settings = {"REDIS_URL": redis_server.url, "REDIS_START_URLS_AS_ZSET": True, "REDIS_START_URLS_BATCH_SIZE": 1}
    spider = Feed.from_crawler(project_crawler(Feed, settings_dict=settings))
    assert spider.server.get_connection_kwargs()["port"] == redis_server.port
    assert spider.count_size(spider.redis_key) == 2
    assert [r.url for r in spider.next_requests()] == ["https://d.example/high"]
    assert [r.url for r in spider.next_requests()] == ["https://d.example/low"]
    assert spider.count_size(spider.redis_key) == 0 and redis_client.zcard("feed:start_urls") == 0
