"""Kept articles to PostgreSQL (``DATABASE_URL``): one row per URL, upserted in batches.

The table ``articles`` holds every feed field of an article's latest version, with the first
and the last time it was crawled; when a recheck finds a new version, the one it replaces
moves to ``article_versions`` (one row per URL and version). Both are created when missing,
with the schema's version in ``news_crawler_schema``; tables of another version are refused
in one line. Writes are upserts, so an article written again (a run after a failure, a
crawl killed before its outcome was recorded) is never a second row.

Articles wait at most a few milliseconds to be written together (``DATABASE_BATCH`` at most,
one transaction a batch, through a psycopg pool of ``DATABASE_POOL`` connections); each
article's pipeline step ends when its batch is committed, so an article is kept only once
its row is in the database. A batch that fails (the database stopped, a timeout of
``DATABASE_TIMEOUT`` seconds) fails its articles: outcome ``error``, written by the next run.
A batch whose data the database refuses (a value it cannot store) is written again one row
at a time: the row it refuses is one article with outcome ``error`` and the reason, its
batch-mates are kept. Text reaches here without what PostgreSQL refuses
(``fields.well_formed``: U+0000 removed where the item is made).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, tzinfo
from typing import Any

from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured

from news_crawler import config
from news_crawler.crawl.counts import Counts
from news_crawler.errors import UserError
from news_crawler.pipelines.delivery import Deliveries, SinkError
from news_crawler.printable import masked, printable

logger = logging.getLogger(__name__)

SCHEMA_VERSION = 2  # 2: supersedes
TEXT = ("url", "site", "title", "author", "body", "simhash", "editor", "source", "contributors", "description")
TIMES = ("published_at", "crawled_at", "updated_at")  # timestamptz; NULL where the feed has ""
JSON = ("images", "tags", "supersedes")  # supersedes: the URLs this original replaced (DEDUP_ORIGINAL)
FIELDS = (*TEXT, *TIMES, *JSON, "version")

_COLUMNS = """
    url text NOT NULL,
    site text NOT NULL,
    title text NOT NULL,
    author text NOT NULL,
    body text NOT NULL,
    simhash text NOT NULL,
    editor text NOT NULL,
    source text NOT NULL,
    contributors text NOT NULL,
    description text NOT NULL,
    published_at timestamptz,
    crawled_at timestamptz NOT NULL,
    updated_at timestamptz,
    images jsonb NOT NULL,
    tags jsonb NOT NULL,
    supersedes jsonb NOT NULL,
    version integer NOT NULL"""

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS news_crawler_schema (version integer NOT NULL);
CREATE TABLE IF NOT EXISTS articles ({_COLUMNS},
    first_crawled_at timestamptz NOT NULL,
    last_crawled_at timestamptz NOT NULL,
    PRIMARY KEY (url)
);
CREATE INDEX IF NOT EXISTS articles_site_published ON articles (site, published_at);
CREATE TABLE IF NOT EXISTS article_versions ({_COLUMNS},
    PRIMARY KEY (url, version)
);
"""

_names = ", ".join(FIELDS)
_values = ", ".join(f"%({f})s" for f in FIELDS)
# The version a new one replaces moves to article_versions first (same transaction).
ARCHIVE = f"""
INSERT INTO article_versions ({_names})
SELECT {_names} FROM articles WHERE url = %(url)s AND version < %(version)s
ON CONFLICT (url, version) DO NOTHING
"""
UPSERT = f"""
INSERT INTO articles ({_names}, first_crawled_at, last_crawled_at)
VALUES ({_values}, %(crawled_at)s, %(crawled_at)s)
ON CONFLICT (url) DO UPDATE SET {", ".join(f"{f} = EXCLUDED.{f}" for f in FIELDS if f != "url")},
    last_crawled_at = EXCLUDED.last_crawled_at
WHERE articles.version <= EXCLUDED.version
"""


