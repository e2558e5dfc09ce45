"""When an article was published: meta tags, else the byline's date by the headline."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

from lxml.html import HtmlElement

from news_crawler.extraction.dates import (
    SHANGHAI,
    dates_in,
    han_date,
    han_dates,
    parse_datetime,
    short_year_dates,
    year_month,
)
from news_crawler.extraction.metadata import meta_content
from news_crawler.extraction.structured import marked_time

_TIME_META = (
    "article:published_time",
    "og:article:published_time",
    "og:release_date",
    "pubdate",
    "publishdate",
    "publish_date",
    "publishtime",
    "publish-time",
    "pubtime",
    "datepublished",
    "dc.date.issued",
    "dc.date",
    "weibo:article:create_at",
    "sailthru.date",
    "date",
)
BYLINE_REACH = 300  # characters after the headline where its byline stands
_OVER_HEADLINE = 80  # characters above the headline where a post's date and time may stand
_HAN_BYLINE_REACH = 60  # a date in Chinese numerals this near the headline: the byline's (further down: a notice's own)
# Full-width digits, and colons between digits (２０１９年３月１日 １０：２３), as ASCII, one
# character for one (labels keep their full-width colons: 时间：19-03-01 is read by them).
_HALF_WIDTH = str.maketrans("０１２３４５６７８９－／．", "0123456789-/.")  # ２０１９－０３－０１ too
_WIDE_COLON = re.compile(r"(?<=\d)：(?=\d)")
_WIDE_DIGIT = re.compile("[０-９]")
# "更新时间：" before a date: when the byline also gives another, that one is the publication's.
_UPDATED = re.compile(r"(?:更新|修改|修订|编辑)(?:时间|日期|于)?\s*+[:：]?+\s*+$")
_PUBLISHED = re.compile(r"(?:发布|发表|发稿|刊发|出版)(?:时间|日期)\s*+[:：]\s*+$")
_SENTENCE = re.compile(r"[，。；！？]")


def _in_story(text: str, at: int, body: str) -> bool:
    """The date at ``at`` stands in a sentence of the story (a date the story tells of): the
    text around it is in the body, which chrome-stripping left without bylines, and its line
    has a pause."""
    line_start, line_end = text.rfind("\n", 0, at) + 1, text.find("\n", at)
    line_end = line_end if line_end >= 0 else len(text)
    line = text[line_start:line_end].strip()
    around = text[max(line_start, at - 20) : min(line_end, at + 20)]  # the line may have lost a credit
    return bool(body) and len(line) >= 20 and around in body and bool(_SENTENCE.search(line))


# "发布时间：10-08 12:00": platforms (百家号 and others) leave out the year of this year's posts.
# Also "3月1日 10:08".
_NO_YEAR = re.compile(
    r"(?:(?:发布|发表)?(?:时间|日期)\s*[:：]|^|\n)[ \t\u3000]*(?<![\d/.-])"
    r"(?P<m>1[0-2]|0?[1-9])(?:-|月)(?P<d>3[01]|[12]\d|0?[1-9])(?:日\s*|\s+)(?P<H>[01]?\d|2[0-3]):"
    r"(?P<M>[0-5]\d)(?![\d:-])"
)


def _without_year(byline: str, now: datetime | None = None) -> str:
    """A byline's month-day time without a year, in the year that makes it no later than
    now (the platforms' own convention), or ""."""
    now = now or datetime.now(SHANGHAI)
    m = _NO_YEAR.search(byline)
    if not m:
        return ""
    for year in (now.year, now.year - 1):
        try:
            when = datetime(year, int(m["m"]), int(m["d"]), int(m["H"]), int(m["M"]), tzinfo=SHANGHAI)
        except ValueError:  # 02-29 of a year without it
            continue
        if when <= now + timedelta(days=1):
            return when.isoformat()
    return ""


# The byline's time of day (13:48 in "06/02/2022 - 13:48"): a page that states its time as
# UTC in markup often shows it in its own zone.
_CLOCK = re.compile(r"(?<![\d:])(?P<H>[01]?\d|2[0-3]):(?P<M>[0-5]\d)(?![\d])")
_NUMBER = re.compile(r"\d+")
_QUARTER = 900  # seconds: every zone's offset is a whole number of quarter hours


def as_shown(stated: str, byline: str) -> str:
    """``stated`` (ISO 8601 with its offset, from markup) in the zone the page shows it in:
    when the line of ``byline`` holding its first time of day also holds a date, and that
    date and time are ``stated``'s at an offset of whole quarter hours (UTC-12 to UTC+14),
    the same instant at that offset (a page that says 12:48Z and shows 13:48, Paris's time).
    Else ``stated``."""
    clock = _CLOCK.search(byline)
    try:
        instant = datetime.fromisoformat(stated)
    except ValueError:
        return stated
    if clock is None or instant.tzinfo is None:
        return stated
    utc = instant.astimezone(UTC)
    shown = int(clock["H"]) * 3600 + int(clock["M"]) * 60
    offset = (shown - (utc.hour * 3600 + utc.minute * 60)) % 86400
    offset = offset - 86400 if offset > 14 * 3600 else offset
    if offset < -12 * 3600 or offset % _QUARTER or timedelta(seconds=offset) == instant.utcoffset():
        return stated
    local = utc.astimezone(timezone(timedelta(seconds=offset)))
    start, end = byline.rfind("\n", 0, clock.start()) + 1, byline.find("\n", clock.end())
    numbers = {int(n) for n in _NUMBER.findall(byline[start : end if end >= 0 else len(byline)])}
    if not {local.year, local.month, local.day} <= numbers:  # another time (a video's length)
        return stated
    return local.isoformat()


def in_zone_of(stated: str, reference: str) -> str:
    """``stated`` (ISO 8601) at ``reference``'s offset, the same instant (the modification time
    in the zone the publication time is given in); ``stated`` when either has no time of day."""
    try:
        when, zone = datetime.fromisoformat(stated), datetime.fromisoformat(reference).tzinfo
    except ValueError:
        return stated
    if "T" not in stated or "T" not in reference or when.tzinfo is None or zone is None:
        return stated
    return when.astimezone(zone).isoformat()


def find_published_at(
    root: HtmlElement, text: str, title: str, body: str = "", linked: str = "", html: str = ""
) -> str:
    """The publication time ``_stated_or_shown`` finds, or "" when it is later than a day
    from now (an event's date, a page's clock gone wrong: no story is published ahead)."""
    return not_ahead(_stated_or_shown(root, text, title, body, linked, html))


def not_ahead(iso: str) -> str:
    """``iso``, or "" when it begins more than a day from now: no story is published or
    modified ahead."""
    return "" if iso and _ahead(iso, datetime.now(SHANGHAI)) else iso


def _ahead(iso: str, now: datetime) -> bool:
    """Whether the time, day or month ``iso`` names begins more than a day after ``now``."""
    try:
        start = datetime.fromisoformat(iso if len(iso) != 7 else iso + "-01")  # 1998-03: its first day
    except ValueError:
        return False
    if start.tzinfo is None:
        start = start.replace(tzinfo=SHANGHAI)
    return start > now + timedelta(days=1)


def _stated_or_shown(root: HtmlElement, text: str, title: str, body: str = "", linked: str = "", html: str = "") -> str:
    """ISO 8601 time from meta tags, ``linked`` (JSON-LD's datePublished) or microdata and
    ``<time datetime>`` (``structured.py``, in the page's source ``html``), in the zone the
    byline shows it in (``as_shown``); else the byline's:
    the first date right after the headline (a two-digit year's too: 19-03-01 10:23) not
    labelled as an update and not in a paragraph of the story (``body``) (a bare date when it
    gives no time: comments and sidebars further down carry other times),
    (or in Chinese numerals right under the headline), or its month-day time without a year
    (this year's, as platforms mean it);
    else the first date labelled as the publication's (发布时间：…, a byline under the story; else
    one above the headline, as a government disclosure page's table gives 发布日期 there);
    else the first date with a time of day after the headline, else the first date after it;
    else the nearest date above the headline (e-paper layouts); else a date in Chinese numerals
    (二〇一九年三月一日); else a year and month (1998年3月 -> 1998-03). Full-width digits read as
    ASCII ones."""
    if _WIDE_DIGIT.search(text):
        text, title, body = (_WIDE_COLON.sub(":", x.translate(_HALF_WIDTH)) for x in (text, title, body))
    found = text.find(title[:12]) if title else -1
    start = max(found, 0)
    near = text[start : start + len(title) + BYLINE_REACH]
    shown = near if found >= 0 else ""
    meta = parse_datetime(meta_content(root, _TIME_META))
    if meta and "T" in meta:
        return as_shown(meta, shown)
    for stated in (parse_datetime(linked), parse_datetime(marked_time(root, near, html))):
        if stated and "T" in stated:
            return as_shown(stated, shown)
        meta = meta or stated
    if found >= 0:
        reach = start + len(title) + BYLINE_REACH
        han = han_dates(text, start, start + len(title) + _HAN_BYLINE_REACH)
        byline = [
            d
            for d in sorted(dates_in(text, start, reach) + short_year_dates(text, start, reach) + han)
            if not _in_story(text, d[0], body)
        ]
        published = [d for d in byline if not _UPDATED.search(text[max(d[0] - 8, 0) : d[0]])]
        if published or byline:
            return (published or byline)[0][1]
        this_year = _without_year(text[start : start + len(title) + BYLINE_REACH])
        if this_year:
            return this_year
    labelled = [d for d in dates_in(text) if _PUBLISHED.search(text[max(d[0] - 8, 0) : d[0]])]
    under = [d for d in labelled if d[0] >= start]  # a byline under the story; else one above (a disclosure table)
    if labelled:
        return (under or labelled)[0][1]
    # A blog prints its post's date and time on the line over the headline: nearer than a
    # comment's far below.
    over = [d for d in dates_in(text, max(found - _OVER_HEADLINE, 0), found) if d[2]] if found > 0 else []
    if over:
        return over[-1][1]
    after = dates_in(text, start)
    timed = [iso for _, iso, has_time in after if has_time]
    if timed:
        return timed[0]
    if meta or after:
        return meta or after[0][1]
    above = dates_in(text, max(found - BYLINE_REACH, 0), found) if found > 0 else []
    return above[-1][1] if above else han_date(text[start:]) or year_month(text[start:]) or year_month(text)
