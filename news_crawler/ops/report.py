"""The daily report: one self-contained HTML file (inline SVG, no script, font or CDN) that
opens offline and can be sent to a colleague.

Per site, today's fetched / kept / dropped / invalid / failed with the change from the day
before, and how long after publication today's articles were found (discovery latency); a
chart of kept and dropped over the last days; sites that kept nothing today flagged; today's
near-duplicates (dropped URL, kept URL, distance, rule), today's edits and deletions (per site,
and each with its reason) and failures with their reasons. The
history is Redis's own: each spider's outcome counts per day (``<spider>:outcomes:counts:<day>``),
which the server deletes after ``OUTCOMES_KEEP_DAYS``; a day with no counts is shown as "no
data", not as zero.
"""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from news_crawler.config import zone, zone_name
from news_crawler.crawl.summary import row_from_outcomes
from news_crawler.dedup.index.base import FingerprintStore
from news_crawler.outcomes.latency import Histogram
from news_crawler.spiders.sites import SiteNames, load_sites, sites_files

# The summary's columns, from a day's outcome counts as the summary reads a run's (no list
# pages: they are no outcome, so a day does not count them).
TOP_STORIES = 10
DROPS_READ = 20_000  # the newest drop records read for today's drops and stories
DROPS_SHOWN = 500  # rows of today's drops in the report
COLUMNS = ("fetched", "kept", "dropped", "invalid", "gone", "robots", "failed", "errors")


@dataclass
class SiteDays:
    """One site's counts per day (a day missing: no data)."""

    site: str
    days: dict[date, dict[str, int]] = field(default_factory=dict)


@dataclass
class ReportData:
    zone: str  # the zone whose days these are, as the report names it (TIMEZONE's, or the machine's)
    today: date
    days: list[date]  # oldest first, today last
    sites: list[SiteDays]
    drops: list[dict[str, Any]]  # today's: id, duplicate_of, distance, rule, time, site, original_site
    failures: list[dict[str, str]]  # today's: site, url, outcome, reason, time
    latency: dict[str, Histogram] = field(default_factory=dict)  # today's discovery latency, by site
    changes: list[dict[str, Any]] = field(default_factory=list)  # today's edits and deletions
    # each site judged: {"site", "judged": [kinds], "alerts": {kind: {"since", "detail"}}}
    health: list[dict[str, Any]] = field(default_factory=list)
    titles: dict[str, str] = field(default_factory=dict)  # the headlines of the articles shown, by URL


def gather(
    client: Any,
    settings: Any,
    spiders: list[str],
    store: FingerprintStore,
    days: int = 30,
    today: date | None = None,
) -> ReportData:
    """What the report shows, read from Redis."""
    from news_crawler.ops.health import HealthLog
    from news_crawler.outcomes.changes import ChangeLog
    from news_crawler.outcomes.latency import LatencyLog
    from news_crawler.outcomes.store import OutcomeStore, latest_outcomes

    tz = zone(settings)
    today = today or datetime.now(tz).date()
    span = [today - timedelta(days=n) for n in range(days - 1, -1, -1)]
    sites, latency, changes, health = [], {}, [], []
    for name in spiders:
        log = HealthLog.for_spider(client, settings, name)
        open_alerts = log.open_alerts()
        for site, last in sorted(log.last_runs().items()):
            alerts = {kind: a for (s, kind), a in sorted(open_alerts.items()) if s == site}
            health.append({"site": site, "judged": last["judged"], "alerts": alerts})
        changes += ChangeLog.for_spider(client, settings, name).on(today, tz)
        histogram = LatencyLog.for_spider(client, settings, name).histogram(today)
        if histogram.count:
            latency[name] = histogram
        outcomes = OutcomeStore.for_spider(client, settings, name)
        pipe = client.pipeline(transaction=False)
        for day in span:
            pipe.hgetall(outcomes.counts_key(day))
        found = {day: {k.decode(): int(v) for k, v in raw.items()} for day, raw in zip(span, pipe.execute()) if raw}
        if found:
            sites.append(SiteDays(name, {day: row_from_outcomes(counts) for day, counts in found.items()}))
    site_of = SiteNames(load_sites(sites_files(settings.get("SITES_FILE"))))
    drops: list[dict[str, Any]] = [
        {
            "id": d.id,
            "duplicate_of": d.duplicate_of,
            "distance": d.distance,
            "rule": d.rule,
            "time": d.time,
            "site": site_of(d.id),  # the copy's site
            "original_site": site_of(d.duplicate_of),  # the site of the story's original
        }
        for d in store.drops(DROPS_READ)
        if datetime.fromisoformat(str(d.time)).astimezone(tz).date() == today
    ]
    failures = [
        r
        for r in latest_outcomes(client, settings, [s.site for s in sites], day=today)
        if r["outcome"] in ("failed", "given_up", "error", "gone")
    ][:500]
    changes.sort(key=lambda e: e["at"], reverse=True)
    # the articles the report names: the drops it lists, and the originals of every story today
    shown = [str(u) for d in drops[:DROPS_SHOWN] for u in (d["id"], d["duplicate_of"])]
    shown += [str(d["duplicate_of"]) for d in drops[DROPS_SHOWN:]]
    titles: dict[str, str] = {}
    for name in spiders:
        missing = [u for u in dict.fromkeys(shown) if u and u not in titles]
        if not missing:
            break
        titles.update(OutcomeStore.for_spider(client, settings, name).titles(missing))
    named = zone_name(tz)
    label = f"{named} (TIMEZONE)" if settings.get("TIMEZONE") else f"{named}, this machine's zone (TIMEZONE is not set)"
    return ReportData(label, today, span, sites, drops, failures, latency, changes, health, titles)


