"""Rechecks for real: a crawl keeps real articles served over HTTP in chrome that changes on
every fetch; some are then edited, some deleted in each way sites delete, one fails once;
``news-crawler recheck`` runs twice on a real Redis."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from news_crawler.extraction.removed import removal_notice
from news_crawler.frontier.revisits.rechecks import ArticleState, digests, judge, parse_durations
from news_mirror.live import LiveSite, LiveWeb, articles, serve, sites_file
from tests.crawl_helpers import ROOT


def test_durations():
    assert parse_durations("1h,6h,1d,3d,7d") == [3600, 21600, 86400, 259200, 604800]
    assert parse_durations("90s, 1.5m,") == [90, 90] and parse_durations("") == []
    with pytest.raises(ValueError, match="'2w' is not a duration"):
        parse_durations("1h,2w")


@pytest.mark.parametrize(
    "text",
    [
        "该内容已被删除",
        "抱歉，您访问的页面不存在",
        "此内容因违规无法查看",
        "该文章已被作者删除",
        "该帖子已被屏蔽",
        "您访问的内容已失效",
        "稿件已撤回",
        "404 Not Found",
        "页面走丢了",
        "Sorry, the page you requested was not found",
    ],
)
def test_removal_notices_are_a_class(text):
    assert removal_notice(text)


@pytest.mark.parametrize(
    "text", ["平台已删除违规账号3000个", "页面设计已经完成，将于下月上线", "网友称该视频播放量已过百万", "相关文章推荐"]
)
def test_news_that_mentions_such_words_is_no_notice(text):
    assert not removal_notice(text)


def test_an_edit_is_in_the_fields_not_in_the_chrome_and_a_notice_needs_the_article_gone():
    body = "第一段说的是一件事情的经过。\n第二段讲了它的来龙去脉和影响。\n阅读 1234\n第三段是记者的采访和评论。"
    title, digest, sample = digests("标题", body)
    state = ArticleState(kept_at=0, title=title, body=digest, sample=sample)
    assert judge(state, " 标题 ", body.replace("1234", "1301") + "\n分享", "").event == ""  # chrome, spacing
    edited = judge(state, "标题", body + "\n（更正：第二段的时间应为周三。）", "")
    assert edited.event == "edited" and edited.changed == ["body"] and edited.state.version == 2
    assert judge(state, "新标题", body, "").changed == ["title"]
    gone = judge(state, "新闻网", "抱歉，该内容已被删除。", "<p>抱歉，该内容已被删除。</p>")
    assert gone.event == "deleted" and "已被删除" in gone.reason
    # a story about deleted posts, edited: still there, so an edit
    story = judge(state, "标题", body + "\n平台称相关内容已被删除。", "平台称相关内容已被删除。")
    assert story.event == "edited"
    # no notice and no line of article text (a shell, a challenge page): neither an edit nor a deletion
    shell = judge(state, "请稍候", "正在加载\n验证中", "<p>正在加载</p>")
    assert (shell.event, shell.changed, shell.state) == ("", [], state)
    assert judge(state, "标题", "", "").event == ""


def crawler_cmd(*args: str, url: str, web: LiveWeb, feed: str) -> list[str]:
    cmd = [sys.executable, "-m", "news_crawler.cli.crawler", *args]
    for key, value in {
        "REDIS_URL": url,
        "SITES_FILE": str(web.sites_path),  # type: ignore[attr-defined]
        "FEED_DIR": feed,
        "DEDUP_PROCESSES": "1",
        "RECHECK_AFTER": "0s,0s",  # both due at once: the test says when
        "LOG_LEVEL": "INFO",
    }.items():
        cmd += ["-s", f"{key}={value}"]
    return cmd


def read_feed(feed: str) -> list[dict]:
    return [json.loads(line) for f in Path(feed).glob("*/*.jsonl") for line in f.read_text().splitlines() if line]


def run(cmd: list[str], log) -> int:
    return subprocess.run(
        cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy(), timeout=300
    ).returncode


def test_rechecks_find_edits_and_deletions_write_versions_and_stop_at_a_deletion(tmp_path, redis_server, redis_client):
    web = LiveWeb([LiveSite("s", [-600.0 + n for n in range(12)])], articles(12, seed=11))
    server, base = serve(web)
    web.sites_path = sites_file(web, base, tmp_path / "sites.toml")  # type: ignore[attr-defined]
    url, feed = redis_server.url, str(tmp_path / "feed")
    log = open(tmp_path / "log.txt", "w")
    try:
        assert run(crawler_cmd("crawl", "s", url=url, web=web, feed=feed), log) == 0
        first = {n: web.texts["s", n] for n in range(12)}
        web.edit("s", 0, body=first[0]["body"].replace("。", "，据悉。", 1))  # a sentence changed
        web.edit("s", 1, title=first[1]["title"] + "（更新）")
        web.edit("s", 2, body=first[2]["body"] + "\n（更正：本文第二段的时间有误，已改正。）")
        web.gone.update({("s", 3): "404", ("s", 4): "410", ("s", 5): "home", ("s", 6): "notice", ("s", 7): "flaky"})
        web.gone["s", 9] = "away"
        fetched_before = len(web.article_fetches)
        lines = []
        for _ in (1, 2):
            assert run(crawler_cmd("recheck", url=url, web=web, feed=feed), log) == 0
            lines.append(read_feed(feed))
    finally:
        server.shutdown()
        log.close()
    out = subprocess.run(
        [*crawler_cmd("changes", "--json", url=url, web=web, feed="x")], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    by_url = {e["url"].rsplit("/", 1)[1]: e for e in events}
    newest = max(e["at"] for e in events)  # --since: those at or after a time, none after the newest
    since = [*crawler_cmd("changes", "--json", "--since", newest, url=url, web=web, feed="x")]
    at_newest = subprocess.run(since, cwd=ROOT, capture_output=True, text=True).stdout.splitlines()
    assert [json.loads(line) for line in at_newest] == [e for e in events if e["at"] == newest]
    since[since.index(newest)] = (datetime.fromisoformat(newest) + timedelta(seconds=1)).isoformat()
    assert subprocess.run(since, cwd=ROOT, capture_output=True, text=True).stdout == ""
    assert len(events) == len(by_url) == 8, (tmp_path / "log.txt").read_text()[-3000:]  # each once over two runs
    assert {k for k, e in by_url.items() if e["event"] == "edited"} == {"0.html", "1.html", "2.html"}
    assert {k for k, e in by_url.items() if e["event"] == "deleted"} == {
        "3.html",
        "4.html",
        "5.html",
        "6.html",
        "9.html",
    }
    assert by_url["1.html"]["changed"] == ["title"] and by_url["0.html"]["changed"] == ["body"]
    assert "HTTP 404" in by_url["3.html"]["reason"] and "redirected" in by_url["5.html"]["reason"]
    assert (
        "redirected outside the site" in by_url["9.html"]["reason"]
        and "elsewhere.invalid" in by_url["9.html"]["reason"]
    )
    # version 1 of every article from the crawl, version 2 of each edit with its new text
    first_lines = [i for i in lines[0] if i["version"] == 1]
    assert len(first_lines) == 12 and len({i["url"] for i in first_lines}) == 12
    versions = [i for i in lines[0] if i["version"] != 1]
    assert sorted(i["url"].rsplit("/", 1)[1] for i in versions) == ["0.html", "1.html", "2.html"]
    assert all(i["version"] == 2 for i in versions)
    assert next(i for i in versions if i["url"].endswith("/1.html"))["title"].endswith("（更新）")
    assert "更正" in next(i for i in versions if i["url"].endswith("/2.html"))["body"]
    assert len(lines[1]) == len(lines[0]) == 15  # nothing new the second time
    # history: the versions of an edited article with the diff; a deleted one says so
    history = subprocess.run(
        [*crawler_cmd("history", f"{base}/s/a/2.html", url=url, web=web, feed=feed)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert history.returncode == 0, history.stderr
    assert "version 1," in history.stdout and "version 2," in history.stdout and "+（更正" in history.stdout
    gone = subprocess.run(
        [*crawler_cmd("history", f"{base}/s/a/4.html", url=url, web=web, feed=feed)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert "deleted " in gone.stdout and "HTTP 410" in gone.stdout
    # status, the metrics and the report count them
    status = json.loads(
        subprocess.run(
            [*crawler_cmd("status", "--json", url=url, web=web, feed="x")], cwd=ROOT, capture_output=True, text=True
        ).stdout
    )
    row = status["spiders"]["s"]
    assert row["changes"] == row["changes_today"] == {"edited": 3, "deleted": 5} and row["rechecks_due"] == 0
    report = tmp_path / "report.html"
    assert run(crawler_cmd("report", "--out", str(report), url=url, web=web, feed="x"), open(os.devnull, "w")) == 0
    page = report.read_text(encoding="utf-8")
    assert "Edits and deletions rechecks found today (8)" in page and page.count("<td>deleted</td>") == 5
    # a deleted article is not rechecked past its deletion; the others twice, the flaky one too
    after = [n for site, n, _ in web.article_fetches[fetched_before:]]
    assert all(after.count(n) == 1 for n in (3, 4, 5, 6, 9)) and all(after.count(n) == 2 for n in (0, 1, 2, 7, 8, 11))


def test_the_recheck_schedule_tracks_once_steps_through_its_entries_and_ends(redis_client):
    from news_crawler.frontier.revisits.rechecks import RecheckSchedule

    s = RecheckSchedule(redis_client, "s:rechecks", [0.0, 0.0, 3600.0], claim_seconds=30.0)
    assert s.track("http://a.cn/1.html", "标题", "正文的第一句话写在这里。") is True
    first = (
        redis_client.hget("s:rechecks", "http://a.cn/1.html"),
        redis_client.zscore("s:rechecks:due", "http://a.cn/1.html"),
    )
    assert s.track("http://a.cn/1.html", "标题二", "一个新版本不重新开始它的复查。") is False
    # tracked before: its state and its due time are as the first track left them
    assert (
        redis_client.hget("s:rechecks", "http://a.cn/1.html"),
        redis_client.zscore("s:rechecks:due", "http://a.cn/1.html"),
    ) == first
    assert s.due() == 1
    ((url, state, read),) = s.claim()
    assert url == "http://a.cn/1.html" and state.step == 0 and state.version == 1
    assert s.claim() == [] and s.due() == 0  # claimed: nobody else fetches it meanwhile
    assert s.checked(url, read, state) is True
    assert s.checked(url, read, state) is False  # recorded already: a second writer changes nothing
    ((_, state, read),) = s.claim()  # the second entry, due at once too
    assert state.step == 1
    assert s.checked(url, read, state) is True
    assert (
        s.claim() == [] and redis_client.zscore("s:rechecks:due", url) > state.kept_at + 3000
    )  # the third, in an hour
    s2 = RecheckSchedule(redis_client, "t:rechecks", [0.0, 0.0], claim_seconds=30.0)
    s2.track("http://a.cn/2.html", "标题", "正文")
    ((url2, state2, read2),) = s2.claim()
    assert s2.checked(url2, read2, state2, done=True) is True  # deleted: no recheck follows
    assert s2.due() == 0 and redis_client.zcard("t:rechecks:due") == 0
    assert not redis_client.hexists("t:rechecks", url2)  # its state goes with it: memory stays bounded
    assert RecheckSchedule(redis_client, "u:rechecks", [], 30.0).track("http://a.cn/3.html", "t", "b") is False


def test_a_recheck_claimed_by_a_worker_that_died_is_due_again_when_its_claim_runs_out(redis_client):
    from news_crawler.frontier.revisits.rechecks import RecheckSchedule
    from tests.crawl_helpers import wait_for

    dead, alive = (RecheckSchedule(redis_client, "s:rechecks", [0.0], claim_seconds=0.5) for _ in range(2))
    dead.track("http://a.cn/1.html", "标题", "正文的第一句话写在这里。")
    assert [url for url, _, _ in dead.claim()] == ["http://a.cn/1.html"]  # then killed: never recorded
    assert alive.claim() == []
    taken: list[str] = []
    wait_for(lambda: taken.extend(url for url, _, _ in alive.claim()) or taken, 10, "the claim to run out")
    assert taken == ["http://a.cn/1.html"]


def test_the_change_log_counts_an_event_on_its_day_of_timezone_not_of_utc(redis_client):
    """01:30 in Shanghai is still yesterday in UTC: the event counts on the Shanghai day, whose
    count key lives until that day's midnight there plus OUTCOMES_KEEP_DAYS."""
    from datetime import UTC, datetime, timedelta
    from zoneinfo import ZoneInfo

    from news_crawler.outcomes.changes import ChangeLog

    shanghai = ZoneInfo("Asia/Shanghai")
    # today 17:30 UTC, 01:30 tomorrow in Shanghai (today's date: the count key must not have
    # expired already, as a fixed date's would some days later)
    utc_day = datetime.now(UTC).date()
    day = utc_day + timedelta(days=1)
    now = datetime(utc_day.year, utc_day.month, utc_day.day, 17, 30, tzinfo=UTC)
    log = ChangeLog(redis_client, "t:changes", shanghai, keep_days=2, clock=lambda: now)
    entry = log.record("http://a.test/1", "a", "edited", 2, ["body"])
    assert entry["at"] == now.isoformat() and log.today() == day
    assert log.counts(day) == {"edited": 1} and log.counts(utc_day) == {}
    midnight = datetime(day.year, day.month, day.day, tzinfo=shanghai).timestamp()
    assert redis_client.expiretime(f"t:changes:counts:{day.isoformat()}") == int(midnight) + 2 * 86400
    assert [e["url"] for e in log.on(day, shanghai)] == ["http://a.test/1"]
    assert log.on(utc_day, shanghai) == []

    one_day = ChangeLog(redis_client, "t:one", shanghai, keep_days=1, clock=lambda: now)
    one_day.record("http://a.test/3", "a", "edited", 2, ["title"])
    assert redis_client.expiretime(f"t:one:counts:{day.isoformat()}") == int(midnight) + 86400
    # OUTCOMES_KEEP_DAYS = 0: a day's counts are kept for ever, not expired at once
    forever = ChangeLog(redis_client, "t:kept", shanghai, keep_days=0, clock=lambda: now)
    forever.record("http://a.test/2", "a", "deleted", 2, [], reason="页面显示已删除")
    assert forever.counts(day) == {"deleted": 1} and redis_client.ttl(f"t:kept:counts:{day.isoformat()}") == -1
    assert "页面显示已删除".encode() in redis_client.lindex("t:kept", 0)  # UTF-8, as redis-cli shows it: not \u escapes


