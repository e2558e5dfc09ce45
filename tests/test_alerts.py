"""Site alerts: each site judged against its own runs, sent by webhook and by mail (a real HTTP
receiver and a real SMTP server), once a day a site and kind, with one recovery when it clears."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from news_crawler.ops.health import Earlier, HealthLog, SiteRun, Thresholds, judge
from tests.alert_web import Mailbox, Receiver, RunWeb, serve_web
from tests.crawl_helpers import ROOT

LIMITS = Thresholds()


def healthy(kept: int = 5, articles: int = 5, failed: int = 0, fetches: int = 7, length: int = 800) -> SiteRun:
    return SiteRun(
        articles=articles,
        with_body=articles,
        with_author=articles,
        with_time=articles,
        body_lengths=[length] * articles,
        kept=kept,
        fetches=fetches,
        failed=failed,
        start_pages=1,
    )


def history(*runs: SiteRun) -> list[Earlier]:
    return [Earlier(r) for r in runs]


# Judging -----------------------------------------------------------------------------------


def test_a_site_with_too_few_earlier_runs_is_not_judged():
    broken = SiteRun(articles=5, fetches=7, start_pages=1)
    assert judge(broken, history(healthy(), healthy()), LIMITS) == {}
    assert set(judge(broken, history(healthy(), healthy(), healthy()), LIMITS)) == {
        "no_articles",
        "extraction",
        "failures",
    }


def test_a_healthy_sites_ordinary_variation_raises_nothing():
    earlier = history(healthy(kept=6, length=900), healthy(kept=2, length=500, failed=2), healthy(kept=9, length=1500))
    # fewer articles, one without an author, shorter bodies, a few failed fetches: all ordinary
    run = healthy(kept=1, articles=4, length=450, failed=3)
    run.with_author = 3
    assert judge(run, earlier, LIMITS) == {"no_articles": None, "extraction": None, "failures": None}


def test_no_articles_when_a_site_that_keeps_articles_keeps_none():
    verdict = judge(healthy(kept=0), history(healthy(), healthy(), healthy()), LIMITS)
    assert verdict["no_articles"].startswith("kept no article (usually 5 a run")
    # a site that usually keeps none (its median run keeps none) is not judged on it
    quiet = history(healthy(kept=0), healthy(kept=0), healthy(kept=3))
    assert "no_articles" not in judge(healthy(kept=0), quiet, LIMITS)
    # one a run is keeping articles
    one_a_run = history(healthy(kept=1), healthy(kept=0), healthy(kept=1))
    assert judge(healthy(kept=0), one_a_run, LIMITS)["no_articles"].startswith("kept no article (usually 1 a run")


def test_extraction_alerts_when_a_share_falls_by_the_threshold_and_not_just_under_it():
    earlier = history(healthy(articles=10), healthy(articles=10), healthy(articles=10))
    at = healthy(articles=10)
    at.with_author = 6  # 100% -> 60%: fell by exactly 0.4
    assert judge(at, earlier, LIMITS)["extraction"] == "articles with a author 60% (usually 100%), of 10 new articles"
    under = healthy(articles=10)
    under.with_author = 7  # fell by 0.3
    assert judge(under, earlier, LIMITS)["extraction"] is None


def test_extraction_alerts_on_bodies_shorter_than_the_ratio_of_the_usual():
    earlier = history(healthy(length=1000), healthy(length=1000), healthy(length=1000))
    assert judge(healthy(length=400), earlier, LIMITS)["extraction"] is None  # exactly 0.4 of the usual
    detail = judge(healthy(length=399), earlier, LIMITS)["extraction"]
    assert detail == "median body 399 characters (usually 1000), of 5 new articles"


def test_extraction_is_judged_only_on_runs_with_enough_articles():
    earlier = history(healthy(), healthy(), healthy())
    few = SiteRun(articles=2, kept=2, fetches=3, start_pages=1)  # two teasers: too few to tell
    assert "extraction" not in judge(few, earlier, LIMITS)


def test_failures_on_a_failed_start_page_or_more_than_the_share_of_fetches():
    earlier = history(healthy(), healthy(), healthy())
    down = healthy(kept=0, articles=0, fetches=1, failed=1)
    down.start_failed = ["http://example.com/news/"]
    assert judge(down, earlier, LIMITS)["failures"].startswith("1 of 1 start pages failed (http://example.com/news/)")
    assert judge(healthy(fetches=10, failed=5), earlier, LIMITS)["failures"] is None  # exactly half: not more
    assert judge(healthy(fetches=10, failed=6), earlier, LIMITS)["failures"] == "6 of 10 fetches failed (usually 0%)"


def test_a_week_of_a_broken_template_does_not_become_the_sites_usual():
    good, broken = healthy(length=1000), healthy(length=100)
    earlier = [Earlier(broken, ("extraction",))] * 4 + history(good, good, good)
    assert (
        judge(broken, earlier, LIMITS)["extraction"] == "median body 100 characters (usually 1000), of 5 new articles"
    )
    # a mended site is judged against its healthy runs: healthy again
    assert judge(good, earlier, LIMITS)["extraction"] is None


def test_the_usual_is_the_last_history_healthy_runs():
    earlier = history(*[healthy(length=400)] * 2, *[healthy(length=1000)] * 5)
    assert judge(healthy(length=200), earlier, LIMITS)["extraction"] is not None  # usual 1000
    # the newest three: 400, 400, 1000 (a fourth would make the usual 700, and 200 too short)
    assert judge(healthy(length=200), earlier, Thresholds(history=3))["extraction"] is None


def test_a_run_row_keeps_the_median_body_and_reads_back():
    run = healthy(length=700)
    run.body_lengths = [100, 700, 900]
    back = SiteRun.from_json(json.loads(json.dumps(run.to_json())))
    assert back.body_median == 700 and back.kept == run.kept and "body_lengths" not in run.to_json()


# The alerts in Redis ------------------------------------------------------------------------


def test_an_alert_is_claimed_once_a_day_by_one_of_two_workers_and_again_the_next_day(redis_client):
    now = [datetime(2026, 12, 7, 15, 0, tzinfo=UTC)]
    log = HealthLog(redis_client, "t:health", clock=lambda: now[0])
    barrier, claimed = threading.Barrier(8), []

    def claim() -> None:
        barrier.wait()
        claimed.append(log.raise_alert("beta", "failures", "503"))

    threads = [threading.Thread(target=claim) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(claimed) == [False] * 7 + [True]
    assert log.open_alerts() == {("beta", "failures"): {"since": "2026-12-07T15:00:00+00:00", "detail": "503"}}
    assert log.raise_alert("beta", "extraction", "short") is True  # another kind is its own alert
    now[0] += timedelta(days=1)
    assert log.raise_alert("beta", "failures", "still 503") is True
    # the alert stays open since its first day
    assert log.open_alerts()["beta", "failures"]["since"] == "2026-12-07T15:00:00+00:00"
    assert log.clear("beta", "failures") is True and log.clear("beta", "failures") is False


def test_a_site_keeps_its_last_60_runs_and_sent_lists_those_at_or_after_a_time(redis_client):
    now = [datetime(2026, 12, 7, 15, 0, tzinfo=UTC)]
    log = HealthLog(redis_client, "t:health", clock=lambda: now[0])
    for kept in range(61):
        log.record("a", healthy(kept=kept), {})
    rows = log.earlier("a", 100)
    assert len(rows) == 60 and rows[0].run.kept == 60 and rows[-1].run.kept == 1
    for hour in range(3):
        log.log_sent({"site": "a", "run_at": (now[0] + timedelta(hours=hour)).isoformat()})
    assert [e["run_at"][11:13] for e in log.sent(now[0] + timedelta(hours=1))] == ["17", "16"]


def test_the_day_of_the_one_alert_is_a_day_of_timezone(redis_client):
    from zoneinfo import ZoneInfo

    now = [datetime(2026, 12, 7, 15, 30, tzinfo=UTC)]  # 23:30 in Shanghai
    log = HealthLog(redis_client, "t:health", ZoneInfo("Asia/Shanghai"), clock=lambda: now[0])
    assert log.raise_alert("a", "failures", "x") is True
    now[0] += timedelta(hours=1)  # 00:30 the next day there, the same UTC day
    assert log.raise_alert("a", "failures", "x") is True


# Crawls -------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Runs:
    """Crawls of a RunWeb's sites, one ``news-crawler crawl`` a run."""

    def __init__(self, tmp: Path, redis_url: str, web: RunWeb, base: str) -> None:
        self.tmp, self.redis_url, self.web, self.n = tmp, redis_url, web, 0
        self.sites = tmp / "sites.toml"
        self.sites.write_text(
            "".join(
                f"[sites.{name}]\nstart_urls = [\"{base}/{name}/\"]\nallow = '/{name}/a/\\d+\\.html$'\n\n"
                for name in web.sites
            ),
            encoding="utf-8",
        )

    def cmd(self, *args: str, settings: dict[str, str] | None = None) -> list[str]:
        cmd = [sys.executable, "-m", "news_crawler.cli.crawler", *args]
        for key, value in {
            "REDIS_URL": self.redis_url,
            "SITES_FILE": str(self.sites),
            "FEED_DIR": str(self.tmp / "feed"),
            "DEDUP_PROCESSES": "1",
            "RETRY_TIMES": "0",
            "LOG_LEVEL": "INFO",
            **(settings or {}),
        }.items():
            cmd += ["-s", f"{key}={value}"]
        return cmd

    def crawl(self, settings: dict[str, str]) -> tuple[int, str]:
        """A new day's articles published, then one crawl: its exit code and log."""
        self.n += 1
        self.web.publish(3)
        log = self.tmp / f"run{self.n}.log"
        with open(log, "w") as out:
            code = subprocess.run(
                self.cmd("crawl", settings=settings), cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, timeout=300
            ).returncode
        return code, log.read_text()

    def json(self, *args: str) -> list[dict]:
        out = subprocess.run(self.cmd(*args), cwd=ROOT, capture_output=True, text=True, timeout=120, check=True)
        return [json.loads(line) for line in out.stdout.splitlines() if line]


