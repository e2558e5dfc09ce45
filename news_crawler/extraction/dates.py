"""Publication times as pages write them, to ISO 8601 (Asia/Shanghai when no zone is given)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

SHANGHAI = timezone(timedelta(hours=8), "Asia/Shanghai")

# 2022-02-13 07:48[:00], 2022/2/13 7:48, 2022.02.13, 2022年2月13日 07:48, 2022年02月13日07时48分,
# 2022 02/13 07:48 (year and day in elements of their own, as xinhuanet's header prints them),
# 2022年2月13日 7时8分 or 7点8分 (a one-digit minute only before 分),
# 2022-02-13 下午3:05 (a half of the day before a 12-hour time), 2022-02-13 3:05 PM (after it)
# Every run of spaces is taken whole (``\s*+``): a page's long run cannot make it backtrack.
DATETIME = re.compile(
    r"(?<!\d)(?P<y>(?:19|20)\d\d)(?:\s*+(?:[-/.]|年)\s*+|\s++(?=(?:1[0-2]|0?[1-9])/))(?P<m>1[0-2]|0?[1-9])\s*+"
    r"(?:[-/.]|月)\s*+(?P<d>3[01]|[12]\d|0?[1-9])(?!\d)\s*+日?"
    r"(?:\s*+(?:(?P<t>T)|星期\S|周\S)?+\s*+(?P<cn>上午|下午|中午|晚上|凌晨|早上)?+\s*+(?P<H>[01]?\d|2[0-3])\s*+"
    r"(?::|时|点(?=\s*+[0-5]?\d\s*+分))\s*+(?P<M>[0-5]\d|\d(?=\s*+分))(?!\d)"
    r"(?:\s*+(?::|分)\s*+(?P<S>[0-5]\d|\d(?=\s*+秒))(?!\d))?(?:\s*+(?P<half>[AaPp]\.?[Mm]\.?)(?![A-Za-z]))?"
    # the zone ISO 8601 writes after a T (2024-10-15T02:20:00.000Z), or a UTC/GMT a page names:
    # an offset after a plain time may be a range's end (10:00-11:00), and is not read
    r"(?:(?<=\d)(?:\.\d{1,6})?(?P<iso_zone>Z|[+-](?:0\d|1[0-4]):?[0-5]\d)(?![\d:])(?(t)|(?!))"
    r"|[ \t]?(?P<named_zone>UTC|GMT)(?P<named_offset>[+-](?:0?\d|1[0-4])(?::?[0-5]\d)?)?(?![\dA-Za-z]))?)?"
)
# "10:08 2019-03-01": a time of day before its date, on one line.
TIME_FIRST = re.compile(
    r"(?<![\d:])(?P<H>[01]?\d|2[0-3]):(?P<M>[0-5]\d)(?::(?P<S>[0-5]\d))?[ \t\u3000\xa0]++"
    r"(?P<y>(?:19|20)\d\d)\s*+(?:[-/.]|年)\s*+(?P<m>1[0-2]|0?[1-9])\s*+(?:[-/.]|月)\s*+(?P<d>3[01]|[12]\d|0?[1-9])(?![\d:])"
)
# 9/17/2004 5:54:13 AM: month first, as old ASP sites print it; only with AM/PM, which
# tells it from a day-first date.
US_DATETIME = re.compile(
    r"(?<![\d/])(?P<m>1[0-2]|0?[1-9])/(?P<d>3[01]|[12]\d|0?[1-9])/(?P<y>(?:19|20)\d\d)\s++"
    r"(?P<H>1[0-2]|0?\d):(?P<M>[0-5]\d)(?::(?P<S>[0-5]\d))?\s*+(?P<half>[AaPp][Mm])\b"
)
# September 10th, 2005 10:56 am; Sep 10, 2005 at 22:56: as blogs on English-language software print it.
ENGLISH_DATETIME = re.compile(
    r"(?<![A-Za-z])(?P<mon>(?:Jan|Feb)(?:uary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t|tember)?|"
    r"Oct(?:ober)?|(?:Nov|Dec)(?:ember)?)(?![a-z])\.?\s++"
    r"(?P<d>3[01]|[12]\d|0?[1-9])(?:st|nd|rd|th)?,?\s++(?P<y>(?:19|20)\d\d)(?!\d)"
    r"(?:,?\s++(?:at\s++)?(?P<H>[01]?\d|2[0-3]):(?P<M>[0-5]\d)(?::(?P<S>[0-5]\d))?"
    r"(?:\s*+(?P<half>[AaPp]\.?[Mm]\.?)(?![A-Za-z]))?)?"
)
_MONTHS = {name: i for i, name in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), start=1)}
# 1998年3月 (a monthly's issue, a report's date), not followed by a day.
YEAR_MONTH = re.compile(r"(?<!\d)(?P<y>(?:19|20)\d\d)\s*+年\s*+(?P<m>1[0-2]|0?[1-9])\s*+月(?!\s*+\d)")
_ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?$")


def iso_from_match(m: re.Match) -> str:
    """``2022-02-13T07:48:00+08:00``, or ``2022-02-13`` when the page gives no time of day."""
    named = m.groupdict().get("mon")
    y, mo, d = int(m["y"]), _MONTHS[named[:3]] if named else int(m["m"]), int(m["d"])
    if m["H"] is None:
        return datetime(y, mo, d).date().isoformat()
    hour = int(m["H"])
    half = (m.groupdict().get("half") or "").upper().replace(".", "")
    if half:
        hour = hour % 12 + (12 if half == "PM" else 0)
    cn = m.groupdict().get("cn")
    if cn in ("下午", "晚上") and hour < 12 or cn == "中午" and hour < 11:
        hour += 12
    return datetime(y, mo, d, hour, int(m["M"]), int(m["S"] or 0), tzinfo=_zone(m)).isoformat()


def _zone(m: re.Match) -> timezone:
    """The zone a date's match states (ISO 8601's Z or offset, UTC/GMT with or without an
    offset), else Shanghai's."""
    groups = m.groupdict()
    stated = groups.get("iso_zone") or (groups.get("named_offset") or "+00" if groups.get("named_zone") else None)
    if stated is None:
        return SHANGHAI
    if stated == "Z":
        return UTC
    digits = stated[1:].replace(":", "")
    hours, minutes = (int(digits[:-2]), int(digits[-2:])) if len(digits) > 2 else (int(digits), 0)
    offset = timedelta(hours=hours, minutes=minutes)
    return timezone(-offset if stated[0] == "-" else offset)


