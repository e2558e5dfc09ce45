"""Articles split over several pages: which page of its article a URL is, and where a page's
next page is.

Chinese portals number an article's pages as ``story_2.shtml`` (``story.shtml`` is the
first) or ``story.html?page=2`` (also ``p=``, ``pageno=``, ``pn=``), and link the next one
as 下一页. A link to a page of the same article with the next number, or a 下一页 link to
one, is the next page; 下一篇 (the next article) never is. A 下一页 link in a CMS's own
numbering (TRS's ``t…_1.html`` for page 2, ``article-N-2.html``, ``slug/2/``,
``?pageindex=2``) is followed too. The pages' bodies join into one,
without the lines heading a later page that the pages before already hold.
"""

from __future__ import annotations

import html as html_lib
import re
from itertools import product
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from news_crawler.extraction.markup import TAG, elements, join_url

_NUMBERED = re.compile(r"^(?P<stem>.+?)_(?P<n>[1-9]\d{0,2})(?P<ext>\.s?html?)$", re.I)  # not 2024_05.html
_PAGE_PARAMS = ("page", "p", "pageno", "pn", "pg")
_NEXT_WORDS = ("下一页", "下页", "下一頁", "后一页", "next page", "next")
_ANCHOR_OPEN = re.compile(r"<a\b([^<>]*+)>", re.I)
_ANCHOR_CLOSE = re.compile(r"</a\s*+>", re.I)
_HREF = re.compile(r"""\bhref\s*+=\s*+(?:"([^"]*+)"|'([^']*+)'|([^\s>]++))""", re.I)


def page_of(url: str) -> tuple[str, int]:
    """``(the URL of the article's first page, this page's number)``; 1 for a first page."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    for i, (key, value) in enumerate(query):
        if key.lower() in _PAGE_PARAMS and value.isdigit():
            rest = urlencode(query[:i] + query[i + 1 :])
            return urlunsplit(parts._replace(query=rest, fragment="")), max(int(value), 1)
    m = _NUMBERED.match(parts.path)
    if m and 2 <= int(m["n"]) <= 999:
        return urlunsplit(parts._replace(path=m["stem"] + m["ext"], fragment="")), int(m["n"])
    return urlunsplit(parts._replace(fragment="")), 1


def _anchors(html: str, base: str):
    for opener, inner in elements(html, _ANCHOR_OPEN, _ANCHOR_CLOSE):
        href = _HREF.search(opener.group(1))
        if href:
            target = html_lib.unescape(next(g for g in href.groups() if g is not None)).strip()
            joined = join_url(base, target) if not target.lower().startswith(("javascript:", "#", "mailto:")) else None
            if target and joined:
                text = html_lib.unescape(TAG.sub("", inner)).strip().lower()
                yield joined, text


_CJK_HINTS = ("下一页", "下页", "下一頁", "后一页")


def _may_have_next(page: str | bytes, encoding: str, first: str, number: int) -> bool:
    """A quick look before reading every link of the page: substring searches, on the raw
    bytes when given (ten times faster than on the decoded text)."""
    stem = urlsplit(first).path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    hints = [
        f"{stem}_{number + 1}.",
        ">next",
        ">Next",
        ">NEXT",
        *(f"{p}={number + 1}" for p in _PAGE_PARAMS),
        *_CJK_HINTS,
    ]
    if isinstance(page, bytes):
        return any(hint.encode(encoding, "ignore") in page for hint in hints)
    return any(hint in page for hint in hints)


def next_page(html: str, url: str, raw: bytes | None = None, encoding: str = "") -> str | None:
    """The URL of the next page of the article ``url`` shows, or None; ``raw`` and
    ``encoding``, the page's bytes and how they were decoded, make the common no-answer fast."""
    first, number = page_of(url)
    ascii_compatible = encoding and "16" not in encoding and "32" not in encoding
    if not _may_have_next(raw if raw is not None and ascii_compatible else html, encoding, first, number):
        return None
    for target, text in _anchors(html, url):
        target_first, target_number = page_of(target)
        if target_first != first or target_number != number + 1:
            continue
        if text in _NEXT_WORDS or text == str(number + 1) or text.startswith("下一页"):
            return target
    return _next_in_another_numbering(html, url)


_SIBLING_PATH = re.compile(r"^(?P<stem>.+?)[_-](?P<n>\d{1,3})(?P<ext>\.\w{2,5})$|^(?P<dir>.+/)(?P<d>\d{1,3})/?$")
_SIBLING_MAX = 50  # an article has no more pages than this: a bigger number is another article


def _siblings(url: str) -> list[tuple[tuple[str, ...], int]]:
    """How ``url`` may read as a page of an article: the URL without its page's number, and
    the number (t1_5_1.html: TRS numbers pages from 0; article-123-2.html: Discuz; slug/2/:
    WordPress; ?pageindex=2); always the URL itself as a first page (show_12.html may be
    article 12), numbered 0."""
    parts = urlsplit(url)
    readings: list[tuple[tuple[str, ...], int]] = [((parts.netloc, parts.path, parts.query), 0)]
    query = parse_qsl(parts.query, keep_blank_values=True)
    for i, (key, value) in enumerate(query):
        if "page" in key.lower() and value.isdigit():
            readings.append(((parts.netloc, parts.path, urlencode(query[:i] + query[i + 1 :])), int(value)))
    m = _SIBLING_PATH.match(parts.path)
    if m:
        path = m["stem"] + m["ext"] if m["ext"] else m["dir"]
        readings.append(((parts.netloc, path, parts.query), int(m["n"] or m["d"])))
    return readings


def _next_in_another_numbering(html: str, url: str) -> str | None:
    """A 下一页 link to this article's next page where its CMS numbers pages its own way:
    the same URL but for a page number one up (from none: 1 or 2), never a big one."""
    if not any(word in html for word in _CJK_HINTS):
        return None
    here = _siblings(url)
    for target, text in _anchors(html, url):
        if text.startswith(_CJK_HINTS):
            for (target_key, target_number), (key, number) in product(_siblings(target)[1:], here):
                if (
                    target_key == key
                    and target_number <= _SIBLING_MAX
                    and (target_number == number + 1 or (number == 0 and target_number == 2))
                ):
                    return target
    return None


def joined_pages(before: str, page: str) -> str:
    """The body of an article's pages so far, ``before``, with a later ``page``'s body: the
    lines heading it that the pages before already hold (a summary box, lead or byline
    every page repeats; a summary's "..." left out) are not taken twice. From its first new
    line on, the page is kept whole: a story may quote a paragraph twice."""
    seen = "".join(before.split())
    lines = page.split("\n")
    while lines and (key := "".join(lines[0].split()).rstrip(".…")) and key in seen:
        lines.pop(0)
    return "\n".join(p for p in (before, "\n".join(lines)) if p)
