"""Blog and forum pages list several posts in containers of one shape, each with its own
date: a blog's latest entries, a thread's floors. readability scores them as one article
(or picks a reply); the page's article is the first post.

The container readability chose is found in the page by its longest line; from there up,
the first level whose parent holds two or more children of the same shape (tag and
attributes), the first two of them posts, names the post to keep. A post is a block (not
a ``<p>``) with 100+ characters of text that is not links and a date on a short run of text
of its own (its header's "发表于 2005-09-15 10:22"). Paragraphs of a
news story never qualify, even the ones that tell a date: a ``<p>``, or a block whose date
stands inside a sentence; nor do inline elements (a word processor's ``<span>`` runs
cutting one paragraph).
"""

from __future__ import annotations

import re

import lxml.html
from lxml.html import HtmlElement

from news_crawler.extraction.dates import DATETIME

_WS = re.compile(r"\s+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")  # no XPath string holds them
_UNSHAPED = {"id", "name", "style", "href", "src", "onclick", "title"}  # differ post to post
POST_MIN_CHARS = 100
HEADER_MAX_CHARS = 60  # a post's dated header line; a story's sentence that tells a date runs longer
POST_MIN_PLAIN = 0.6  # share of a post's text outside links
MAX_LEVELS = 12
_INLINE = {"span", "font", "a", "b", "strong", "em", "i", "u", "small", "big", "sub", "sup", "label", "abbr", "cite"}
# A fragment readability can parse on its own needs its table or list around it.
_WRAP = {"tr": "<table>{}</table>", "td": "<table><tr>{}</tr></table>", "li": "<ul>{}</ul>"}


def _shape(el: HtmlElement) -> tuple:
    return el.tag, tuple(sorted((k, v) for k, v in el.attrib.items() if k not in _UNSHAPED))


def _chars(text: str) -> int:
    return len(_WS.sub("", text))


def _is_post(el: HtmlElement) -> bool:
    if el.tag == "p":
        return False  # a story's paragraph, not a post with a header
    text = el.text_content()
    total = _chars(text)
    plain = total - sum(_chars(a.text_content()) for a in el.iter("a"))
    return plain >= POST_MIN_CHARS and plain >= POST_MIN_PLAIN * total and _dated_header(el)


def _dated_header(el: HtmlElement) -> bool:
    """A date on a short run of text of its own (a post's header), not inside a sentence."""
    return any(len(t.strip()) <= HEADER_MAX_CHARS and DATETIME.search(t) for t in el.itertext())


def _holder(root: HtmlElement, line: str) -> HtmlElement | None:
    """The element whose own text (its ``text`` or a child's ``tail``) holds ``line``."""
    runs = _CONTROL.sub(" ", line).split()
    if not runs:
        return None
    probe = max(runs, key=len)[:12]  # a run without spaces stands verbatim in the page
    key = _WS.sub("", line)[:20]
    for t in root.xpath("//text()[contains(., $probe)]", probe=probe):
        if key in _WS.sub("", t):
            el = t.getparent()
            return el.getparent() if t.is_tail else el
    return None


def first_post(root: HtmlElement, body: str) -> HtmlElement | None:
    """The first post of a page of posts around ``body`` (readability's choice), else None."""
    lines = [line for line in body.split("\n") if line.strip()]
    el = _holder(root, max(lines, key=len)) if lines else None
    if el is None:
        return None
    limit = 3 * _chars(body) + 200  # above this the climb has left readability's container
    for _ in range(MAX_LEVELS):
        parent = el.getparent()
        if parent is None or _chars(el.text_content()) > limit:
            return None
        shape = _shape(el)
        same = [c for c in parent if isinstance(c.tag, str) and _shape(c) == shape]
        if el.tag not in _INLINE and len(same) >= 2 and _is_post(same[0]) and _is_post(same[1]):
            return same[0]
        el = parent
    return None


def fragment(el: HtmlElement) -> str:
    """``el`` as HTML a parser reads on its own."""
    return _WRAP.get(el.tag, "{}").format(lxml.html.tostring(el, encoding="unicode"))
