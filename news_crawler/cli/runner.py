"""Run several spiders at once in one process and return their per-site summary."""

from __future__ import annotations

import difflib
import logging
import sys
import time
from typing import Any, cast

from scrapy.crawler import Crawler, CrawlerProcess

from news_crawler import connection
from news_crawler.config import build_settings
from news_crawler.crawl.counts import Counts
from news_crawler.crawl.summary import crawl_problem, summarize
from news_crawler.dedup.from_settings import check_index
from news_crawler.errors import UserError
from news_crawler.pipelines.postgres import check_database
from news_crawler.pipelines.scrapy_feeds import check_feeds
from news_crawler.printable import printable
from news_crawler.spiders.news import check_arguments
from news_crawler.spiders.sites import INCLUDE_PORTALS, SiteSpiderLoader, load_sites


def all_spider_names(settings: Any = None) -> list[str]:
    """Every configured site (the built-in portals and ``SITES_FILE``'s), in declared order."""
    return SiteSpiderLoader(settings if settings is not None else build_settings()).site_names()


def run_spiders(
    names: list[str],
    overrides: dict[str, Any] | None = None,
    spider_args: dict[str, Any] | None = None,
    stop_at: float | None = None,
    progress: bool = False,
    announce: str = "",
) -> dict[str, dict[str, Any]]:
    """Crawl ``names`` concurrently until each finishes, or is stopped (a signal; ``stop_at``,
    a ``time.monotonic()`` time); return ``{spider: {reason, sites, pages, problem, sinks}}``
    (``sinks``: articles each sink took). A watch (``WATCH``) that was stopped did its work.
    With ``progress``, a line on stderr says what the crawl has done so far; ``announce`` is
    printed once every check passed, as the crawl starts."""
    logging.getLogger("jieba").setLevel(logging.WARNING)
    settings = build_settings(overrides)
    check_spiders(names, spider_args or {}, settings)
    connection.check_reachable(settings)
    check_index(settings)
    check_database(settings)  # the sinks, as Redis: one line before anything starts
    check_feeds(settings)
    if announce:
        print(announce, flush=True)
    process = CrawlerProcess(settings)
    crawlers = []
    for name in names:
        crawler = process.create_crawler(name)
        crawlers.append(crawler)
        process.crawl(crawler, **(spider_args or {}))
    if stop_at is not None:
        stop_on_time(crawlers, stop_at)
    line = ProgressLine(crawlers) if progress else None
    errors = None
    if progress:  # the log goes to its file: its errors are said here too
        errors = logging.StreamHandler(sys.stderr)
        errors.setLevel(logging.ERROR)
        errors.setFormatter(logging.Formatter("\n%(name)s: %(levelname)s: %(message)s"))
        logging.getLogger().addHandler(errors)
    try:
        process.start()
    finally:
        if errors is not None:
            logging.getLogger().removeHandler(errors)
        if line is not None:
            line.end()
    out = {}
    watching = settings.getbool("WATCH")
    fetches_no_start_page = settings.getbool("SEED_FROM_REDIS") or watching or settings.getbool("RECHECK")
    for crawler in crawlers:
        stats = crawler.stats.get_stats()
        sites = summarize(Counts.of(crawler.stats))
        reason = stats.get("finish_reason")
        out[crawler.spidercls.name] = {
            "reason": reason,
            "sites": sites,
            "pages": stats.get("response_received_count", 0),
            # A watcher or a worker may rightly have fetched no start page (another one did), and
            # news-crawler recheck fetches none.
            "problem": crawl_problem(
                "finished" if watching and reason == "shutdown" else reason, sites, fetches_no_start_page
            ),
            "sinks": {k.removeprefix("sinks/"): v for k, v in stats.items() if k.startswith("sinks/")},
        }
    return out


