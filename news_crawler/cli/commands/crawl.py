"""``scrapy crawl`` that exits 1 when the spider stopped because Redis stayed away past
``REDIS_OUTAGE_LIMIT`` (finish reason ``redis_unavailable``), or when pages met an error
(``outcomes/error``: a kept article's feed line could not be written, a callback raised), as
``news-crawler crawl`` does:
Scrapy's own command exits 0 for every finish reason, and a cron job would not notice.
An unknown spider, bad arguments of a news spider (``-a start_urls=...``), a bad sites file
(exit 2) or an unreachable Redis (exit 3) are one line before anything starts, not a
traceback."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from scrapy.commands.crawl import Command as ScrapyCrawl
from scrapy.spiderloader import get_spider_loader

from news_crawler.crawl.counts import Counts
from news_crawler.crawl.summary import crawl_problem, summarize
from news_crawler.errors import UserError

STOPPED = "redis_unavailable"


class Command(ScrapyCrawl):
    crawler: Any = None  # the crawl's, kept to read its finish reason and stats

    def _create_crawler(self, *args: Any, **kwargs: Any) -> Any:
        self.crawler = super()._create_crawler(*args, **kwargs)
        return self.crawler

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        # Before Scrapy starts (its banner, its reactor): a mistake is the only line printed.
        super().process_options(args, opts)
        if len(args) == 1:
            try:
                given = [pair.partition("=")[0] for pair in opts.set or []]
                settings = self.settings
                assert settings is not None  # Scrapy sets them before it processes options
                _check(get_spider_loader(settings), args[0], opts.spargs, settings, given)
            except UserError as e:
                print(f"scrapy crawl: {e}", file=sys.stderr)
                sys.exit(e.exit_code)

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        super().run(args, opts)
        crawler = self.crawler
        if crawler is None:
            return
        reason = crawler.stats.get_value("finish_reason") if crawler.spider else None
        if reason == STOPPED and not self.exitcode:
            print(f"{crawler.spidercls.name}: stopped, Redis unavailable (finish reason {reason})", file=sys.stderr)
            self.exitcode = 1
        seeded = crawler.settings.getbool("SEED_FROM_REDIS")
        problem = crawl_problem(reason, summarize(Counts.of(crawler.stats)), seeded) if reason else None
        if problem and not self.exitcode:  # as news-crawler crawl: a cron job must notice
            print(f"scrapy crawl: {crawler.spidercls.name}: {problem}", file=sys.stderr)
            self.exitcode = 1


def _check(loader: Any, name: str, spargs: dict[str, Any], settings: Any, given: list[str]) -> None:
    """The spider, its arguments and Redis checked before anything starts, so that a mistake
    is one line (``UserError``), not a traceback."""
    from news_crawler import connection
    from news_crawler.cli.runner import unknown_spiders
    from news_crawler.dedup.from_settings import check_index
    from news_crawler.ops.preflight import check_settings
    from news_crawler.pipelines.postgres import check_database
    from news_crawler.pipelines.scrapy_feeds import check_feeds
    from news_crawler.spiders.news import check_arguments

    check_settings(settings, given=given)
    unknown_spiders([name], settings)
    try:
        check_arguments(loader.load(name), spargs, settings)
    except ValueError as e:
        raise UserError(f"{name}: {e}") from None
    connection.check_reachable(settings)
    check_index(settings)
    check_database(settings)  # the sinks, as Redis: one line before anything starts
    check_feeds(settings)
