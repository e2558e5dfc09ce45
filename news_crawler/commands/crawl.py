"""``scrapy crawl`` that exits 1 when the spider stopped because Redis stayed away past
``REDIS_OUTAGE_LIMIT`` (finish reason ``redis_unavailable``), as ``news-crawler crawl`` does:
Scrapy's own command exits 0 for every finish reason, and a cron job would not notice."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from scrapy.commands.crawl import Command as ScrapyCrawl

STOPPED = "redis_unavailable"


class Command(ScrapyCrawl):
    def _create_crawler(self, *args: Any, **kwargs: Any) -> Any:
        self.crawler = super()._create_crawler(*args, **kwargs)
        return self.crawler

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        super().run(args, opts)
        crawler = getattr(self, "crawler", None)
        reason = crawler.stats.get_value("finish_reason") if crawler is not None and crawler.stats else None
        if reason == STOPPED and not self.exitcode:
            print(f"{crawler.spidercls.name}: stopped, Redis unavailable (finish reason {reason})", file=sys.stderr)
            self.exitcode = 1