@pytest.fixture
def channels():
    receiver, mailbox = Receiver(), Mailbox()
    yield receiver, mailbox
    receiver.close()
    mailbox.close()


def test_alerts_on_both_channels_once_a_day_and_one_recovery_each(tmp_path, redis_server, redis_client, channels):
    receiver, mailbox = channels
    web = RunWeb(["alpha", "beta", "gamma"], per_run=3, runs=6)
    server, base = serve_web(web)
    runs = Runs(tmp_path, redis_server.url, web, base)
    settings = {
        "ALERTS_WEBHOOK_URL": receiver.url + "/hook",
        "ALERTS_SMTP_URL": mailbox.url,
        "ALERTS_EMAIL_TO": "ops@example.com,news@example.com",
    }
    try:
        for _ in range(3):  # three healthy runs: a history, and no alert
            code, log = runs.crawl(settings)
            assert code == 0, log[-3000:]
        assert receiver.got == [] and mailbox.messages == []
        status = runs.json("status", "--json")[0]
        health = {site: h for row in status["spiders"].values() for site, h in row.get("health", {}).items()}
        # the third run had two before it: not judged yet
        assert {s: (h["alerts"], h["judged"]) for s, h in health.items()} == dict.fromkeys(
            ("alpha", "beta", "gamma"), ({}, [])
        )

        # beta's template hides its story (its pages still 200); gamma's start page answers 503
        web.sites["beta"].hidden = True
        web.sites["gamma"].down = True
        code, log = runs.crawl(settings)
        assert code == 1  # gamma fetched none of its start pages: what the crawl says without alerts too
        assert "Traceback" not in log
        alerted = {(p["site"], p["kind"]) for p in receiver.got}
        assert alerted == {
            ("beta", "no_articles"),
            ("beta", "extraction"),
            ("gamma", "no_articles"),
            ("gamma", "failures"),
        }
        assert all(
            p["status"] == "alert" and set(p) == {"site", "kind", "detail", "run_at", "status"} for p in receiver.got
        )
        by_kind = {(p["site"], p["kind"]): p["detail"] for p in receiver.got}
        assert by_kind["gamma", "failures"].startswith(f"1 of 1 start pages failed ({base}/gamma/)")
        assert "usually 3 a run" in by_kind["beta", "no_articles"]
        subjects = sorted(m["Subject"] for m in mailbox.messages)
        assert subjects == sorted(f"news-crawler alert: {site} {kind}" for site, kind in alerted)
        assert all(m["To"] == "ops@example.com, news@example.com" for m in mailbox.messages)
        assert all("usually" in m.get_content() for m in mailbox.messages)

        # seen from outside: status, the report, the metrics
        status = runs.json("status", "--json")[0]
        health = {site: h for row in status["spiders"].values() for site, h in row["health"].items()}
        assert {s: sorted(h["alerts"]) for s, h in health.items()} == {
            "alpha": [],
            "beta": ["extraction", "no_articles"],
            "gamma": ["failures", "no_articles"],
        }
        report = tmp_path / "report.html"
        subprocess.run(runs.cmd("report", "--out", str(report)), cwd=ROOT, check=True, capture_output=True, timeout=120)
        page = report.read_text()
        table = page[page.index('<table id="health">') :]
        table = table[: table.index("</table>")]
        assert table.count('class="flagged" data-site="beta"') == 2 and table.count('data-site="gamma"') == 2
        assert '<tr data-site="alpha"><td>alpha</td><td>ok</td>' in table
        from news_crawler.cli.metrics import RedisCollector
        from news_crawler.config import build_settings

        metric = next(
            f
            for f in RedisCollector(
                build_settings({"REDIS_URL": redis_server.url, "SITES_FILE": str(runs.sites)})
            ).collect()
            if f.name == "news_crawler_site_health"
        )
        values = {(s.labels["site"], s.labels["kind"]): s.value for s in metric.samples}
        assert values[("beta", "extraction")] == values[("gamma", "failures")] == 1
        assert values[("alpha", "failures")] == values[("beta", "failures")] == 0 and len(values) == 9

        # the same run again that day: nothing more is sent
        code, _ = runs.crawl(settings)
        assert code == 1 and len(receiver.got) == 4 and len(mailbox.messages) == 4
        sent = runs.json("alerts", "--json")
        assert len(sent) == 4 and all(e["channels"] == {"webhook": "sent", "email": "sent"} for e in sent)
        assert runs.json("alerts", "--json", "--site", "alpha") == []
        # --since: those at or after a time (inclusive), none after the newest
        newest = max(e["run_at"] for e in sent)
        assert runs.json("alerts", "--json", "--since", newest) == [e for e in sent if e["run_at"] == newest]
        later = (datetime.fromisoformat(newest) + timedelta(seconds=1)).isoformat()
        assert runs.json("alerts", "--json", "--since", later) == []

        # both healed: one recovery for each alert, no problem alert
        web.sites["beta"].hidden = web.sites["gamma"].down = False
        code, log = runs.crawl(settings)
        assert code == 0, log[-3000:]
        recovered = [p for p in receiver.got[4:]]
        assert sorted((p["site"], p["kind"], p["status"]) for p in recovered) == sorted(
            (site, kind, "recovered") for site, kind in alerted
        )
        assert len(mailbox.messages) == 8
        assert all(m["Subject"].startswith("news-crawler recovered: ") for m in mailbox.messages[4:])
        status = runs.json("status", "--json")[0]
        assert all(not h["alerts"] for row in status["spiders"].values() for h in row["health"].values())
    finally:
        server.shutdown()


