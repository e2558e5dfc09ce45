"""The headline of an article page."""

from __future__ import annotations

import re

from lxml.html import HtmlElement

from news_crawler.extraction.metadata import meta_content

# A separator and the spaces around it; a match starts where a run of spaces does.
_TITLE_SPLIT = re.compile(r"(?<!\s)\s*+(?:_|\||-{1,2}|–|—|丨)\s*+")
_BAR = re.compile(r"(?<!\s)\s*+[|丨｜]\s*+")
_WORD_HYPHEN = re.compile(r"[^\W_]-[^\W_]")  # letters or digits of any script on both sides: 卡迪-Ｂ, COVID-19


def find_title(root: HtmlElement, text: str = "") -> str:
    """The headline: an ``<h1>`` that the ``<title>`` contains, else og:title, else the
    ``<title>`` without its site suffix (``…_新浪网``); a hyphen inside a word (梅格-瑞恩)
    or a column's bar (直击|…) splits it only if the page's ``text`` does not show the
    longer headline as a line."""
    page_title = " ".join((root.findtext(".//title") or "").split())
    for h in root.iter("h1", "h2"):
        heading = " ".join(h.text_content().split())
        if 4 <= len(heading) <= 80 and (not page_title or heading[:8] in page_title):
            return heading
    og = meta_content(root, ("og:title",))
    if og:
        return og
    parts = [p for p in _TITLE_SPLIT.split(page_title) if p]
    best = max(parts[:2], key=len) if parts else page_title
    lines = {" ".join(line.split()) for line in text.splitlines()}
    if best in lines:
        return best
    column = _with_its_column(page_title, best, lines)
    if column or not _WORD_HYPHEN.search(page_title):
        return column or best
    # 梅格-瑞恩: a hyphen inside a name split the headline; the page shows it whole.
    first = _TITLE_SPLIT.search(page_title)
    if first and _WORD_HYPHEN.match(page_title, first.start() - 1):
        ends = [page_title] + [page_title[: m.start()] for m in reversed(list(_TITLE_SPLIT.finditer(page_title)))]
        return next((start for start in ends if start in lines), best)
    return best


def _with_its_column(page_title: str, best: str, lines: set[str]) -> str:
    """直击|…, 书记市长这一周 | …: ``best`` with the part of the ``<title>`` a bar joins to it
    on either side, where the page shows that as a line and not ``best`` alone."""
    shown = []
    for bar in _BAR.finditer(page_title):
        before, after = (
            _TITLE_SPLIT.split(page_title[: bar.start()])[-1],
            _TITLE_SPLIT.split(page_title[bar.end() :])[0],
        )
        if best in (before, after) and before and after:
            joined = page_title[bar.start() - len(before) : bar.end() + len(after)]
            shown += [joined] if " ".join(joined.split()) in lines else []
    return min(shown, key=len, default="")
