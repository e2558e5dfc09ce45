"""An operator's first mistakes, typed as a user types them (subprocesses): each gives one
line on stderr naming the problem and the fix, a non-zero exit, and no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from news_crawler.dedup.index.generations import FORMAT
from tests.crawl_helpers import ROOT
from tests.hostile_web import HostileWeb, article, list_page
from tests.redis_server import TestServer, free_port

pytestmark = pytest.mark.xdist_group("operator")
DEDUP = [sys.executable, "-m", "news_crawler.cli.dedup"]
CRAWLER = [sys.executable, "-m", "news_crawler.cli.crawler"]
SCRAPY = [sys.executable, "-m", "scrapy"]


def run(cmd: list[str], cwd: Path = ROOT, stdin: str = "", **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("SCRAPY_SETTINGS_MODULE", "REDIS_URL")}
    return subprocess.run(cmd, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=120, env={**base, **env})


def one_line(result: subprocess.CompletedProcess) -> str:
    """The only line of stderr (warnings aside); no traceback."""
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    lines = [line for line in result.stderr.splitlines() if line.strip() and not line.startswith("warning:")]
    assert len(lines) == 1, result.stderr[-3000:]
    return lines[0]


@pytest.mark.parametrize(
    "cmd",
    [
        [*DEDUP, "check", "-"],
        [*DEDUP, "stats"],
        [*CRAWLER, "status"],
        [*SCRAPY, "crawl", "sina"],
        [*CRAWLER, "crawl", "sina"],
        [*CRAWLER, "outcomes"],
        [*CRAWLER, "seed"],
    ],
    ids=["check", "stats", "status", "scrapy-crawl", "crawl", "outcomes", "seed"],
)
def test_an_unreachable_redis_is_one_line_with_the_url_and_the_password_masked(cmd):
    url = f"redis://:hunter2@127.0.0.1:{free_port()}/0"
    result = run(cmd, stdin='{"id": "a", "body": "x"}\n', REDIS_URL=url)
    assert result.returncode == 3
    line = one_line(result)
    assert f"redis://:***@127.0.0.1:{url.rsplit(':', 1)[1]}" in line and "unreachable" in line and "REDIS_URL" in line
    assert "hunter2" not in result.stderr + result.stdout


def test_a_wrong_password_is_one_line(tmp_path):
    server = TestServer(tmp_path / "auth", password="right-one")
    try:
        for cmd in ([*DEDUP, "stats"], [*SCRAPY, "crawl", "sina"]):
            result = run(cmd, REDIS_URL=f"redis://:wrong-one@127.0.0.1:{server.port}/0")
            assert result.returncode == 3 and "refused the password" in one_line(result), cmd
            assert "wrong-one" not in result.stderr
    finally:
        server.stop()


def test_an_unknown_spider_names_the_closest(redis_server):
    for cmd in ([*SCRAPY, "crawl", "sinaa"], [*CRAWLER, "crawl", "sinaa"]):
        result = run(cmd, REDIS_URL=redis_server.url)
        assert result.returncode == 2 and "unknown spider sinaa; did you mean sina?" in one_line(result)


def test_an_index_of_another_format_stops_a_crawl_before_it_starts(redis_server, redis_client):
    redis_client.set("oldfmt:held", 1)  # an index written before formats were recorded
    for cmd in ([*SCRAPY, "crawl", "sina"], [*CRAWLER, "crawl", "sina"]):
        result = run(cmd, REDIS_URL=redis_server.url, DEDUP_NAMESPACE="oldfmt")
        assert result.returncode == 2, cmd
        assert one_line(result).endswith(
            "the index in namespace 'oldfmt' holds index keys with no format version; "
            f"this version reads format {FORMAT.decode()} only: use a new DEDUP_NAMESPACE, or remove the "
            "old index with `news-dedup forget --all --namespace oldfmt`"
        ), cmd


def test_an_archive_of_another_format_stops_a_crawl_before_it_starts(redis_server, redis_client):
    line = json.dumps({"id": "https://a.cn/1.html", "simhash": "0123456789abcdef"})
    made = run([*DEDUP, "check", "-", "--namespace", "oldarch"], stdin=line, REDIS_URL=redis_server.url)
    assert made.returncode == 0, made.stderr
    assert run([*DEDUP, "archive", "--all", "--namespace", "oldarch"], REDIS_URL=redis_server.url).returncode == 0
    redis_client.set("oldarch:g0:A:meta", b"not the archive's metadata")
    for cmd in ([*SCRAPY, "crawl", "sina"], [*CRAWLER, "crawl", "sina"], [*DEDUP, "stats", "--namespace", "oldarch"]):
        result = run(cmd, REDIS_URL=redis_server.url, DEDUP_NAMESPACE="oldarch")
        assert result.returncode == 2, cmd
        assert one_line(result).endswith(
            "the archived generation 'oldarch:g0:' holds an archive of format None; this version reads "
            "'archive 1' only: use a new DEDUP_NAMESPACE, or remove the old index with "
            "`news-dedup forget --all --namespace oldarch`"
        ), cmd


@pytest.mark.parametrize(
    "setting,allowed",
    [
        ("DEDUP_MAX_DISTANCE=9", "must be from 0 to 3"),
        ("LIST_PAGE_LIMIT=many", "expected a whole number"),
        ("DEDUP_SEGMENTER=fast", "must be one of auto"),
        ("TIMEZONE=Beijing", "not a time zone; use an IANA name such as Asia/Shanghai"),
        ("REVISIT_MAX=60", "must be at least REVISIT_MIN (300.0)"),
    ],
)
def test_a_setting_with_a_bad_value_names_it_and_what_is_allowed(redis_server, setting, allowed):
    name, value = setting.split("=")
    for cmd in ([*SCRAPY, "crawl", "sina", "-s", setting], [*CRAWLER, "crawl", "sina", "-s", setting]):
        result = run(cmd, REDIS_URL=redis_server.url)
        assert result.returncode == 2
        assert f"setting {name}={value!r}: {allowed}" in one_line(result), cmd
    from_env = run([*DEDUP, "stats"], REDIS_URL=redis_server.url, **{name: value})  # the environment, too
    assert from_env.returncode == 2 and f"setting {name}=" in one_line(from_env)


def test_an_unknown_setting_name_is_a_warning_with_the_closest(redis_server):
    result = run([*CRAWLER, "status", "-s", "DEDUP_MAX_DISTNCE=2"], REDIS_URL=redis_server.url, LIST_PAGE_LIMT="1")
    assert result.returncode == 0
    assert (
        "warning: DEDUP_MAX_DISTNCE is not a setting of Scrapy or of this project, it has no effect; did you mean "
        "DEDUP_MAX_DISTANCE?"
    ) in result.stderr
    assert (
        "warning: LIST_PAGE_LIMT is not a setting" in result.stderr and "did you mean LIST_PAGE_LIMIT?" in result.stderr
    )
    dedup = run([*DEDUP, "stats"], REDIS_URL=redis_server.url, DEDUP_MAX_DISTNCE="2")  # no -s there: the environment
    assert dedup.returncode == 0 and "did you mean DEDUP_MAX_DISTANCE?" in dedup.stderr


def test_a_crawl_that_fetches_none_of_its_start_pages_fails_in_one_line(tmp_path, redis_server):
    closed = f"http://127.0.0.1:{free_port()}/news/"  # nothing listens: as with no network
    args = ["-a", f"start_urls={closed}", "-a", r"allow=/news/\d+", "-s", "RETRY_TIMES=0", "-s", f"FEED_DIR={tmp_path}"]
    for cmd in ([*SCRAPY, "crawl", "news", *args], [*CRAWLER, "crawl", "news", *args]):
        result = run(cmd, REDIS_URL=redis_server.url, DEDUP_NAMESPACE="unreachable")
        assert result.returncode == 1, result.stderr[-2000:]
        assert "Traceback" not in result.stderr + result.stdout  # robots.txt and the page: one line each
        assert "news: could fetch none of its start pages" in result.stderr
        if cmd[: len(SCRAPY)] == SCRAPY:  # scrapy crawl speaks Scrapy's log
            assert "robots.txt not fetched" in result.stderr
        else:  # news-crawler: one line naming the log file that holds it
            (line,) = result.stderr.splitlines()
            log = Path(line.rsplit("see ", 1)[1])
            assert "robots.txt not fetched" in log.read_text() and "robots.txt" not in result.stdout


def test_check_of_a_json_array_exits_non_zero_with_a_hint(tmp_path, redis_server):
    array = tmp_path / "corpus.json"
    array.write_text(json.dumps([{"id": str(n), "body": "新闻" * 50} for n in range(3)], indent=1, ensure_ascii=False))
    result = run([*DEDUP, "check", "--redis-url", redis_server.url, "--namespace", "array", str(array)])
    assert result.returncode == 4
    assert len(result.stdout.splitlines()) == len(array.read_text().splitlines())  # still a line per input line
    assert "looks like one JSON array" in result.stderr and "jq -c '.[]'" in result.stderr
    lines = tmp_path / "garbage.jsonl"
    lines.write_text("not json\n{}\n")
    garbage = run([*DEDUP, "check", "--redis-url", redis_server.url, "--namespace", "array", str(lines)])
    assert garbage.returncode == 4 and '"id" and "body"' in garbage.stderr


def test_run_keeps_the_caller_s_directory(tmp_path, redis_server):
    (tmp_path / "a.jsonl").write_text(
        json.dumps({"id": "a", "body": "北京时间今天上午，一则新闻报道了这件事情的经过。" * 4}) + "\n"
    )
    result = subprocess.run(
        [str(ROOT / "run"), "news-dedup", "check", "--redis-url", redis_server.url, "--namespace", "cwd", "a.jsonl"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout)["id"] == "a"


def test_outcomes_lists_urls_with_their_outcome_and_reason(tmp_path, redis_server, sina_articles):
    web = HostileWeb()
    try:
        good = web.add("/news/1.html", article(sina_articles[3]["title"], sina_articles[3]["body"]))
        binary = web.add("/news/2.html", os.urandom(5000))
        start = web.add("/list.html", list_page([good, binary]))
        env = {"REDIS_URL": redis_server.url, "OUTCOMES_KEY": "oc:%(spider)s:outcomes", "DEDUP_NAMESPACE": "oc"}
        crawl = run(
            [
                *SCRAPY,
                "crawl",
                "news",
                "-a",
                f"start_urls={start}",
                "-a",
                r"allow=/news/\d+\.html",
                "-s",
                f"FEED_DIR={tmp_path}",
            ],
            **env,
        )
        assert crawl.returncode == 0, crawl.stderr[-2000:]
        listed = run([*CRAWLER, "outcomes", "--site", "news", "--json"], **env)
        rows = {r["url"]: r for r in map(json.loads, listed.stdout.splitlines())}
        assert rows[good]["outcome"] == "kept" and rows[binary]["outcome"] == "invalid"
        assert "not text" in rows[binary]["reason"]
        invalid = run([*CRAWLER, "outcomes", "--outcome", "invalid"], **env)
        assert binary in invalid.stdout and good not in invalid.stdout and "1 of 1 URLs" in invalid.stdout
    finally:
        web.stop()


def test_status_says_what_it_shows_and_what_to_run_when_empty(tmp_path):
    embedded = tmp_path / "never-started"
    result = run([*CRAWLER, "status"], EMBEDDED_REDIS_DIR=str(embedded))
    assert result.returncode == 0 and "nothing crawled yet" in result.stdout
    assert not embedded.exists()  # no server started just to say so
    server = TestServer(tmp_path / "own")  # a Redis holding only another crawl's keys
    try:
        empty = run([*CRAWLER, "status"], REDIS_URL=server.url, DEDUP_NAMESPACE="empty-ns")
        assert "index namespace 'empty-ns'" in empty.stdout and "spiders asked: sina, 163" in empty.stdout
        assert "Run a crawl first" in empty.stdout
        server.client().sadd("demo:sina:dupefilter", "x")
        other = run([*CRAWLER, "status"], REDIS_URL=server.url)
        assert "Other crawls used other keys: demo:sina:dupefilter" in other.stdout
    finally:
        server.stop()


def test_every_option_has_help_and_sentences_only_where_it_means_something():
    for command in ("stats", "drops", "forget", "expire"):
        assert "--sentences" not in run([*DEDUP, command, "--help"]).stdout, command
    for command in ("check", "explain"):
        assert "--sentences" in run([*DEDUP, command, "--help"]).stdout
    from news_crawler.cli.crawler import build_parser as crawler_parser
    from news_crawler.cli.dedup import build_parser as dedup_parser

    for parser in (crawler_parser(), dedup_parser()):
        for sub in parser._subparsers._group_actions[0].choices.values():  # noqa: SLF001 - argparse has no API for it
            for action in sub._actions:  # noqa: SLF001
                assert action.help, f"{sub.prog} {action.option_strings or action.dest} has no help"


def test_a_folder_that_cannot_be_made_and_a_bad_log_level_are_one_line(tmp_path, redis_server):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    daily = run([*CRAWLER, "daily"], REDIS_URL=redis_server.url, DAILY_DIR=str(blocker / "daily"))
    assert daily.returncode == 2 and str(blocker) in one_line(daily)
    summary = run(
        [
            *CRAWLER,
            "crawl",
            "news",
            "-a",
            "start_urls=http://127.0.0.1:9/",
            "-a",
            "allow=x",
            "--summary",
            str(blocker / "s.json"),
        ],
        REDIS_URL=redis_server.url,
    )
    assert summary.returncode == 2 and "s.json" not in summary.stdout and str(blocker) in one_line(summary)
    loud = run([*SCRAPY, "crawl", "sina", "-s", "LOG_LEVEL=LOUD"], REDIS_URL=redis_server.url)
    assert loud.returncode == 2 and "setting LOG_LEVEL='LOUD': must be one of critical" in one_line(loud)


def test_a_report_of_one_day_and_a_days_value_out_of_range(tmp_path, redis_server):
    one = run([*CRAWLER, "report", "--days", "1", "--out", str(tmp_path / "r.html")], REDIS_URL=redis_server.url)
    assert one.returncode == 0, one.stderr
    assert (tmp_path / "r.html").is_file()
    bad = run([*CRAWLER, "report", "--days", "500"], REDIS_URL=redis_server.url)
    assert bad.returncode == 2 and "expected a whole number of days from 1 to 90, got '500'" in bad.stderr
    assert len(bad.stderr) < 400  # the range, not a list of every allowed value


@pytest.mark.parametrize(
    ("setting", "url"),
    [
        ("DATABASE_URL", "mysql://news:s3cr3tpw@127.0.0.1/news"),  # another database's URL
        ("DATABASE_URL", "news:s3cr3tpw@127.0.0.1/news"),  # no scheme
        ("DATABASE_URL", "postgresql://news:s3cr3tpw@[::1/news"),  # a broken IPv6 host
        ("DATABASE_URL", "host=127.0.0.1 port=1 password=s3cr3tpw"),  # libpq's key=value form
        ("DATABASE_URL", "postgresql://news:s3cr3tpw@127.0.0.1:1/news"),  # well formed, nothing there
        ("REDIS_URL", "redis://news:s3cr3tpw@[::1/0"),
        ("REDIS_URL", "redis://news:s3cr3tpw@127.0.0.1:port/0"),
        ("REDIS_URL", "mysql://news:s3cr3tpw@127.0.0.1/0"),
        ("REDIS_URL", "redis://news:s3cr3tpw@127.0.0.1:1/0"),
    ],
)
def test_a_connection_url_that_cannot_be_used_is_one_line_without_its_password(setting, url):
    result = run([sys.executable, "-m", "news_crawler.cli.crawler", "crawl", "sina", "-s", f"{setting}={url}"])
    assert result.returncode in (2, 3) and "s3cr3tpw" not in result.stdout + result.stderr, result.stderr[
        -2000:
    ]  # 3: unreachable
    assert setting in one_line(result) or "Redis" in one_line(result)


@pytest.mark.parametrize(
    "name,value,says",
    [
        ("DEDUP_TOP_K", 2.5, "expected a whole number"),
        ("DEDUP_TOP_K", "many", "expected a whole number"),
        ("DEDUP_TOPIC_WEIGHT", "heavy", "expected a number"),
        ("DEDUP_SENTENCES", "maybe", "expected true or false"),
        ("FEEDS", "out.jsonl", 'expected a JSON object, {"name": value, ...}'),
        ("FEEDS", "[1, 2]", 'expected a JSON object, {"name": value, ...}'),
        ("DEDUP_USER_DICT", "/nonexistent/words.txt", "no such file"),
        ("RECHECK_AFTER", "soon", "setting RECHECK_AFTER='soon': "),
        ("STOP_TIMEOUT", -1, "must be 0 or more"),
    ],
)
def test_a_setting_of_the_wrong_kind_is_one_line_naming_it(name, value, says):
    from news_crawler.config import build_settings
    from news_crawler.errors import UserError
    from news_crawler.ops.preflight import check_values

    with pytest.raises(UserError) as e:
        check_values(build_settings({name: value}))
    assert str(e.value).startswith(f"setting {name}={value!r}: ") and says in str(e.value)
    assert "\n" not in str(e.value)
    check_values(build_settings({"FEEDS": '{"out.jsonl": {"format": "jsonlines"}}', "DEDUP_TOP_K": 3.0}))  # fine


def test_a_dict_setting_that_is_no_json_object_is_one_line_on_the_command_line(redis_server):
    for value in ("out.jsonl", "[1, 2]"):
        result = run([*CRAWLER, "crawl", "sina", "-s", f"FEEDS={value}"], REDIS_URL=redis_server.url)
        assert result.returncode == 2
        said = f"news-crawler: setting FEEDS={value!r}: "
        assert one_line(result) == said + 'expected a JSON object, {"name": value, ...}'