def test_channels_that_fail_change_nothing_of_the_crawl(tmp_path, redis_server, redis_client, channels):
    receiver, _ = channels
    receiver.status = 500
    web = RunWeb(["alpha", "beta"], per_run=3, runs=1)
    server, base = serve_web(web)
    runs = Runs(tmp_path, redis_server.url, web, base)
    from news_crawler.config import plain_settings

    for name in ("alpha", "beta"):  # three healthy runs of each site, recorded as a crawl records them
        log = HealthLog.for_spider(redis_client, plain_settings({}), name)
        for _ in range(3):
            log.record(name, healthy(kept=3, articles=3, fetches=4), {})
    web.sites["beta"].hidden = True
    refused = f"smtp://127.0.0.1:{free_port()}"  # nothing listens there
    try:
        code, log = runs.crawl(
            {"ALERTS_WEBHOOK_URL": receiver.url, "ALERTS_SMTP_URL": refused, "ALERTS_EMAIL_TO": "ops@example.com"}
        )
    finally:
        server.shutdown()
    assert code == 0, log[-3000:]  # beta's pages still answer: the crawl did its work
    assert "Traceback" not in log
    kinds = {p["kind"] for p in receiver.got}
    assert kinds == {"no_articles", "extraction"} and {p["site"] for p in receiver.got} == {"beta"}
    failed = [line for line in log.splitlines() if "not delivered" in line]
    assert len(failed) == 4  # two alerts, two channels each: one line a failed delivery
    assert sum("answered HTTP 500" in line for line in failed) == 2
    assert sum(f"the SMTP server {refused} did not take it" in line for line in failed) == 2
    assert "'alerts/failed/webhook': 2" in log and "'alerts/failed/email': 2" in log
    sent = runs.json("alerts", "--json")
    assert all(e["channels"]["webhook"].startswith("failed: ") for e in sent) and len(sent) == 2


