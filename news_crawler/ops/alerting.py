"""Site alerts: each run's sites judged (``ops/health.py``), and what broke sent by webhook and email.

``SiteAlerts`` (a Scrapy extension, on in every crawl) counts what a run gives each site from
the signals the crawl already sends, and when the spider finishes (in ``watch``, every
``ALERTS_WATCH_INTERVAL`` seconds) judges each site against its own history, records the run,
and sends each new alert (at most one a site and kind a day) and each recovery:

- ``ALERTS_WEBHOOK_URL``: an HTTP POST of ``{"site", "kind", "detail", "run_at", "status"}``;
- ``ALERTS_SMTP_URL`` (``smtp://[user:password@]host:port``, STARTTLS when the server offers
  it) to ``ALERTS_EMAIL_TO``, the site and kind in the subject.

A channel that fails (refused, an HTTP error, no answer within ``ALERTS_TIMEOUT``) is one
log line and ``alerts/failed/<channel>``; the crawl's outcomes and exit code do not change.
Recheck runs and cluster workers (each holds only part of a site's run) are not judged.

Spidermon 1.27 was measured for this (docs/alerts.md): 95 ms of imports at every crawl's start
and 70 ms more for its e-mail action, which is built on the deprecated ``scrapy.mail``; no plain
webhook action, and no history shared by the workers of one Redis, no once-a-day limit and no
recovery message, which are most of what is here.
"""

from __future__ import annotations

import json
import logging
import smtplib
import ssl
import urllib.error
import urllib.request
from collections import defaultdict
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any, Protocol

from itemadapter import ItemAdapter
from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.exceptions import NotConfigured
from scrapy.http import Response
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet import task, threads

from news_crawler.connection.outage import REDIS_ERRORS
from news_crawler.crawl.counts import Counts
from news_crawler.crawl.meta import RECHECK, START_PAGE
from news_crawler.crawl.quickstop import released
from news_crawler.crawl.runtime import Runtime
from news_crawler.ops.alert_settings import addresses, check_alert_settings, smtp_server
from news_crawler.ops.health import RUNS_KEPT, HealthLog, SiteRun, Thresholds, judge
from news_crawler.outcomes.failures import classify_failure
from news_crawler.pipelines.validate import unusable
from news_crawler.printable import masked, printable
from news_crawler.signals import fetch_failed

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Alert:
    site: str
    kind: str  # no_articles, extraction, failures
    detail: str  # what was usual and what this run gave, one line
    run_at: str  # ISO 8601, UTC
    status: str  # "alert" or "recovered"

    def payload(self) -> dict[str, str]:
        return {
            "site": self.site,
            "kind": self.kind,
            "detail": self.detail,
            "run_at": self.run_at,
            "status": self.status,
        }

    def subject(self) -> str:
        what = "recovered" if self.status == "recovered" else "alert"
        return printable(f"news-crawler {what}: {self.site} {self.kind}", 200)


class ChannelFailed(Exception):
    """A channel did not take an alert: one line, never a password."""


class Channel(Protocol):
    name: str

    def send(self, alert: Alert) -> None:
        """Deliver ``alert`` or raise ``ChannelFailed``."""


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any) -> None:
        return None  # a webhook that moved is a failure to be fixed, not followed with a GET


class Webhook:
    name = "webhook"

    def __init__(self, url: str, timeout: float) -> None:
        self.url = url
        self.timeout = timeout
        self.opener = urllib.request.build_opener(_NoRedirects)

    def send(self, alert: Alert) -> None:
        body = json.dumps(alert.payload(), ensure_ascii=False).encode("utf-8")
        request = urllib.request.Request(
            self.url, data=body, method="POST", headers={"Content-Type": "application/json; charset=utf-8"}
        )
        try:
            with self.opener.open(request, timeout=self.timeout) as answer:
                answer.read(65_536)
        except urllib.error.HTTPError as e:
            raise ChannelFailed(f"the webhook {masked(self.url, self.url)} answered HTTP {e.code}") from None
        except (OSError, ValueError) as e:
            reason = getattr(e, "reason", e)
            raise ChannelFailed(
                f"the webhook {masked(self.url, self.url)} failed: {masked(str(reason), self.url)}"
            ) from None


