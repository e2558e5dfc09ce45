"""Elements read out of raw markup without a parser, in one pass.

``<a …>(.*?)</a>`` scans from every opener to its closer: on a page of a hundred thousand
openers and no closer that is a scan to the page's end for each one. ``elements`` finds
every opener and every closer once, and pairs them by position, as ``findall`` would (an
opener inside an element's text is part of that text).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from urllib.parse import urljoin

# A tag: "<" to the next ">", no "<" inside (a stray "<" starts the next tag instead of
# making every later "<" scan to the next ">").
TAG = re.compile(r"<[^<>]++>")


def elements(markup: str, opener: re.Pattern[str], closer: re.Pattern[str]) -> Iterator[tuple[re.Match[str], str]]:
    """Each ``opener`` match with the text up to the first ``closer`` after it, in order,
    not overlapping; an opener with no closer after it ends the search."""
    closers = [m.span() for m in closer.finditer(markup)]
    starts = [start for start, _ in closers]
    resume = 0
    for m in opener.finditer(markup):
        if m.start() < resume:
            continue  # inside the element before
        i = bisect_left(starts, m.end())
        if i == len(closers):
            return
        yield m, markup[m.end() : closers[i][0]]
        resume = closers[i][1]


# Elements an HTML parser never closes by itself: a page can nest them as deep as it likes.
_CONTAINERS = ("div", "span", "section", "article", "font", "center", "blockquote", "table", "ul", "ol", "form")
_CONTAINER_TAG = re.compile(r"<(/?)(" + "|".join(_CONTAINERS) + r")\b[^<>]*+>", re.I)
MAX_DEPTH = 180  # libxml2 gives up past 256 levels and keeps nothing of what lies deeper


def shallow(html: str, max_depth: int = MAX_DEPTH) -> str:
    """``html`` with the container elements nested deeper than ``max_depth`` unwrapped: their
    tags go, their text stays, so that a page of 200,000 nested ``<div>`` still gives its
    story (a parser keeps nothing past its depth limit)."""
    if sum(html.count(f"<{name}") for name in _CONTAINERS) <= max_depth:
        return html  # cannot be that deep (upper case aside, which a page this deep would need)
    parts: list[str] = []
    depth, unwrapped, last = 0, dict.fromkeys(_CONTAINERS, 0), 0
    for m in _CONTAINER_TAG.finditer(html):
        name = m.group(2).lower()
        if m.group(1):  # a closing tag: one of the unwrapped ones first
            if unwrapped[name]:
                unwrapped[name] -= 1
                parts.append(html[last : m.start()])
                last = m.end()
            else:
                depth = max(0, depth - 1)
        elif depth >= max_depth:
            unwrapped[name] += 1
            parts.append(html[last : m.start()])
            last = m.end()
        else:
            depth += 1
    if not parts:
        return html
    parts.append(html[last:])
    return "".join(parts)


def join_url(base: str, link: str) -> str | None:
    """``link`` read against ``base`` as ``urljoin`` reads it, or None when either cannot be
    split into a URL's parts (a broken IPv6 host: ``http://[::1/x``): a page's bad link is
    one link refused, never an exception that loses the rest of the page."""
    try:
        return urljoin(base, link)
    except ValueError:
        return None
