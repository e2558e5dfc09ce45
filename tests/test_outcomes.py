"""Outcomes are bounded: a hash per day, deleted by the server after OUTCOMES_KEEP_DAYS."""

from datetime import UTC, datetime, timedelta

import pytest

from news_crawler.outcomes.store import DAY, OutcomeStore

URL = "https://news.sina.com.cn/c/2019-11-25/doc-iihnzahi3275702.shtml"


class Clock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


def store(client, clock, keep_days=30):
    return OutcomeStore(client, "sina:outcomes", "sina:attempts", keep_days=keep_days, clock=clock)


def test_an_outcome_is_read_while_its_day_is_kept(redis_client):
    clock = Clock(datetime.now(UTC))
    outcomes = store(redis_client, clock)
    outcomes.record(URL, "kept")
    key = f"sina:outcomes:{clock.now.date().isoformat()}"
    assert (29 * DAY) < redis_client.ttl(key) <= 30 * DAY  # the server deletes it; nothing scans
    clock.now += timedelta(days=29)
    assert outcomes.get(URL)["outcome"] == "kept"
    outcomes.record(URL, "failed", "HTTP 503")  # a later day's outcome wins
    assert outcomes.get(URL)["outcome"] == "failed" and outcomes.latest()[URL]["outcome"] == "failed"
    clock.now += timedelta(days=30)
    assert outcomes.get(URL) is None and outcomes.latest() == {}


def test_a_month_of_daily_crawls_keeps_only_the_live_days(redis_client):
    """Sixty days of outcomes recorded with their day's clock: the server itself drops the
    days past the window (their expiry time has passed), so at most 30 day hashes remain."""
    today = datetime.now(UTC)
    clock = Clock(today - timedelta(days=59))
    outcomes = store(redis_client, clock)
    for day in range(60):
        clock.now = today - timedelta(days=59 - day)
        for n in range(20):
            outcomes.record(f"{URL}?day={day}&n={n}", "kept")
    assert len(redis_client.keys("sina:outcomes:20*")) == 30
    assert len(redis_client.keys("sina:outcomes:counts:*")) == 30  # each day's counts go with it
    assert outcomes.counts() == {"kept": 20}
    assert len(outcomes.latest()) == 30 * 20
    assert outcomes.get(f"{URL}?day=59&n=0") and outcomes.get(f"{URL}?day=29&n=0") is None


def test_an_outcome_is_a_short_record(redis_client):
    clock = Clock(datetime.now(UTC).replace(microsecond=0))  # a day hash of the past expires at once
    outcomes = store(redis_client, clock)
    outcomes.record(URL, "failed", "HTTP 503 | retried")
    key = f"sina:outcomes:{clock.now.date().isoformat()}"
    assert redis_client.hget(key, URL) == f"failed|{int(clock.now.timestamp())}|HTTP 503 | retried".encode()
    assert outcomes.get(URL) == {"outcome": "failed", "reason": "HTTP 503 | retried", "time": clock.now.isoformat()}
    with pytest.raises(ValueError, match="outcome"):
        outcomes.record(URL, "not one|word")


@pytest.mark.parametrize(
    "key,record",
    [
        ("outcomes", '{"outcome": "duplicate", "reason": "", "time": "2026-01-01T08:00:00+00:00"}'),
        ("outcomes", "kept"),
        ("attempts", "3"),  # a bare count: no run named
    ],
)
def test_a_record_another_version_wrote_is_refused_in_one_line(redis_client, key, record):
    from news_crawler.errors import UserError

    clock = Clock(datetime.now(UTC))
    outcomes = store(redis_client, clock)
    day_key = f"sina:outcomes:{clock.now.date().isoformat()}" if key == "outcomes" else "sina:attempts"
    redis_client.hset(day_key, URL, record)
    calls = [lambda: outcomes.get(URL), outcomes.latest, lambda: outcomes.record(URL, "kept")]
    if key == "attempts":
        calls = [lambda: outcomes.count_attempt(URL)]
    for call in calls:
        with pytest.raises(UserError) as refused:
            call()
        assert "another version wrote it" in str(refused.value) and "\n" not in str(refused.value)
    assert redis_client.hget(day_key, URL) == record.encode()  # left as it was


def test_keep_days_zero_keeps_one_hash_forever(redis_client):
    outcomes = store(redis_client, Clock(datetime.now(UTC)), keep_days=0)
    outcomes.record(URL, "gone", "HTTP 404")
    assert redis_client.hget("sina:outcomes", URL) and redis_client.ttl("sina:outcomes") == -1
    assert outcomes.get(URL)["reason"] == "HTTP 404"