def test_a_crawls_rechecks_are_no_new_articles_and_a_stopped_crawl_no_run(tmp_path, redis_server, redis_client):
    from news_crawler.config import plain_settings

    web = RunWeb(["alpha"], per_run=3, runs=3)
    server, base = serve_web(web)
    runs = Runs(tmp_path, redis_server.url, web, base)
    key = HealthLog.for_spider(redis_client, plain_settings({}), "alpha").key + ":runs:alpha"
    every_run = {"RECHECK_AFTER": "0s,1d"}  # each kept article due again at the next run
    try:
        assert runs.crawl(every_run)[0] == 0
        edited = web.sites["alpha"].published[0]
        edited["body"] += "\n本报记者随后获悉，有关部门已经就此事成立专门工作组，并将在下周公布调查的初步结果。"
        code, log = runs.crawl(every_run)
        # a crawl that stops before it is done is no run of the site: not judged, not recorded
        stopped, stopped_log = runs.crawl({"CLOSESPIDER_ITEMCOUNT": "1", "RECHECK_AFTER": ""})
    finally:
        server.shutdown()
    assert code == 0, log[-3000:]
    assert "'rechecks/edited/alpha': 1" in log and "'rechecks/unchanged/alpha': 2" in log  # one a new version
    rows = [json.loads(r)["run"] for r in redis_client.lrange(key, 0, -1)]
    assert len(rows) == 2, stopped_log[-3000:]
    # the second run's own work: its start page and three new articles
    assert (rows[0]["articles"], rows[0]["kept"], rows[0]["fetches"]) == (3, 3, 4)
    assert "closespider_itemcount" in stopped_log