def stop_on_time(crawlers: list[Crawler], stop_at: float) -> None:
    """From ``stop_at`` (a ``time.monotonic()`` time), stop each crawler as SIGTERM would, as
    soon as its engine runs. Scrapy's stop does nothing to an engine that is still starting,
    which then runs on for good (a busy machine's start-up can outlast a short ``--for``)."""
    from scrapy.utils.defer import deferred_from_coro
    from twisted.internet import reactor, task

    stopped: set[int] = set()

    def stop_the_running() -> None:
        for crawler in crawlers:
            if id(crawler) not in stopped and crawler.engine is not None and crawler.engine.running:
                stopped.add(id(crawler))
                deferred_from_coro(crawler.stop_async())
        if len(stopped) == len(crawlers):
            ticks.stop()

    # The reactor stops once every crawl has ended, whether or not this loop is done.
    ticks = task.LoopingCall(stop_the_running)
    cast(Any, reactor).callLater(max(0.0, stop_at - time.monotonic()), ticks.start, 0.1)


def merge_sites(results: dict[str, dict[str, Any]]) -> dict[str, dict[str, int]]:
    """The per-site rows of several spiders' results, added up."""
    sites: dict[str, dict[str, int]] = {}
    for result in results.values():
        for site, row in result["sites"].items():
            into = sites.setdefault(site, dict.fromkeys(row, 0))
            for k, v in row.items():
                into[k] += v
    return sites


def check_spiders(names: list[str], spider_args: dict[str, Any], settings: Any) -> None:
    """``UserError`` for an unknown spider, or for arguments or settings a spider refuses,
    before anything starts."""
    unknown_spiders(names, settings)
    loader = SiteSpiderLoader(settings)
    for name in names:
        try:
            check_arguments(loader.load(name), spider_args, settings)
        except ValueError as e:
            raise UserError(f"{name}: {e}") from None


def unknown_spiders(names: list[str], settings: Any) -> None:
    """``UserError`` naming the spiders of ``names`` that no site or code declares, with the
    closest known names."""
    known = SiteSpiderLoader(settings).list()
    unknown = [n for n in names if n not in known]
    if unknown:
        close = sorted({c for n in unknown for c in difflib.get_close_matches(n, known, n=3, cutoff=0.5)})
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        portals = [n for n in unknown if n in load_sites()]
        if portals:
            hint += f"; {', '.join(portals)}: left out with SITES_FILE ({INCLUDE_PORTALS} = true adds the portals)"
        raise UserError(
            f"unknown spider {printable(', '.join(unknown), 200)}{hint} (known: {', '.join(known)}; "
            "declare a site in a sites file: SITES_FILE)"
        )


class ProgressLine:
    """What the crawl has done so far, on stderr: rewritten in place every second on a
    terminal, a line a minute elsewhere (a pipe, a log)."""

    def __init__(self, crawlers: list[Crawler]) -> None:
        from twisted.internet import task

        self.crawlers = crawlers
        self.started = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.shown = ""
        self.loop = task.LoopingCall(self.show)
        self.loop.start(1.0 if self.tty else 60.0, now=False)

    def text(self) -> str:
        totals: dict[str, int] = {}
        pages = 0
        for crawler in self.crawlers:
            pages += int(crawler.stats.get_value("response_received_count", 0) or 0)
            for row in summarize(Counts.of(crawler.stats)).values():
                for column, n in row.items():
                    totals[column] = totals.get(column, 0) + n
        done = ", ".join(
            f"{totals.get(c, 0)} {c}" for c in ("kept", "dropped", "invalid", "failed", "errors") if totals.get(c)
        )
        seconds = int(time.monotonic() - self.started)
        return f"{seconds // 60}:{seconds % 60:02d}  {pages} pages fetched" + (f"; {done}" if done else "")

    def show(self) -> None:
        text = self.text()
        if self.tty:
            sys.stderr.write("\r" + text + " " * max(0, len(self.shown) - len(text)))
            sys.stderr.flush()
        else:
            print(text, file=sys.stderr, flush=True)
        self.shown = text

    def end(self) -> None:
        if self.loop.running:
            self.loop.stop()
        if self.tty:  # the last word, however short the crawl
            sys.stderr.write("\r" + self.text() + " " * max(0, len(self.shown) - len(self.text())) + "\n")
            sys.stderr.flush()
