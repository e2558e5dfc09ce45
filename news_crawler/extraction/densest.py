"""The block holding the most text of its own: the article when readability finds none.

readability scores a table cell for its parent row and table, then removes the whole table
when links make up a fifth of its text. An older site's page that is one table (menu row,
the article's cell of ``<br>`` lines, previous/next and related links) comes out empty when
its story is short next to the links around it. The article is still the one element with
the most text that is not in a link and not in a block of its own: a cell's text and the
tails of its ``<br>``s, ``<font>``s and ``<span>``s.
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

_WS = re.compile(r"\s+")
# Elements whose text belongs to the block around them.
_INLINE = frozenset(
    (
        "br",
        "font",
        "b",
        "strong",
        "span",
        "em",
        "i",
        "u",
        "small",
        "big",
        "sup",
        "sub",
        "img",
        "center",
        "label",
        "nobr",
        "wbr",
    )
)
# A paragraph, or inline text, is part of the block around it.
_PART = _INLINE | {"p", "a"}


def _chars(text: str | None) -> int:
    return len(_WS.sub("", text)) if text else 0


def _own_chars(el: HtmlElement) -> int:
    n = _chars(el.text)
    for child in el:
        if isinstance(child.tag, str) and child.tag in _INLINE:
            n += _chars(child.text_content()) - sum(_chars(a.text_content()) for a in child.iter("a"))
        n += _chars(child.tail)
    return n


def densest_block(root: HtmlElement, min_chars: int) -> HtmlElement | None:
    """The element (a block, never a paragraph or inline text) whose own text, links and
    nested blocks left out, is longest; None when that is under ``min_chars`` characters."""
    best, best_n = None, min_chars - 1
    for el in root.iter():
        if not isinstance(el.tag, str) or el.tag in _INLINE or el.tag == "a":
            continue
        n = _own_chars(el)
        if n > best_n:
            best, best_n = el, n
    while best is not None and best.tag in _PART and best.getparent() is not None:
        best = best.getparent()
    return best