def _change(now: int, before: int | None) -> str:
    """The change from the day before (a site's first day shows none)."""
    if before is None:
        return '<span class="nd">no data the day before</span>'
    delta = now - before
    return f'<span class="{"up" if delta > 0 else "down" if delta < 0 else "same"}">{delta:+d}</span>'


def chart(site: SiteDays, days: list[date]) -> str:
    """Kept (blue) and dropped (orange) a day, stacked; a day without data is a gray mark
    that says so."""
    bar, height = 14, 80
    top = max([r["kept"] + r["dropped"] for r in site.days.values()] + [1])
    parts = []
    for i, day in enumerate(days):
        x = i * bar
        row = site.days.get(day)
        if row is None:
            parts.append(
                f'<g class="nodata"><title>{day}: no data</title><rect x="{x + 2}" y="{height - 6}" '
                f'width="{bar - 4}" height="6" fill="#ddd"/></g>'
            )
            continue
        kept_h, drop_h = row["kept"] * height / top, row["dropped"] * height / top
        parts.append(
            f"<g><title>{day}: {row['kept']} kept, {row['dropped']} dropped</title>"
            f'<rect x="{x + 2}" y="{height - kept_h:.1f}" width="{bar - 4}" height="{kept_h:.1f}" '
            f'fill="#3572b0"/><rect x="{x + 2}" y="{height - kept_h - drop_h:.1f}" width="{bar - 4}" '
            f'height="{drop_h:.1f}" fill="#e8833a"/></g>'
        )
    missing = sum(1 for day in days if day not in site.days)
    note = f"{missing} of {len(days)} days without data" if missing else f"every day of {len(days)}"
    return (
        f'<svg class="chart" data-site="{html.escape(site.site)}" width="{bar * len(days)}" '
        f'height="{height + 2}" role="img" aria-label="kept and dropped a day, {note}">{"".join(parts)}</svg>'
        f'<div class="note">{note}</div>'
    )


