import pytest
from scrapy import Request
from scrapy.utils.request import request_from_dict

from news_crawler.frontier import request_json
from news_crawler.spiders.news import NewsSpider


def test_requests_round_trip_as_json_not_pickle():
    spider = NewsSpider(start_urls="https://news.sohu.com/", allow=r"/a/\d+")
    request = Request(
        "https://www.sohu.com/a/1_2",
        callback=spider.parse_article,
        method="POST",
        body=b"\x00\xffbinary",
        headers={"X-Test": "值"},
        meta={"depth": 2, "site": "sohu"},
        dont_filter=True,
        priority=5,
    )
    data = request_json.dumps(request.to_dict(spider=spider))
    assert data.startswith("{") and "pickle" not in data  # plain JSON text
    back = request_from_dict(request_json.loads(data), spider=spider)
    assert (back.url, back.method, back.body, back.meta["site"], back.priority, back.dont_filter) == (
        request.url,
        "POST",
        b"\x00\xffbinary",
        "sohu",
        5,
        True,
    )
    assert back.headers[b"X-Test"] == "值".encode()
    assert back.callback == spider.parse_article


def test_meta_that_json_cannot_carry_is_refused_with_a_reason():
    spider = NewsSpider(start_urls="https://news.sohu.com/", allow=r"/a/\d+")
    request = Request("https://www.sohu.com/a/1_2", meta={"when": object()})
    with pytest.raises(TypeError, match="cannot queue .* as JSON"):
        request_json.dumps(request.to_dict(spider=spider))


def test_what_scrapy_users_put_in_meta_travels_back_as_it_was():
    from datetime import date, datetime, timedelta, timezone
    from decimal import Decimal

    spider = NewsSpider(start_urls="https://news.sohu.com/", allow=r"/a/\d+")
    meta = {
        "day": date(2026, 11, 23),
        "at": datetime(2026, 11, 23, 6, 15, tzinfo=timezone(timedelta(hours=8))),
        "tags": {"a", "b"},
        "price": Decimal("1.50"),
        "pair": (1, "x"),
        "raw": b"\x01",
    }
    request = Request("https://www.sohu.com/a/1_2", meta=meta, cb_kwargs={"since": date(2026, 1, 1)})
    back = request_from_dict(request_json.loads(request_json.dumps(request.to_dict(spider=spider))), spider=spider)
    assert {k: back.meta[k] for k in meta} == {**meta, "pair": [1, "x"]}
    assert back.cb_kwargs == {"since": date(2026, 1, 1)}


def test_the_refusal_names_the_key():
    spider = NewsSpider(start_urls="https://news.sohu.com/", allow=r"/a/\d+")
    request = Request("https://www.sohu.com/a/1_2", meta={"session": {"handle": object()}})
    with pytest.raises(TypeError, match=r"\['session'\]\['handle'\] is a object"):
        request_json.dumps(request.to_dict(spider=spider))
