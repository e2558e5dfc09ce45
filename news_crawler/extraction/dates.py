"""Publication times as pages write them, to ISO 8601 (Asia/Shanghai when no zone is given)."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

SHANGHAI = timezone(timedelta(hours=8), "Asia/Shanghai")

# 2022-02-13 07:48[:00], 2022/2/13 7:48, 2022.02.13, 2022年2月13日 07:48, 2022年02月13日07时48分
DATETIME = re.compile(
    r"(?<!\d)(?P<y>(?:19|20)\d\d)\s*(?:[-/.]|年)\s*(?P<m>1[0-2]|0?[1-9])\s*(?:[-/.]|月)\s*"
    r"(?P<d>3[01]|[12]\d|0?[1-9])(?!\d)\s*日?"
    r"(?:\s*(?:T|星期.|周.)?\s*(?P<H>[01]?\d|2[0-3])\s*(?::|时)\s*(?P<M>[0-5]\d)(?!\d)"
    r"(?:\s*(?::|分)\s*(?P<S>[0-5]\d)(?!\d))?)?"
)
_ISO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?$")


def iso_from_match(m: re.Match) -> str:
    """``2022-02-13T07:48:00+08:00``, or ``2022-02-13`` when the page gives no time of day."""
    y, mo, d = int(m["y"]), int(m["m"]), int(m["d"])
    if m["H"] is None:
        return datetime(y, mo, d).date().isoformat()
    return datetime(y, mo, d, int(m["H"]), int(m["M"]), int(m["S"] or 0), tzinfo=SHANGHAI).isoformat()


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
    m = DATETIME.search(text)
    if m is None:
        return ""
    try:
        return iso_from_match(m)
    except ValueError:  # 2月30日
        return ""