def dates_in(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, str, bool]]:
    """Every date that starts in ``text[start:end]``, in order: (position, ISO 8601, has a
    time of day), read whole even where it runs past ``end`` (cut there, "2019-04-17 17:56"
    would read as 2019-04-01). Impossible dates (2月30日) are skipped."""
    end = len(text) if end is None else end
    found = []
    for pattern in (DATETIME, US_DATETIME, TIME_FIRST, ENGLISH_DATETIME):
        for m in pattern.finditer(text, start, min(len(text), end + 40)):
            if m.start() >= end:
                break
            try:
                found.append((m.start(), iso_from_match(m), m["H"] is not None))
            except ValueError:
                continue
    return sorted(found)


# "19-03-01 10:23": a two-digit year (20yy), as some older CMS bylines print it; with a time,
# or after a date's label (时间：19-03-01).
_SHORT_YEAR = re.compile(
    r"(?:(?P<label>(?:时间|日期)\s*[:：]\s*)|(?<![\d/.:-]))(?P<y>\d\d)([-/.])(?P<m>1[0-2]|0[1-9])\3"
    r"(?P<d>3[01]|[12]\d|0[1-9])(?:\s+(?P<H>[01]?\d|2[0-3]):(?P<M>[0-5]\d)(?::(?P<S>[0-5]\d))?)?"
    r"(?![\d:/.-])"
)


def short_year_dates(
    text: str, start: int = 0, end: int | None = None, now: datetime | None = None
) -> list[tuple[int, str, bool]]:
    """Dates with a two-digit year and a time (or a date's label) that start in
    ``text[start:end]``, as ``dates_in`` gives them; none later than a day after ``now``."""
    end = len(text) if end is None else end
    latest = (now or datetime.now(SHANGHAI)) + timedelta(days=1)
    found = []
    for m in _SHORT_YEAR.finditer(text, start, min(len(text), end + 20)):
        at, timed = m.start("y"), m["H"] is not None
        if at >= end:
            break
        if not timed and not m["label"]:
            continue
        try:
            when = datetime(
                2000 + int(m["y"]),
                int(m["m"]),
                int(m["d"]),
                int(m["H"] or 0),
                int(m["M"] or 0),
                int(m["S"] or 0),
                tzinfo=SHANGHAI,
            )
        except ValueError:
            continue
        if when <= latest:
            found.append((at, when.isoformat() if timed else when.date().isoformat(), timed))
    return found


_HAN_DIGIT = {c: i for i, c in enumerate("〇一二三四五六七八九")} | {"零": 0, "○": 0}
_HAN_DATE = re.compile(
    r"([〇零○一二三四五六七八九]{4})\s*年\s*([一二三四五六七八九十]{1,2})\s*月\s*([一二三四五六七八九十]{1,3})\s*日"
)


def _han_number(s: str) -> int:
    """一 .. 三十一 as a number (十一 11, 二十 20)."""
    if "十" not in s:
        return _HAN_DIGIT[s] if len(s) == 1 else -1
    tens, _, ones = s.partition("十")
    return (_HAN_DIGIT.get(tens, -1) if tens else 1) * 10 + (_HAN_DIGIT.get(ones, -1) if ones else 0)


def han_dates(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, str, bool]]:
    """Dates in Chinese numerals (二〇一九年三月一日, an official document's) that start in
    ``text[start:end]``, as ``dates_in`` gives them."""
    found = []
    for m in _HAN_DATE.finditer(text, start, len(text) if end is None else min(len(text), end + 12)):
        year, month, day = int("".join(str(_HAN_DIGIT[c]) for c in m[1])), _han_number(m[2]), _han_number(m[3])
        if 1990 <= year <= 2100 and 1 <= month <= 12 and 1 <= day <= 31 and (end is None or m.start() < end):
            found.append((m.start(), f"{year:04d}-{month:02d}-{day:02d}", False))
    return found


def han_date(text: str) -> str:
    """``2019-03-01`` for the first 二〇一九年三月一日 in ``text``, else ``""``."""
    found = han_dates(text)
    return found[0][1] if found else ""


def year_month(text: str) -> str:
    """``1998-03`` for the first 1998年3月 in ``text``, else ``""``."""
    m = YEAR_MONTH.search(text)
    return f"{int(m['y']):04d}-{int(m['m']):02d}" if m else ""


def parse_datetime(text: str) -> str:
    """The first date (with its time, if any) in ``text`` as ISO 8601; ``""`` if none.
    ISO timestamps with a zone (from meta tags) keep their zone."""
    text = (text or "").strip()
    if _ISO.match(text):
        try:
            value = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            value = None
        if value is not None:
            return (value if value.tzinfo else value.replace(tzinfo=SHANGHAI)).isoformat()
    found = dates_in(text)
    return found[0][1] if found else ""
