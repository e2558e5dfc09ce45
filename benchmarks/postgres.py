"""PostgreSQL sink: articles/s written by ``PostgresPipeline`` into a real local server.

Real article texts (the sina2018 corpus of the repository), each under its own URL, go
through the pipeline as a crawl sends them: ``--concurrency`` items in the pipeline at once
(Scrapy's CONCURRENT_ITEMS is 100), each step ending when its row is committed. Once with
batches of ``DATABASE_BATCH`` (default 100) and once with batches of one, so the figure says
what batching is worth. The server is the pgserver wheel's PostgreSQL on a free port
(``tests/postgres_server.py``), with fsync on.

    ./run python benchmarks/postgres.py [--articles 20000]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402

from news_crawler.items import ArticleItem  # noqa: E402
from news_crawler.pipelines.postgres import PostgresPipeline  # noqa: E402
from news_mirror.data import SHIPPED_DATA  # noqa: E402
from tests.crawl_helpers import project_crawler  # noqa: E402
from tests.postgres_server import TestPostgres  # noqa: E402


def items(count: int) -> list[ArticleItem]:
    with gzip.open(SHIPPED_DATA.sina_corpus, "rt", encoding="utf-8") as f:
        texts = [json.loads(line) for line in f]
    return [
        ArticleItem(
            url=f"https://news.example.cn/a/{n}.html",
            site="example",
            title=texts[n % len(texts)]["title"],
            author="王芳",
            published_at="2026-11-27T08:00:00+08:00",
            body=texts[n % len(texts)]["body"],
            simhash=f"{n:016x}",
            crawled_at="2026-11-27T10:00:00.000+00:00",
            editor="",
            source="",
            contributors="",
            images=[],
            description="",
            tags=["要闻"],
            updated_at="",
            version=1,
        )
        for n in range(count)
    ]


async def feed(pipeline: PostgresPipeline, batch: list[ArticleItem], concurrency: int) -> None:
    gate = asyncio.Semaphore(concurrency)

    async def one(item: ArticleItem) -> None:
        async with gate:
            await pipeline.process_item(item)

    await asyncio.gather(*(one(i) for i in batch))


def run(server: TestPostgres, articles: list[ArticleItem], batch: int, concurrency: int) -> float:
    with psycopg.connect(server.url, autocommit=True) as conn:
        conn.execute("DROP TABLE IF EXISTS articles, article_versions, news_crawler_schema")
    crawler = project_crawler(settings_dict={"DATABASE_URL": server.url, "DATABASE_BATCH": batch})
    pipeline = PostgresPipeline.from_crawler(crawler)
    started = time.perf_counter()
    asyncio.run(feed(pipeline, articles, concurrency))
    seconds = time.perf_counter() - started
    pipeline.close_spider()
    with psycopg.connect(server.url) as conn:
        (rows,) = conn.execute("SELECT count(*) FROM articles").fetchone() or (0,)
    assert rows == len(articles), rows
    return len(articles) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--articles", type=int, default=20_000)
    parser.add_argument("--concurrency", type=int, default=100)
    args = parser.parse_args()
    articles = items(args.articles)
    server = TestPostgres(fsync=True)
    try:
        batched = run(server, articles, 100, args.concurrency)
        single = run(server, articles[: args.articles // 10], 1, args.concurrency)
    finally:
        server.close()
    average = sum(len(a["body"]) for a in articles) // len(articles)
    print(f"articles               {args.articles} (bodies of {average} characters on average)")
    print(f"DATABASE_BATCH=100     {batched:,.0f} articles/s")
    print(f"DATABASE_BATCH=1       {single:,.0f} articles/s ({args.articles // 10} articles)")


if __name__ == "__main__":
    main()