def test_a_line_counts_from_exactly_min_line_characters_and_one_kept_line_is_no_article():
    from news_crawler.frontier.revisits.rechecks import MIN_LINE, long_lines

    assert long_lines("甲" * MIN_LINE + "\n" + "乙 " * (MIN_LINE - 1)) == ["甲" * MIN_LINE]  # spacing is no character
    body = "第一段说的是一件事情的经过。\n第二段讲了它的来龙去脉和影响。\n第三段是记者的采访和评论。"
    title, digest, sample = digests("标题", body)
    state = ArticleState(kept_at=0, title=title, body=digest, sample=sample)
    # the removal page keeps the article's first line as its summary: still deleted
    notice = "抱歉，该内容已被删除。"
    summary_kept = judge(state, "标题", "第一段说的是一件事情的经过。\n" + notice, notice)
    assert summary_kept.event == "deleted"
    # two of its lines still there: the article is, edited (the notice is part of it)
    two_kept = judge(state, "标题", "第一段说的是一件事情的经过。\n第三段是记者的采访和评论。\n" + notice, notice)
    assert two_kept.event == "edited"


def test_a_recheck_reads_every_page_of_an_article_and_a_later_page_that_fails_is_no_edit(
    tmp_path, redis_server, redis_client, sina_articles
):
    """Two articles over two pages each: one's second page edited, the other's second page
    failing at the recheck. The edit is found with the whole article in its new version; the
    failure is a failed recheck, no edit, no version."""
    from tests.hostile_web import HostileWeb, Page, article, list_page
    from tests.test_hostile_web import feed_items, run_crawl

    texts = [a for a in sina_articles if len(a["body"]) > 800][5:14]
    web = HostileWeb()

    def two_pages(n: int, first: dict, second: dict, second_at: str = "") -> None:
        second_at = second_at or f"/news/{n}_2.html"
        more = f"<p><a href='{second_at}'>下一页</a></p>"
        web.add(f"/news/{n}.html", article(first["title"], first["body"], after=more))
        web.add(f"/news/{n}_2.html", article(first["title"], second["body"]))

    try:
        two_pages(1, texts[0], texts[1])
        two_pages(2, texts[2], texts[3])
        # three pages, past ARTICLE_MAX_PAGES=2: the crawl joins two, and so does a recheck
        two_pages(3, texts[4], texts[5])
        web.add(
            "/news/3_2.html", article(texts[4]["title"], texts[5]["body"], after="<a href='/news/3_3.html'>下一页</a>")
        )
        web.add("/news/3_3.html", article(texts[4]["title"], texts[6]["body"]))
        # a next page on another host: not the site's, neither the crawl nor a recheck reads it
        two_pages(4, texts[7], texts[8], second_at=web.url.replace("127.0.0.1", "localhost") + "/news/4_2.html")
        start = web.add("/list.html", list_page([f"/news/{n}.html" for n in range(1, 5)]))
        run = {"RECHECK_AFTER": "0s,1d", "DEDUP_NAMESPACE": "pages", "ARTICLE_MAX_PAGES": "2"}
        code, log = run_crawl(tmp_path, redis_server.url, "day1", [start], allow=r"/news/\d+\.html$", **run)
        assert code == 0, log[-3000:]
        kept = {i["url"]: i for i in feed_items(tmp_path / "day1")}
        assert len(kept) == 4 and all(
            texts[1]["body"].splitlines()[-1] in kept[u]["body"] for u in [f"{web.url}/news/1.html"]
        )
        edited_second = texts[1]["body"] + "\n（更正：本文第二页的数字有误，已改正。）"
        web.add("/news/1_2.html", article(texts[0]["title"], edited_second))
        web.pages["/news/2_2.html"] = Page(b"busy", status=503)
        web.add("/news/3_3.html", article(texts[4]["title"], texts[6]["body"] + "\n（更正：第三页已改正。）"))
        code, log = run_crawl(
            tmp_path, redis_server.url, "recheck", [start], allow=r"/news/\d+\.html$", RECHECK=True, **run
        )
    finally:
        web.stop()
    assert "'rechecks/edited" in log and "'rechecks/failed" in log, log[-3000:]
    assert "'rechecks/unchanged/127.0.0.1': 2" in log, log[-3000:]  # the third page and the other host's: not read
    (version2,) = feed_items(tmp_path / "recheck")
    assert version2["url"] == f"{web.url}/news/1.html" and version2["version"] == 2
    first_page_line = texts[0]["body"].splitlines()[0].strip()
    assert first_page_line[:20] in version2["body"] and "已改正" in version2["body"]  # both pages, joined
    assert len(version2["body"]) > len(kept[f"{web.url}/news/1.html"]["body"])
    changes = [json.loads(c) for c in redis_client.lrange("news:changes", 0, -1)]
    assert [(c["url"], c["event"]) for c in changes] == [(f"{web.url}/news/1.html", "edited")]