class Email:
    name = "email"

    def __init__(self, url: str, to: list[str], sender: str, timeout: float) -> None:
        self.url = url
        self.server = smtp_server(url)
        self.to = to
        self.sender = sender
        self.timeout = timeout

    def message(self, alert: Alert) -> EmailMessage:
        message = EmailMessage()
        message["Subject"] = alert.subject()
        message["From"] = self.sender
        message["To"] = ", ".join(self.to)
        message.set_content(
            f"site: {alert.site}\nkind: {alert.kind}\nstatus: {alert.status}\n"
            f"run at: {alert.run_at}\n\n{alert.detail}\n"
        )
        return message

    def send(self, alert: Alert) -> None:
        s = self.server
        try:
            with smtplib.SMTP(s.host, s.port, timeout=self.timeout) as smtp:
                smtp.ehlo()
                if smtp.has_extn("starttls"):
                    smtp.starttls(context=ssl.create_default_context())
                    smtp.ehlo()
                if s.user:
                    smtp.login(s.user, s.password)
                smtp.send_message(self.message(alert))
        except (OSError, smtplib.SMTPException) as e:
            where = masked(self.url, self.url)
            raise ChannelFailed(f"the SMTP server {where} did not take it: {masked(str(e), self.url)}") from None


def channels_from_settings(settings: Any) -> list[Channel]:
    check_alert_settings(settings)
    timeout = settings.getfloat("ALERTS_TIMEOUT")
    channels: list[Channel] = []
    if settings.get("ALERTS_WEBHOOK_URL"):
        channels.append(Webhook(str(settings.get("ALERTS_WEBHOOK_URL")), timeout))
    if settings.get("ALERTS_SMTP_URL"):
        sender = str(settings.get("ALERTS_EMAIL_FROM") or "news-crawler@localhost")
        channels.append(
            Email(str(settings.get("ALERTS_SMTP_URL")), addresses(settings.get("ALERTS_EMAIL_TO")), sender, timeout)
        )
    return channels


def describe(run: SiteRun) -> str:
    """A run in one line, for a recovery."""
    return (
        f"kept {run.kept}; {run.with_body} of {run.articles} new articles with a body "
        f"(median {run.body_median:g} characters); {run.failed} of {run.fetches} fetches failed"
    )


