"""Retries within a run are spaced out, doubling up to a maximum."""

import asyncio

from scrapy import Request, Spider
from scrapy.http import Response

from news_crawler.middlewares.retry import BackoffRetryMiddleware
from tests.crawl_helpers import project_crawler


def middleware(**settings):
    crawler = project_crawler(
        Spider, settings_dict={"RETRY_TIMES": 4, "RETRY_BACKOFF_BASE": 1.5, "RETRY_BACKOFF_MAX": 5, **settings}
    )
    crawler.spider = Spider.from_crawler(crawler, name="s")
    mw = BackoffRetryMiddleware.from_crawler(crawler)
    waits = []

    async def record(seconds):
        waits.append(seconds)

    mw.sleep = record
    return mw, waits


def test_each_retry_waits_twice_as_long_up_to_the_maximum():
    mw, waits = middleware()
    request = Request("https://x.example/a")

    async def fail_until_given_up():
        r = request
        while isinstance(r := await mw.process_exception(r, TimeoutError("slow")), Request):
            pass
        return r

    assert asyncio.run(fail_until_given_up()) is None  # four retries, then the failure stands
    assert waits == [1.5, 3.0, 5, 5]


def test_a_retried_status_waits_and_a_good_response_does_not():
    mw, waits = middleware()
    request = Request("https://x.example/b")
    retried = asyncio.run(mw.process_response(request, Response(request.url, status=503, request=request)))
    assert isinstance(retried, Request) and retried.meta["retry_times"] == 1 and waits == [1.5]
    ok = Response(request.url, status=200, request=request)
    assert asyncio.run(mw.process_response(request, ok)) is ok and waits == [1.5]