def test_a_changed_recheck_after_replans_the_tracked_articles_once(redis_client):
    from news_crawler.frontier.revisits.rechecks import RecheckSchedule

    hourly = RecheckSchedule(redis_client, "p:rechecks", [3600.0, 7200.0], claim_seconds=30.0)
    assert hourly.follow_plan() is None  # the first plan: nothing to move
    hourly.track("http://a.cn/1.html", "标题", "正文的第一句话写在这里。")
    hourly.track("http://a.cn/2.html", "标题", "正文的第二篇文章写在这里。")
    assert hourly.claim() == [] and hourly.follow_plan() is None  # unchanged: nothing moves
    now = RecheckSchedule(redis_client, "p:rechecks", [0.0, 7200.0], claim_seconds=30.0)
    assert now.follow_plan() == 2  # RECHECK_AFTER=0s,2h now: both due at once
    assert sorted(url for url, _, _ in now.claim()) == ["http://a.cn/1.html", "http://a.cn/2.html"]
    assert RecheckSchedule(redis_client, "p:rechecks", [0.0, 7200.0], 30.0).follow_plan() is None  # once
    none_left = RecheckSchedule(redis_client, "p:rechecks", [], 30.0)  # step 0 is past a plan of no entry
    assert none_left.follow_plan() == 2 and redis_client.hlen("p:rechecks") == redis_client.zcard("p:rechecks:due") == 0


def test_the_change_log_keeps_exactly_its_newest_changes_max(redis_client, monkeypatch):
    from datetime import UTC, datetime

    from news_crawler.outcomes import changes

    monkeypatch.setattr(changes, "CHANGES_MAX", 3)
    now = datetime.now(UTC).replace(microsecond=123456)
    log = changes.ChangeLog(redis_client, "t:few", clock=lambda: now)
    for n in range(5):
        entry = log.record(f"http://a.test/{n}", "a", "edited", 2, ["body"])
    assert entry["at"] == now.replace(microsecond=0).isoformat()  # to the second
    assert [e["url"] for e in log.read()] == [f"http://a.test/{n}" for n in (4, 3, 2)]
    assert [e["url"] for e in log.read(limit=2)] == ["http://a.test/4", "http://a.test/3"]
    assert len(log.on(log.today(), log.zone)) == 3 and log.counts() == {"edited": 5}  # counts are all time's