class SiteAlerts:
    """Counts each site's run, then judges, records and sends (see the module)."""

    def __init__(self, crawler: Crawler, log: HealthLog, channels: list[Channel], limits: Thresholds) -> None:
        self.crawler = crawler
        self.log = log
        self.channels = channels
        self.limits = limits
        self.min_chars = crawler.settings.getint("ARTICLE_MIN_CHARS")
        self.watching = crawler.settings.getbool("WATCH")
        self.every = crawler.settings.getfloat("ALERTS_WATCH_INTERVAL")
        self.runs: defaultdict[str, SiteRun] = defaultdict(SiteRun)
        self.loop: task.LoopingCall | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> SiteAlerts:
        settings = crawler.settings
        # a recheck run keeps no new article; a cluster worker holds only part of a site's run
        if not settings.getbool("ALERTS_ENABLED"):
            raise NotConfigured("ALERTS_ENABLED is off")
        if settings.getbool("RECHECK") or settings.getbool("SEED_FROM_REDIS"):
            raise NotConfigured("a recheck run or a cluster worker is no whole run of a site")
        name = crawler.spidercls.name
        log = HealthLog.for_spider(Runtime.of(crawler).client, settings, str(name))
        ext = cls(crawler, log, channels_from_settings(settings), Thresholds.from_settings(settings))
        for handler, signal in (
            (ext.item_scraped, signals.item_scraped),
            (ext.item_dropped, signals.item_dropped),
            (ext.item_error, signals.item_error),
            (ext.response_received, signals.response_received),
            (ext.fetch_failed, fetch_failed),
            (ext.spider_opened, signals.spider_opened),
            (ext.spider_closed, signals.spider_closed),
        ):
            crawler.signals.connect(handler, signal=signal)
        return ext

    def _site(self, item: Any = None) -> str:
        site = ItemAdapter(item).get("site") if item is not None else None
        spider = self.crawler.spider
        return str(site or getattr(spider, "site", "") or (spider.name if spider else ""))

    # What the run gives each site.
    def _article(self, item: Any, response: Response | None, kept: bool = False) -> None:
        if response is not None and response.request is not None and response.request.meta.get(RECHECK):
            return  # a kept article fetched again: no new article
        fields = ItemAdapter(item)
        run = self.runs[self._site(item)]
        run.articles += 1
        run.kept += kept
        body = str(fields.get("body") or "")
        if unusable(body, self.min_chars, str(fields.get("title") or "")) is None:
            run.with_body += 1
            run.body_lengths.append(len(body.strip()))
        run.with_author += bool(fields.get("author"))
        run.with_time += bool(fields.get("published_at"))

    def item_scraped(self, item: Any, response: Response) -> None:
        self._article(item, response, kept=True)

    def item_dropped(self, item: Any, response: Response, exception: BaseException) -> None:
        self._article(item, response)

    def item_error(self, item: Any, response: Response, failure: Any) -> None:
        self._article(item, response)

    def response_received(self, response: Response, request: Request, spider: Spider) -> None:
        if response.status >= 400 or request.meta.get(RECHECK):
            return  # an error status is counted where it fails (fetch_failed)
        run = self.runs[self._site()]
        run.fetches += 1
        run.start_pages += bool(request.meta.get(START_PAGE))

    def fetch_failed(self, request: Request, failure: Any) -> None:
        if released(failure) or request.meta.get(RECHECK):
            return
        run = self.runs[self._site()]
        run.fetches += 1
        if classify_failure(failure)[0] == "failed":
            run.failed += 1
            if request.meta.get(START_PAGE):
                run.start_pages += 1
                run.start_failed.append(request.url)

    # Judging.
    def spider_opened(self, spider: Spider) -> None:
        if self.watching and self.every > 0:
            self.loop = task.LoopingCall(self._judge_now)
            self.loop.start(self.every, now=False)

    async def spider_closed(self, spider: Spider, reason: str) -> None:
        if self.loop is not None and self.loop.running:
            self.loop.stop()
        # a watch is judged by the hour (its last minutes are too short a run); a crawl that
        # did not finish (stopped, or shut down) is no run of the site
        if self.watching or reason != "finished":
            return
        self.runs.setdefault(self._site(), SiteRun())
        await maybe_deferred_to_future(self._judge_now())

    def _judge_now(self) -> Any:
        runs, self.runs = dict(self.runs), defaultdict(SiteRun)
        return threads.deferToThread(self.judge, runs).addCallbacks(self._count, self._judging_failed)

    def judge(self, runs: dict[str, SiteRun]) -> list[tuple[str, str]]:
        """Judge, record and send (off the reactor: Redis and the channels block); returns
        ``(channel, "sent"|"failed")`` for each delivery, counted on the reactor."""
        results: list[tuple[str, str]] = []
        for site, run in sorted(runs.items()):
            verdict = judge(run, self.log.earlier(site, RUNS_KEPT), self.limits)
            self.log.record(site, run, verdict)
            for kind, detail in sorted(verdict.items()):
                if detail:
                    if self.log.raise_alert(site, kind, detail):
                        results += self.send(Alert(site, kind, detail, self.log.now(), "alert"))
                elif self.log.clear(site, kind):
                    results += self.send(Alert(site, kind, describe(run), self.log.now(), "recovered"))
        return results

    def send(self, alert: Alert) -> list[tuple[str, str]]:
        logger.warning(
            "site %s: %s %s: %s", printable(alert.site, 80), alert.status, alert.kind, printable(alert.detail, 400)
        )
        results, delivered = [], {}
        for channel in self.channels:
            try:
                channel.send(alert)
            except ChannelFailed as e:
                logger.warning("alert for %s (%s) not delivered: %s", printable(alert.site, 80), alert.kind, e)
                results.append((channel.name, "failed"))
                delivered[channel.name] = f"failed: {e}"
            else:
                results.append((channel.name, "sent"))
                delivered[channel.name] = "sent"
        self.log.log_sent({**alert.payload(), "channels": delivered})
        return results

    def _count(self, results: list[tuple[str, str]]) -> None:
        counts = Counts.of(self.crawler.stats)
        for channel, result in results:
            counts.add("alerts", f"{result}/{channel}")

    def _judging_failed(self, failure: Any) -> None:
        Counts.of(self.crawler.stats).add("alerts", "judging_failed")
        if failure.check(*REDIS_ERRORS):  # Redis away at the end of a run: the run goes unjudged
            logger.warning("site health not judged: Redis did not answer (%s)", printable(str(failure.value), 300))
        else:  # a bug: its traceback, and the crawl's outcome still stands
            logger.error("site health not judged", exc_info=(failure.type, failure.value, failure.getTracebackObject()))