def test_attempts_count_runs_and_are_cleared_when_a_url_succeeds_or_is_given_up(redis_client):
    clock = Clock(datetime.now(UTC))
    outcomes = store(redis_client, clock)
    # Counted once a run: a write replayed after a Redis outage counts the same run again.
    assert outcomes.count_attempt(URL) == 1 and outcomes.count_attempt(URL) == 1
    assert store(redis_client, clock).count_attempt(URL) == 2  # the next run
    outcomes.record(URL, "failed", "HTTP 503")
    assert redis_client.hget("sina:attempts", URL).startswith(b"2:")
    outcomes.record(URL, "kept")
    assert redis_client.hget("sina:attempts", URL) is None


def test_counts_follow_each_urls_latest_outcome_and_a_replay_counts_nothing(redis_client):
    clock = Clock(datetime.now(UTC))
    outcomes = store(redis_client, clock)
    for n in range(5):
        outcomes.record(f"{URL}?n={n}", "kept")
    outcomes.record(f"{URL}?n=5", "duplicate")
    outcomes.record(f"{URL}?n=6", "failed", "HTTP 503")
    outcomes.record(f"{URL}?n=6", "failed", "HTTP 503")  # replayed after an outage
    assert outcomes.counts() == {"duplicate": 1, "failed": 1, "kept": 5}
    outcomes.record(f"{URL}?n=6", "kept")  # fetched on a later try the same day
    assert outcomes.counts() == {"duplicate": 1, "kept": 6}
    undated = store(redis_client, clock, keep_days=0)
    undated.record(URL, "gone", "HTTP 404")
    assert undated.counts() == {"gone": 1} and redis_client.ttl("sina:outcomes:counts") == -1


def test_a_day_is_a_day_of_the_zone_asked_for(redis_client):
    from zoneinfo import ZoneInfo

    from news_crawler.dedup.index import RedisStore

    # 17:30 UTC today, 01:30 tomorrow in Shanghai (a date of today's: the keys must not have
    # expired already, as a fixed date's would a month later)
    late = datetime.now(UTC).replace(hour=17, minute=30, second=0, microsecond=0)
    day, utc_day = (late + timedelta(days=1)).date().isoformat(), late.date().isoformat()
    shanghai = OutcomeStore(
        redis_client, "sina:outcomes", "sina:attempts", clock=Clock(late), zone=ZoneInfo("Asia/Shanghai")
    )
    shanghai.record(URL, "kept")
    assert redis_client.hget(f"sina:outcomes:{day}", URL) and shanghai.counts() == {"kept": 1}
    midnight = datetime.fromisoformat(day).replace(tzinfo=ZoneInfo("Asia/Shanghai")).timestamp()
    assert redis_client.expiretime(f"sina:outcomes:{day}") == midnight + 30 * DAY
    in_utc = store(redis_client, Clock(late))
    in_utc.record(URL + "?2", "kept")
    assert redis_client.hget(f"sina:outcomes:{utc_day}", URL + "?2")

    index = RedisStore(redis_client, "tz", clock=late.timestamp, zone=ZoneInfo("Asia/Shanghai"))
    index.decide("a", 0x0F0F_0F0F_0F0F_0F0F)
    index.decide("b", 0x0F0F_0F0F_0F0F_0F0E)
    assert index.counts()[f"drops:{day}"] == 1
    assert index.forget("b") == "dropped" and index.counts().get(f"drops:{day}", 0) == 0


def test_a_failed_fetch_is_gone_robots_invalid_or_failed_with_a_bounded_reason():
    from scrapy.exceptions import IgnoreRequest
    from scrapy.http import Response
    from scrapy.spidermiddlewares.httperror import HttpError
    from twisted.python.failure import Failure

    from news_crawler.outcomes.failures import RedirectedOutside, RefusedScheme, classify_failure

    def outcome(error: Exception) -> tuple[str, str]:
        return classify_failure(Failure(error))

    def http(status: int) -> HttpError:
        return HttpError(Response(URL, status=status), "Ignoring non-200 response")

    assert outcome(http(404)) == ("gone", "HTTP 404") and outcome(http(410)) == ("gone", "HTTP 410")
    assert outcome(http(403)) == ("failed", "HTTP 403") and outcome(http(503)) == ("failed", "HTTP 503")
    assert outcome(IgnoreRequest("Forbidden by robots.txt")) == ("robots", "forbidden by robots.txt")
    assert outcome(RefusedScheme("ftp://a.cn/x")) == ("invalid", "not an http(s) URL")
    assert outcome(RedirectedOutside("https://elsewhere.cn/")) == ("invalid", "redirected outside the site")
    assert outcome(IgnoreRequest("offsite")) == ("failed", "IgnoreRequest: offsite")
    said = outcome(TimeoutError("x" * 500))
    assert said[0] == "failed" and said[1] == ("TimeoutError: " + "x" * 500)[:200]  # a record's reason is bounded


