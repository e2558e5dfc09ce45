"""Discovery latency: crawled_at - published_at of kept articles, a histogram in a real Redis."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from news_crawler.outcomes.latency import BOUNDS, Histogram, LatencyLog, latency_seconds
from news_crawler.spiders.news import NewsSpider
from news_crawler.spiders.sites import read_sites_file, site_spider


@pytest.mark.parametrize(
    "published,crawled,seconds",
    [
        ("2026-11-27T15:30:00+08:00", "2026-11-27T07:30:02.500+00:00", 2.5),
        ("2026-11-27T15:30:00", "2026-11-27T15:31:00+00:00", 60.0),  # no zone: TIMEZONE's (here UTC)
        ("2026-11-27T15:31:00+00:00", "2026-11-27T15:30:00+00:00", 0.0),  # a minute ahead: a clock, 0
        ("2026-11-27T18:00:00+00:00", "2026-11-27T15:30:00+00:00", None),  # hours ahead: a wrong zone
        ("2026-11-27T15:35:00+00:00", "2026-11-27T15:30:00+00:00", 0.0),  # exactly FUTURE_SLACK ahead: 0
        ("2026-11-27T15:35:01+00:00", "2026-11-27T15:30:00+00:00", None),  # a second past it: no latency
        ("2026-11-27 15:29:30", "2026-11-27T15:30:00+00:00", 30.0),  # a space for the T
        ("2026-11-27 ", "2026-11-27T15:30:00+00:00", None),  # a day and a space: no time of day
        ("2026-11-27T15:29:00+08:00", "2026-11-27T15:30:00+08:00", 60.0),  # a crawl time in a zone of its own
        ("2026-11-27T15:29:00+00:00", "2026-11-27T15:30:00", 60.0),  # a crawl time without a zone: UTC
        ("2026-11-27", "2026-11-27T15:30:00+00:00", None),  # a day, no time of day
        ("", "2026-11-27T15:30:00+00:00", None),
        ("yesterday noon", "2026-11-27T15:30:00+00:00", None),
    ],
)
def test_latency_of_a_page_that_states_a_time_and_none_otherwise(published, crawled, seconds):
    assert latency_seconds(published, crawled) == seconds


def test_the_histogram_counts_every_article_and_its_quantiles_fall_in_the_right_bucket(redis_client):
    noon = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)  # today: its key lives on
    log = LatencyLog(redis_client, "site:latency", keep_days=30, clock=lambda: noon)
    crawled = noon.isoformat()
    for seconds in [1.5] * 50 + [45.0] * 40 + [4000.0] * 10:
        published = datetime.fromtimestamp(datetime.fromisoformat(crawled).timestamp() - seconds, UTC).isoformat()
        assert log.record(published, crawled) == pytest.approx(seconds)
    assert log.record(noon.date().isoformat(), crawled) is None
    for histogram in (log.histogram(), log.histogram(noon.date())):
        assert histogram.count == 100 and histogram.total == pytest.approx(50 * 1.5 + 40 * 45 + 10 * 4000)
        assert 1 <= histogram.quantile(0.5) <= 2  # in the (1, 2] bucket
        assert 30 <= histogram.quantile(0.9) <= 60
        assert histogram.cumulative()[-1] == (float("inf"), 100)
    assert redis_client.ttl(f"site:latency:{noon.date().isoformat()}") > 0 and redis_client.ttl("site:latency") == -1
    assert Histogram.of({}).quantile(0.5) is None and len(Histogram.of({}).buckets) == len(BOUNDS) + 1


def test_a_sites_revisit_bounds_are_its_spiders_settings(tmp_path):
    path = tmp_path / "sites.toml"
    path.write_text("[sites.a]\nstart_urls = ['https://a.cn/']\nallow = 'x'\nrevisit_min = 60\nrevisit_max = 3600.5\n")
    sites, _ = read_sites_file(str(path))
    assert site_spider(sites["a"], NewsSpider).custom_settings == {"REVISIT_MIN": 60.0, "REVISIT_MAX": 3600.5}


def test_a_latency_exactly_at_a_bound_is_in_that_bucket_as_prometheus_le_says():
    from news_crawler.outcomes.latency import bucket_of

    for n, bound in enumerate(BOUNDS):
        assert bucket_of(bound) == n and bucket_of(bound + 0.001) == n + 1, bound
    assert bucket_of(0) == 0 and bucket_of(BOUNDS[-1] * 10) == len(BOUNDS)
    counted = Histogram([1] + [0] * len(BOUNDS), 1.0, 1)  # one article at exactly 1 s
    assert counted.cumulative()[0] == (1.0, 1)  # le="1" holds it


def test_with_keep_days_0_a_days_histogram_is_kept_for_ever(redis_client):
    noon = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
    log = LatencyLog(redis_client, "forever:latency", keep_days=0, clock=lambda: noon)
    assert log.record((noon.replace(hour=11)).isoformat(), noon.isoformat()) == 3600.0
    assert log.histogram(noon.date()).count == 1 and redis_client.ttl(log.day_key(noon.date())) == -1


def test_quantiles_interpolate_within_their_bucket_and_stop_at_the_last_bound(redis_client):
    """Exact figures: the report's median and 90th percentile are read from these."""
    within = Histogram([0, 100] + [0] * (len(BOUNDS) - 1), 150.0, 100)  # 100 articles in (1, 2]
    assert within.quantile(0.5) == 1.5 and within.quantile(0.9) == pytest.approx(1.9) and within.quantile(1) == 2.0
    past = Histogram([0] * len(BOUNDS) + [10], 10 * 30 * 86400.0, 10)  # all later than the last bound
    assert past.quantile(0.5) == float(BOUNDS[-1]) and past.cumulative()[-2:] == [
        (float(BOUNDS[-1]), 0),
        (float("inf"), 10),
    ]
    assert Histogram.of({}) == Histogram([0] * (len(BOUNDS) + 1), 0.0, 0)
    noon = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
    log = LatencyLog(redis_client, "exact:latency", keep_days=30, clock=lambda: noon)
    log.record(datetime.fromtimestamp(noon.timestamp() - 2.0004, UTC).isoformat(), noon.isoformat())
    assert log.histogram().total == 2.0  # kept to the millisecond
