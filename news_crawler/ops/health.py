"""Site health: what each run gave a site, judged against the site's own recent runs.

A run's row for a site (``SiteRun``) holds the counts a crawl already sees: the new articles
extracted (with a usable body, an author, a time; their median body length), the articles
kept, the fetches that failed, the start pages fetched and failed. ``judge`` compares it with
the site's earlier runs (at most ``ALERTS_HISTORY``; fewer than ``ALERTS_MIN_RUNS``: not
judged) and names what broke, for each kind:

- ``no_articles``: the site kept articles in most of its recent runs and none in this one;
- ``extraction``: the share of new articles with a body, an author or a time fell by
  ``ALERTS_SHARE_DROP`` or more from its usual share, or their median body length fell below
  ``ALERTS_LENGTH_RATIO`` of its usual (a template change); judged on runs of at least
  ``ALERTS_MIN_ARTICLES`` new articles;
- ``failures``: a start page failed, or more than ``ALERTS_FAILED_SHARE`` of the run's fetches.

"Usual" is the median over the site's last ``ALERTS_HISTORY`` runs that were healthy for that
kind (looked for among the 60 it keeps), so a week of a broken template does not become the
site's new normal, and a mended site is judged against its healthy runs and recovers.

The history and the alerts live in Redis, per spider (``HEALTH_KEY``): ``<key>:runs:<site>`` (a
list, newest first, one JSON row a run, the last 60 kept), ``<key>:last`` (each site's newest
row), ``<key>:open`` (a hash ``site/kind`` -> the open
alert), ``<key>:sent`` (a list of what was sent, newest first) and ``<key>:day:<day>:<site>/<kind>``
(set once a day and kind: the one alert of that day, claimed atomically by ``SET NX`` so that
two workers finishing at once send it once).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, tzinfo
from typing import Any

from news_crawler import config, connection

KINDS = ("no_articles", "extraction", "failures")
RUNS_KEPT = 60  # rows a site keeps in <key>:runs, whatever ALERTS_HISTORY is
SENT_KEPT = 1_000  # entries kept in <key>:sent


@dataclass
class SiteRun:
    """What one run gave one site."""

    articles: int = 0  # new article pages extracted (kept, dropped or invalid)
    with_body: int = 0  # of them, with a usable body (ARTICLE_MIN_CHARS)
    with_author: int = 0
    with_time: int = 0
    body_lengths: list[int] = field(default_factory=list)  # characters of each usable body
    kept: int = 0
    fetches: int = 0  # pages that came back or failed
    failed: int = 0  # of them, failed (after retries)
    start_pages: int = 0
    start_failed: list[str] = field(default_factory=list)  # start pages that failed (their URLs)

    @property
    def body_median(self) -> float:
        return float(statistics.median(self.body_lengths)) if self.body_lengths else 0.0

    def shares(self) -> dict[str, float]:
        """The share of new articles with a body, an author and a time."""
        n = max(self.articles, 1)
        return {"body": self.with_body / n, "author": self.with_author / n, "time": self.with_time / n}

    def to_json(self) -> dict[str, Any]:
        row = asdict(self)
        row["body_median"] = self.body_median
        del row["body_lengths"]  # the median is what later runs compare with
        return row

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> SiteRun:
        median = float(row.get("body_median") or 0)
        names = {f for f in cls.__dataclass_fields__ if f != "body_lengths"}
        run = cls(**{k: v for k, v in row.items() if k in names})
        run.body_lengths = [round(median)] if median else []
        return run


@dataclass(frozen=True)
class Thresholds:
    history: int = 7
    min_runs: int = 3
    min_articles: int = 3
    share_drop: float = 0.4
    length_ratio: float = 0.4
    failed_share: float = 0.5

    @classmethod
    def from_settings(cls, settings: Any) -> Thresholds:
        return cls(
            settings.getint("ALERTS_HISTORY"),
            settings.getint("ALERTS_MIN_RUNS"),
            settings.getint("ALERTS_MIN_ARTICLES"),
            settings.getfloat("ALERTS_SHARE_DROP"),
            settings.getfloat("ALERTS_LENGTH_RATIO"),
            settings.getfloat("ALERTS_FAILED_SHARE"),
        )


@dataclass
class Earlier:
    """An earlier run of the site: its row and the kinds it alerted on."""

    run: SiteRun
    alerting: tuple[str, ...] = ()


def _usual(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def judge(run: SiteRun, earlier: list[Earlier], limits: Thresholds) -> dict[str, str | None]:
    """For each kind judged: a one-line detail of what broke (what was usual, what this run
    gave), or None when healthy. A kind not judged (too few earlier runs, too few articles)
    is absent. ``earlier`` is newest first; for each kind the usual is read from its first
    ``limits.history`` runs that did not alert on that kind, however far back they lie (a site
    broken for a week is still compared with its healthy runs, and recovers when mended)."""
    if len(earlier) < limits.min_runs:
        return {}
    verdict: dict[str, str | None] = {}

    def baseline(kind: str) -> list[SiteRun]:
        return [e.run for e in earlier if kind not in e.alerting][: limits.history]

    kept_before = [r.kept for r in baseline("no_articles")]
    if kept_before and _usual(kept_before) >= 1:  # it kept articles in most of its recent runs
        verdict["no_articles"] = (
            None
            if run.kept
            else f"kept no article (usually {_usual(kept_before):g} a run; "
            f"{run.articles} new pages extracted, {run.fetches} fetched)"
        )

    sized = [r for r in baseline("extraction") if r.articles >= limits.min_articles]
    if run.articles >= limits.min_articles and len(sized) >= limits.min_runs:
        now = run.shares()
        fell = []
        for what in ("body", "author", "time"):
            usual = _usual([r.shares()[what] for r in sized])
            if usual - now[what] >= limits.share_drop:
                fell.append(f"articles with a {what} {now[what]:.0%} (usually {usual:.0%})")
        lengths = [r.body_median for r in sized if r.body_median]
        usual_length = _usual(lengths) if lengths else 0.0
        if usual_length and run.body_median < limits.length_ratio * usual_length:
            fell.append(f"median body {run.body_median:g} characters (usually {usual_length:g})")
        verdict["extraction"] = f"{'; '.join(fell)}, of {run.articles} new articles" if fell else None

    usual_failed = _usual([r.failed / r.fetches if r.fetches else 0.0 for r in baseline("failures")] or [0.0])
    if run.start_failed:
        verdict["failures"] = (
            f"{len(run.start_failed)} of {max(run.start_pages, len(run.start_failed))} start pages failed "
            f"({run.start_failed[0]}); {run.failed} of {run.fetches} fetches failed (usually {usual_failed:.0%})"
        )
    elif run.fetches and run.failed > limits.failed_share * run.fetches:
        verdict["failures"] = f"{run.failed} of {run.fetches} fetches failed (usually {usual_failed:.0%})"
    elif run.fetches:
        verdict["failures"] = None
    return verdict


class HealthLog:
    """One spider's site history, open alerts and the alerts sent, in Redis."""

    def __init__(
        self,
        client: Any,
        key: str,
        zone: tzinfo = UTC,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.client = client
        self.key = key
        self.zone = zone  # what a day is, for one alert a day
        self.clock = clock  # now, aware

    @classmethod
    def for_spider(cls, client: Any, settings: Any, spider: str) -> HealthLog:
        return cls(client, connection.spider_key(settings.get("HEALTH_KEY"), spider, client), config.zone(settings))

    def now(self) -> str:
        return self.clock().astimezone(UTC).isoformat(timespec="seconds")

    def today(self) -> date:
        return self.clock().astimezone(self.zone).date()

    # The runs.
    def earlier(self, site: str, n: int) -> list[Earlier]:
        """The site's last ``n`` runs, newest first."""
        rows = [json.loads(raw) for raw in self.client.lrange(f"{self.key}:runs:{site}", 0, n - 1)]
        return [Earlier(SiteRun.from_json(r["run"]), tuple(r.get("alerting", ()))) for r in rows]

    def record(self, site: str, run: SiteRun, verdict: dict[str, str | None]) -> None:
        """Add this run's row to the site's history (and as its newest, for ``status``)."""
        entry = json.dumps(
            {
                "at": self.now(),
                "run": run.to_json(),
                "alerting": sorted(k for k, v in verdict.items() if v),
                "judged": sorted(verdict),
            },
            ensure_ascii=False,
        )
        pipe = self.client.pipeline(transaction=False)
        pipe.lpush(f"{self.key}:runs:{site}", entry)
        pipe.ltrim(f"{self.key}:runs:{site}", 0, RUNS_KEPT - 1)
        pipe.hset(f"{self.key}:last", site, entry)
        pipe.execute()

    def last_runs(self) -> dict[str, dict[str, Any]]:
        """Each site's newest row: ``{site: {"at", "run", "alerting", "judged"}}``."""
        return {
            (k.decode() if isinstance(k, bytes) else k): json.loads(v)
            for k, v in self.client.hgetall(f"{self.key}:last").items()
        }

    # The alerts.
    def open_alerts(self) -> dict[tuple[str, str], dict[str, Any]]:
        """``{(site, kind): {"since", "detail"}}`` of every alert not yet recovered."""
        out = {}
        for field_, raw in self.client.hgetall(f"{self.key}:open").items():
            name = field_.decode() if isinstance(field_, bytes) else field_
            site, _, kind = name.rpartition("/")
            out[site, kind] = json.loads(raw)
        return out

    def raise_alert(self, site: str, kind: str, detail: str) -> bool:
        """Mark the alert open (its first time kept) and claim today's one alert of it: True
        when this call claimed it (send it), False when today's was claimed already."""
        name = f"{site}/{kind}"
        opened = json.dumps({"since": self.now(), "detail": detail}, ensure_ascii=False)
        pipe = self.client.pipeline(transaction=False)
        pipe.hsetnx(f"{self.key}:open", name, opened)
        # the day's key outlives the day by one, whatever the zone
        pipe.set(f"{self.key}:day:{self.today().isoformat()}:{name}", self.now(), nx=True, ex=2 * 86_400)
        _, claimed = pipe.execute()
        return bool(claimed)

    def clear(self, site: str, kind: str) -> bool:
        """The alert recovered: True for the one call that closed it (send ``recovered``)."""
        return bool(self.client.hdel(f"{self.key}:open", f"{site}/{kind}"))

    def log_sent(self, entry: dict[str, Any]) -> None:
        pipe = self.client.pipeline(transaction=False)
        pipe.lpush(f"{self.key}:sent", json.dumps(entry, ensure_ascii=False))
        pipe.ltrim(f"{self.key}:sent", 0, SENT_KEPT - 1)
        pipe.execute()

    def sent(self, since: datetime | None = None) -> list[dict[str, Any]]:
        """What was sent, newest first (those at or after ``since``, aware)."""
        out = []
        for raw in self.client.lrange(f"{self.key}:sent", 0, SENT_KEPT - 1):
            entry = json.loads(raw)
            if since is not None and datetime.fromisoformat(entry["run_at"]) < since:
                break
            out.append(entry)
        return out
