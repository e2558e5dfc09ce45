"""The one Redis factory: which server, which client options, one client per process."""

import pytest
from scrapy.settings import Settings

from news_crawler import connection


def settings(**values) -> Settings:
    return Settings({"EMBEDDED_REDIS_DIR": "/nonexistent/never-started", **values})


def test_redis_url_wins_over_host_and_port():
    assert (
        connection.url_from_settings(settings(REDIS_URL="redis://a:1/2", REDIS_HOST="b", REDIS_PORT=3))
        == "redis://a:1/2"
    )


def test_host_and_port_name_the_server_when_there_is_no_url(redis_server):
    s = settings(REDIS_HOST="127.0.0.1", REDIS_PORT=redis_server.port)
    assert connection.url_from_settings(s) == f"redis://127.0.0.1:{redis_server.port}"
    assert connection.from_settings(s).ping()


def test_redis_params_are_merged_over_the_defaults(redis_server):
    client = connection.from_settings(settings(REDIS_URL=redis_server.url, REDIS_PARAMS={"socket_timeout": 7}))
    kwargs = client.get_connection_kwargs()
    assert kwargs["socket_timeout"] == 7 and kwargs["socket_connect_timeout"] == 3


def test_one_client_and_one_outage_per_crawler_shared_by_its_components(make_crawler):
    """The scheduler, its dupefilter, the pipelines and the tracker of one crawler share one
    runtime (client, outage state, pool); another crawler gets its own."""
    from scrapy import Spider

    from news_crawler.crawl.runtime import Runtime
    from news_crawler.frontier.scheduler import RedisScheduler
    from news_crawler.middlewares.tracker import OutcomeTracker
    from news_crawler.pipelines.dedup import NearDuplicatePipeline

    class Site(Spider):
        name = "shared"

    crawler = make_crawler(Site, {"SCHEDULER": "news_crawler.frontier.scheduler.RedisScheduler"})
    scheduler = RedisScheduler.from_crawler(crawler)
    scheduler.open(crawler.spider)
    pipeline = NearDuplicatePipeline.from_crawler(crawler)
    tracker = OutcomeTracker.from_crawler(crawler)
    runtime = Runtime.of(crawler)
    assert scheduler.server is runtime.client and scheduler.df.server is runtime.client
    assert pipeline.store.client is runtime.client and tracker.store.client is runtime.client
    assert scheduler.outage is pipeline.outage is tracker.outage is runtime.outage and pipeline.pool is runtime.pool
    other = make_crawler(Site, {"SCHEDULER": "news_crawler.frontier.scheduler.RedisScheduler"})
    assert Runtime.of(other) is not runtime and Runtime.of(other).client is not runtime.client


def test_decoded_responses_are_refused_with_a_reason():
    with pytest.raises(ValueError, match="decode_responses"):
        connection.params_from_settings(settings(REDIS_PARAMS={"decode_responses": True}))