def test_a_webhook_that_redirects_has_failed_and_is_not_followed(channels):
    from news_crawler.ops.alerting import Alert, ChannelFailed, Webhook

    receiver, _ = channels
    receiver.status = 302
    with pytest.raises(ChannelFailed, match="answered HTTP 302"):
        Webhook(receiver.url + "/hook", 10).send(Alert("a", "failures", "x", "2026-12-07T00:00:00+00:00", "alert"))
    assert len(receiver.got) == 1  # the one POST; nothing sent to where it pointed


def test_alert_settings_set_up_wrong_are_one_line_before_the_crawl(tmp_path):
    cmd = [sys.executable, "-m", "news_crawler.cli.crawler", "crawl", "news", "-a", "start_urls=http://127.0.0.1:9/"]
    cases = [
        (["-s", "ALERTS_WEBHOOK_URL=ftp://hooks.example.com/x"], "ALERTS_WEBHOOK_URL='ftp://hooks.example.com/x'"),
        (
            ["-s", "ALERTS_SMTP_URL=smtp://ops:s3cret@mail.example.com"],
            "ALERTS_SMTP_URL='smtp://ops:***@mail.example.com'",
        ),
        (["-s", "ALERTS_SMTP_URL=smtp://mail.example.com:25"], "ALERTS_EMAIL_TO is empty"),
    ]
    for args, expected in cases:
        out = subprocess.run(cmd + args, cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert out.returncode == 2, out.stderr
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and expected in lines[0] and "s3cret" not in out.stderr, out.stderr


def test_a_watch_is_judged_every_interval(tmp_path, redis_server, redis_client):
    import signal

    from news_crawler.config import plain_settings
    from tests.crawl_helpers import wait_for

    web = RunWeb(["alpha"], per_run=3, runs=1)
    server, base = serve_web(web)
    runs = Runs(tmp_path, redis_server.url, web, base)
    web.publish(3)
    key = HealthLog.for_spider(redis_client, plain_settings({}), "alpha").key + ":runs:alpha"

    def rows() -> list[dict]:
        return [json.loads(r)["run"] for r in redis_client.lrange(key, 0, -1)]

    with open(tmp_path / "watch.log", "w") as out:
        proc = subprocess.Popen(
            runs.cmd("watch", settings={"ALERTS_WATCH_INTERVAL": "0.5", "REVISIT_MIN": "0.5", "REVISIT_MAX": "1"}),
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        # each interval is a run of its own, its articles counted in the interval they came in
        wait_for(lambda: sum(r["kept"] for r in rows()) == 3, 120, "the three articles judged")
        wait_for(lambda: len(rows()) >= 3, 120, "three judged intervals")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(120) == 0, (tmp_path / "watch.log").read_text()[-3000:]
    finally:
        proc.kill()
        server.shutdown()
    assert sum(r["kept"] for r in rows()) == 3 and sum(r["articles"] for r in rows()) == 3
    assert sum(r["start_pages"] for r in rows()) >= 2  # the start page revisited
    assert "Traceback" not in (tmp_path / "watch.log").read_text()


@pytest.mark.parametrize(
    "setting,why",
    [
        ({"ALERTS_ENABLED": False}, "ALERTS_ENABLED is off"),
        ({"RECHECK": True}, "a recheck run or a cluster worker"),
        ({"SEED_FROM_REDIS": True}, "a recheck run or a cluster worker"),
    ],
)
def test_a_run_that_is_no_whole_run_of_a_site_or_alerts_off_is_not_judged(make_crawler, setting, why):
    from scrapy import Spider
    from scrapy.exceptions import NotConfigured

    from news_crawler.ops.alerting import SiteAlerts

    class Site(Spider):
        name = "judged"

    with pytest.raises(NotConfigured, match=why):
        SiteAlerts.from_crawler(make_crawler(Site, setting))
    assert isinstance(SiteAlerts.from_crawler(make_crawler(Site)), SiteAlerts)  # on by default


def test_each_alert_setting_reaches_the_thresholds_and_the_channels():
    """Each given a value of its own (two defaults are both 0.4: a swap would not show)."""
    from news_crawler.config import build_settings
    from news_crawler.ops.alerting import Email, Webhook, channels_from_settings
    from news_crawler.ops.health import Thresholds

    settings = build_settings(
        {
            "ALERTS_HISTORY": 11,
            "ALERTS_MIN_RUNS": 5,
            "ALERTS_MIN_ARTICLES": 4,
            "ALERTS_SHARE_DROP": 0.31,
            "ALERTS_LENGTH_RATIO": 0.27,
            "ALERTS_FAILED_SHARE": 0.66,
            "ALERTS_TIMEOUT": 4.5,
            "ALERTS_WEBHOOK_URL": "https://hooks.example.com/x",
            "ALERTS_SMTP_URL": "smtp://mail.example.com:2525",
            "ALERTS_EMAIL_TO": "ops@example.com, news@example.com",
            "ALERTS_EMAIL_FROM": "crawler@example.com",
        }
    )
    assert Thresholds.from_settings(settings) == Thresholds(11, 5, 4, 0.31, 0.27, 0.66)
    hook, mail = channels_from_settings(settings)
    assert isinstance(hook, Webhook) and (hook.url, hook.timeout) == ("https://hooks.example.com/x", 4.5)
    assert isinstance(mail, Email) and (mail.sender, mail.timeout) == ("crawler@example.com", 4.5)
    assert mail.to == ["ops@example.com", "news@example.com"]