def test_a_headline_is_kept_beside_its_outcome_the_newest_days_first(redis_client):
    from news_crawler.outcomes.store import TITLE_MAX

    clock = Clock(datetime.now(UTC) - timedelta(days=1))
    outcomes = store(redis_client, clock)
    outcomes.record(URL, "kept", title="昨天的  标题\n第二行")
    outcomes.record(URL + "?b", "duplicate", title="只在昨天")
    outcomes.record(URL + "?c", "failed", "HTTP 503")  # no headline: none kept
    clock.now += timedelta(days=1)
    outcomes.record(URL, "kept", title="今天的标题" + "长" * 300)
    titles = outcomes.titles([URL, URL + "?b", URL + "?c", URL + "?d"])
    assert titles == {URL: ("今天的标题" + "长" * 300)[:TITLE_MAX], URL + "?b": "只在昨天"}
    assert outcomes.titles([]) == {}
    yesterday = (clock.now - timedelta(days=1)).date()
    assert redis_client.hget(outcomes.titles_key(yesterday), URL).decode() == "昨天的 标题 第二行"  # one line
    assert 28 * DAY < redis_client.ttl(outcomes.titles_key(yesterday)) <= 29 * DAY  # expires with its day
    undated = store(redis_client, clock, keep_days=0)
    undated.record(URL + "?e", "kept", title="不按天")
    assert undated.titles([URL + "?e"]) == {URL + "?e": "不按天"} and redis_client.ttl(undated.titles_key(None)) == -1


def test_one_days_outcomes_and_an_error_keeps_its_attempts(redis_client):
    from news_crawler.config import build_settings
    from news_crawler.outcomes.store import latest_outcomes

    clock = Clock(datetime.now(UTC) - timedelta(days=1))
    outcomes = store(redis_client, clock)
    outcomes.record(URL, "failed", "HTTP 503")
    clock.now += timedelta(minutes=1)
    outcomes.record(URL + "?old", "kept")
    clock.now += timedelta(days=1)
    outcomes.count_attempt(URL)
    outcomes.record(URL, "error", "ValueError: x")  # an exception: the URL comes again, its attempts stay
    assert redis_client.hget("sina:attempts", URL) is not None
    today, yesterday = clock.now.date(), (clock.now - timedelta(days=1)).date()
    assert set(outcomes.latest(today)) == {URL} and set(outcomes.latest(yesterday)) == {URL, URL + "?old"}
    assert outcomes.latest(yesterday)[URL]["outcome"] == "failed" and outcomes.latest()[URL]["outcome"] == "error"
    settings = build_settings({"OUTCOMES_KEEP_DAYS": 30, "TIMEZONE": "UTC"})
    rows = latest_outcomes(redis_client, settings, ["sina"], day=yesterday)  # newest first
    assert [(r["url"], r["outcome"]) for r in rows] == [(URL + "?old", "kept"), (URL, "failed")]
    assert [r["url"] for r in latest_outcomes(redis_client, settings, ["sina"], outcome="error")] == [URL]


@pytest.mark.parametrize(
    "module,cls,setting,attribute",
    [
        ("news_crawler.outcomes.store", "OutcomeStore", "OUTCOMES_KEY", "outcomes_key"),
        ("news_crawler.outcomes.store", "OutcomeStore", "OUTCOMES_ATTEMPTS_KEY", "attempts_key"),
        ("news_crawler.outcomes.changes", "ChangeLog", "CHANGES_KEY", "key"),
        ("news_crawler.outcomes.latency", "LatencyLog", "LATENCY_KEY", "key"),
        ("news_crawler.ops.health", "HealthLog", "HEALTH_KEY", "key"),
        ("news_crawler.frontier.revisits.rechecks", "RecheckSchedule", "RECHECK_KEY", "key"),
        ("news_crawler.frontier.revisits.schedule", "RevisitSchedule", "REVISIT_KEY", "key"),
    ],
)
def test_each_key_setting_names_its_spiders_key(redis_client, module, cls, setting, attribute):
    import importlib

    from news_crawler.config import build_settings

    store_class = getattr(importlib.import_module(module), cls)
    settings = build_settings({setting: "mine:%(spider)s:" + setting.lower()})
    built = store_class.for_spider(redis_client, settings, "site")
    assert getattr(built, attribute) == "mine:site:" + setting.lower()