class PostgresPipeline:
    name = "postgres"

    def __init__(self, crawler: Crawler, pool: Any, batch: int, timeout: float) -> None:
        self.counts = Counts.of(crawler.stats)
        self.deliveries = Deliveries.of(crawler, self.name)
        self.pool = pool
        self.batch = max(1, batch)
        self.timeout = timeout
        self.zone = config.zone(crawler.settings)  # what a date without a time of day is midnight in
        self.waiting: list[tuple[dict[str, Any], asyncio.Future[None]]] = []
        self.flush_soon: asyncio.Handle | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> PostgresPipeline:
        settings = crawler.settings
        url = settings.get("DATABASE_URL")
        if not url:
            raise NotConfigured
        timeout = settings.getfloat("DATABASE_TIMEOUT")
        pool = open_pool(url, settings.getint("DATABASE_POOL"), timeout)
        return cls(crawler, pool, settings.getint("DATABASE_BATCH"), timeout)

    async def process_item(self, item: Any) -> Any:
        if await self.deliveries.has(item, self.name):
            return item
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting.append((row(item, self.zone), done))
        if len(self.waiting) >= self.batch:
            self._flush()
        elif self.flush_soon is None:
            # the articles of one page's worth of pipeline steps go together
            self.flush_soon = asyncio.get_running_loop().call_later(0.02, self._flush)
        await done
        self.deliveries.add(item, self.name)
        return item

    def _flush(self) -> None:
        if self.flush_soon is not None:
            self.flush_soon.cancel()
            self.flush_soon = None
        batch, self.waiting = self.waiting, []
        if batch:
            asyncio.ensure_future(self._write(batch))

    async def _write(self, batch: list[tuple[dict[str, Any], asyncio.Future[None]]]) -> None:
        try:
            await asyncio.to_thread(self._write_rows, [r for r, _ in batch])
        except Exception as e:  # noqa: BLE001 - whatever it is, these articles are not kept and come again
            if len(batch) > 1 and refused_rows(e):
                # The database refused what a row holds, not the connection: one row at a time,
                # so that the row it refuses is the only article not kept.
                for one in batch:
                    await self._write([one])
                return
            self.counts.add("postgres", "failed", n=len(batch))
            why = printable(f"{type(e).__name__}: {e}".splitlines()[0], 200)
            for r, done in batch:
                if not done.done():
                    said = f"PostgreSQL did not take the article ({why}): not kept, written on the next run: {r['url']}"
                    done.set_exception(SinkError(said))
            return
        self.counts.add("postgres", "written", n=len(batch))
        for _, done in batch:
            if not done.done():
                done.set_result(None)

    def _write_rows(self, rows: list[dict[str, Any]]) -> None:
        with self.pool.connection(timeout=self.timeout) as conn, conn.cursor() as cur:
            if any(r["version"] > 1 for r in rows):
                cur.executemany(ARCHIVE, [r for r in rows if r["version"] > 1])
            cur.executemany(UPSERT, rows)

    def close_spider(self) -> None:
        self.pool.close()


def refused_rows(error: BaseException) -> bool:
    """The database refused the rows' data (a value it cannot store, a constraint), as
    opposed to being unreachable, stopped or too slow: another row may well go in."""
    import psycopg

    return isinstance(error, psycopg.DatabaseError) and not isinstance(error, psycopg.OperationalError)


def row(item: Any, zone: tzinfo = UTC) -> dict[str, Any]:
    """An item as the tables' columns: times as given ("" is NULL; a date alone, or a time
    without an offset, in ``zone``: never in the database server's), lists as JSON."""
    from psycopg.types.json import Jsonb

    out: dict[str, Any] = {f: str(item.get(f) or "") for f in TEXT}
    out.update({f: instant(item.get(f) or "", zone) for f in TIMES})
    out.update({f: Jsonb(item.get(f) or []) for f in JSON})
    out["version"] = int(item.get("version") or 1)
    return out


def instant(value: str, zone: tzinfo) -> datetime | str | None:
    """An ISO 8601 time of the feed as the instant it names, ``zone`` where it names none;
    None for ""; text that is no ISO time as it is (the database says what it makes of it)."""
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        return value
    return when if when.tzinfo else when.replace(tzinfo=zone)


def open_pool(url: str, size: int, timeout: float) -> Any:
    """A pool on ``url`` whose database has this crawler's schema (created when missing);
    a database that does not answer, or tables of another schema version, is one line."""
    try:
        import psycopg
        from psycopg_pool import ConnectionPool
    except ImportError:
        raise UserError("DATABASE_URL needs psycopg: pip install 'news-crawler[postgres]'") from None
    where = printable(masked(url.split("@")[-1], url), 120)  # never the password
    try:
        # one connection first: its error says why (refused, a login, no such database)
        with psycopg.connect(url, connect_timeout=max(1, round(timeout))) as conn:
            found = ensure_schema(conn)
    except psycopg.Error as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        first = printable(masked(first, url), 200)  # psycopg may quote the URL whole
        said = f"DATABASE_URL: PostgreSQL at {where} could not be used ({first}): start it or fix the URL"
        raise UserError(said) from None
    if found != [SCHEMA_VERSION]:
        raise UserError(
            f"DATABASE_URL: the tables at {where} are schema version {found[0]}, this crawler writes "
            f"version {SCHEMA_VERSION}: drop or rename articles, article_versions and news_crawler_schema"
        )
    pool = ConnectionPool(
        url,
        min_size=1,
        max_size=max(1, size),
        open=True,
        timeout=timeout,
        kwargs={"connect_timeout": max(1, round(timeout))},
        check=ConnectionPool.check_connection,  # a connection cut by a database restart is replaced, not used
        name="news-crawler",
    )
    return pool


def ensure_schema(conn: Any) -> list[int]:
    """Create the tables where missing, in one transaction; the schema versions recorded."""
    # one creator at a time: workers starting together must not race on CREATE
    conn.execute("SELECT pg_advisory_xact_lock(hashtext('news_crawler_schema'))")
    for statement in filter(str.strip, SCHEMA.split(";")):
        conn.execute(statement)
    found = [v for (v,) in conn.execute("SELECT version FROM news_crawler_schema").fetchall()]
    if not found:
        conn.execute("INSERT INTO news_crawler_schema (version) VALUES (%s)", (SCHEMA_VERSION,))
        found = [SCHEMA_VERSION]
    return found


def check_database(settings: Any) -> None:
    """``UserError`` before a crawl starts when ``DATABASE_URL`` names a database that cannot
    be used (creating its tables when missing)."""
    url = settings.get("DATABASE_URL")
    if url:
        open_pool(url, 1, settings.getfloat("DATABASE_TIMEOUT")).close()
