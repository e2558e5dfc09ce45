"""``scrapy crawl`` that exits 1 when the spider stopped because Redis stayed away past
``REDIS_OUTAGE_LIMIT`` (finish reason ``redis_unavailable``), or when pages met an error
(``outcomes/error``: a kept article's feed line could not be written, a callback raised), as
``news-crawler crawl`` does:
Scrapy's own command exits 0 for every finish reason, and a cron job would not notice.
Bad arguments of a news spider (``-a start_urls=...``) are a usage error (exit 2, one line)
before anything starts, not a traceback."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from scrapy.commands.crawl import Command as ScrapyCrawl
from scrapy.exceptions import UsageError

from news_crawler.summary import summarize

STOPPED = "redis_unavailable"


class Command(ScrapyCrawl):
    def _create_crawler(self, *args: Any, **kwargs: Any) -> Any:
        self.crawler = super()._create_crawler(*args, **kwargs)
        return self.crawler

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        if len(args) == 1:
            _check_arguments(self.crawler_process.spider_loader, args[0], opts.spargs, self.settings)
        super().run(args, opts)
        crawler = getattr(self, "crawler", None)
        reason = crawler.stats.get_value("finish_reason") if crawler is not None and crawler.spider else None
        if reason == STOPPED and not self.exitcode:
            print(f"{crawler.spidercls.name}: stopped, Redis unavailable (finish reason {reason})", file=sys.stderr)
            self.exitcode = 1
        errors = sum(row["errors"] for row in summarize(crawler.stats.get_stats()).values()) if reason else 0
        if errors and not self.exitcode:  # as news-crawler crawl: a cron job must notice
            print(f"{crawler.spidercls.name}: {errors} pages met an error (a callback or pipeline raised, or a feed "
                  "could not be written); they are fetched again on the next run: see the log", file=sys.stderr)
            self.exitcode = 1


def _check_arguments(loader: Any, name: str, spargs: dict[str, Any], settings: Any) -> None:
    """The spider and its arguments checked before anything starts, so that a mistake is a
    usage error (one line, exit 2), not a traceback."""
    from news_crawler.errors import UserError
    from news_crawler.runner import unknown_spiders
    from news_crawler.spiders.news import check_arguments

    try:
        unknown_spiders([name], settings)
        check_arguments(loader.load(name), spargs, settings)
    except (UserError, ValueError) as e:
        raise UsageError(str(e), print_help=False) from None