def _seconds(value: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if value >= size:
            return f"{value / size:.1f} {unit}"
    return f"{value:.1f} s"


def _latency_cell(histogram: Histogram | None) -> str:
    """Today's median and 90th percentile of crawled_at - published_at (from the histogram's
    buckets, so within a bucket's width)."""
    if histogram is None:
        return '<td data-col="latency"><span class="nd">no article with a time</span></td>'
    median, p90 = histogram.quantile(0.5) or 0.0, histogram.quantile(0.9) or 0.0
    return (
        f'<td data-col="latency" title="{histogram.count} kept articles whose page states a time">'
        f"{_seconds(median)}, {_seconds(p90)}</td>"
    )


def _health_row(h: dict[str, Any]) -> str:
    """A site's open alerts, one row each; or one row saying it is healthy or not yet judged."""
    site = html.escape(h["site"])
    if not h["alerts"]:
        state = "ok" if h["judged"] else "not judged yet (too few runs)"
        return f'<tr data-site="{site}"><td>{site}</td><td>{state}</td><td></td><td></td></tr>'
    return "".join(
        f'<tr class="flagged" data-site="{site}"><td>{site}</td><td class="flag">{html.escape(kind)}</td>'
        f"<td>{html.escape(a['since'])}</td><td>{html.escape(a['detail'])}</td></tr>"
        for kind, a in h["alerts"].items()
    )


def _link(url: str, titles: dict[str, str]) -> str:
    """An article as a link: its headline (its URL when none is known), the URL in its title."""
    text = titles.get(url) or url
    return f'<a href="{html.escape(url)}" title="{html.escape(url)}">{html.escape(text)}</a>'


def render(data: ReportData) -> str:
    """The report as one HTML page."""
    yesterday = data.today - timedelta(days=1)
    rows = []
    for site in sorted(data.sites, key=lambda s: s.site):
        now = site.days.get(data.today)
        before = site.days.get(yesterday)
        first = not any(day < data.today for day in site.days)  # the site's first day of data
        flag = now is not None and now["kept"] == 0 or now is None
        cells = "".join(
            f'<td data-col="{c}">{now[c] if now else "-"} '
            f"{_change(now[c], before[c] if before else None) if now and not first else ''}</td>"
            for c in COLUMNS
        )
        warning = '<span class="flag">kept nothing today</span>' if flag else ""
        if first:  # nothing to compare with yet
            warning += ' <span class="note">its first day</span>'

        rows.append(
            f'<tr class="site{" flagged" if flag else ""}" data-site="{html.escape(site.site)}">'
            f"<th>{html.escape(site.site)} {warning}</th>{cells}{_latency_cell(data.latency.get(site.site))}"
            f"<td>{chart(site, data.days)}</td></tr>"
        )
    drops = "".join(
        f"<tr><td>{_link(d['id'], data.titles)}</td><td>{_link(d['duplicate_of'], data.titles)}</td>"
        f"<td>{d['distance']}</td><td>{html.escape(str(d['rule']))}</td></tr>"
        for d in data.drops[:DROPS_SHOWN]
    )
    stories = Counter(d["duplicate_of"] for d in data.drops if d["duplicate_of"])
    copiers: dict[str, set[str]] = {}
    for d in data.drops:
        copiers.setdefault(d["duplicate_of"], set()).add(d["site"])
    reprinted = "".join(
        f"<tr><td>{_link(story, data.titles)}</td><td>{n}</td>"
        f"<td>{html.escape(', '.join(sorted(h for h in copiers[story] if h)))}</td></tr>"
        for story, n in stories.most_common(TOP_STORIES)
    )
    by_site = Counter(d["original_site"] for d in data.drops if d["duplicate_of"])
    per_site = "".join(
        f'<tr data-site="{html.escape(site)}"><td>{html.escape(site)}</td><td>{n}</td></tr>'
        for site, n in by_site.most_common()
        if site
    )
    failures = "".join(
        f'<tr><td>{html.escape(f["site"])}</td><td><a href="{html.escape(f["url"])}">{html.escape(f["url"])}</a></td>'
        f"<td>{html.escape(f['outcome'])}</td><td>{html.escape(f['reason'])}</td></tr>"
        for f in data.failures
    )
    health = "".join(_health_row(h) for h in data.health)
    header = "".join(f"<th>{c} (vs. the day before)</th>" for c in COLUMNS)
    by_event = Counter((e["site"], e["event"]) for e in data.changes)
    changed_sites = sorted({e["site"] for e in data.changes})
    change_counts = "".join(
        f"<tr><td>{html.escape(site)}</td><td>{by_event[site, 'edited']}</td><td>{by_event[site, 'deleted']}</td></tr>"
        for site in changed_sites
    )
    change_rows = "".join(
        f'<tr><td>{html.escape(e["site"])}</td><td><a href="{html.escape(e["url"])}">{html.escape(e["url"])}</a></td>'
        f"<td>{html.escape(e['event'])}</td><td>{e['version']}</td>"
        f"<td>{html.escape(e['reason'] or ', '.join(e['changed']))}</td></tr>"
        for e in data.changes[:DROPS_SHOWN]
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>news-crawler report {data.today}</title>
<style>
body {{ font: 14px/1.4 sans-serif; margin: 24px; color: #222; }}
table {{ border-collapse: collapse; margin-bottom: 24px; }}
th, td {{ border-bottom: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }}
.up {{ color: #2a7a2a; }} .down {{ color: #b03030; }} .same, .nd {{ color: #888; }}
.flagged th {{ background: #fde8e8; }} .flag {{ color: #b03030; font-size: 12px; }}
.note {{ color: #888; font-size: 11px; }} .legend span {{ padding: 0 6px; }}
</style></head><body>
<h1>news-crawler: {data.today}</h1>
<p class="zone">Days are days of {html.escape(data.zone)}.</p>
<p class="legend">Chart: the last {len(data.days)} days, <span style="color:#3572b0">kept</span>
<span style="color:#e8833a">dropped</span>, <span style="color:#aaa">gray: no data</span>.</p>
<table id="sites"><tr><th>site</th>{header}<th>discovery latency today: median, 90%</th>
<th>kept and dropped a day</th></tr>{"".join(rows)}</table>
<h2>Site health (each site against its own recent runs)</h2>
<table id="health"><tr><th>site</th><th>health</th><th>since</th>
<th>what this run gave, against the usual</th></tr>{health}</table>
<h2>Most reprinted stories today</h2>
<table id="stories"><tr><th>story (its original)</th><th>copies dropped today</th>
<th>copied by</th></tr>{reprinted}</table>
<h2>Reprints of each site's stories today (转载量)</h2>
<table id="reprinted"><tr><th>site</th><th>copies of its stories</th></tr>{per_site}</table>
<h2>Near-duplicates dropped today ({len(data.drops)})</h2>
<table id="drops"><tr><th>dropped</th><th>copy of</th><th>distance</th><th>rule</th></tr>{drops}</table>
<h2>Edits and deletions rechecks found today ({len(data.changes)})</h2>
<table id="change-counts"><tr><th>site</th><th>edited</th><th>deleted</th></tr>{change_counts}</table>
<table id="changes"><tr><th>site</th><th>URL</th><th>event</th><th>version</th><th>what</th></tr>{change_rows}</table>
<h2>Failures today ({len(data.failures)})</h2>
<table id="failures"><tr><th>site</th><th>URL</th><th>outcome</th><th>reason</th></tr>{failures}</table>
</body></html>
"""
