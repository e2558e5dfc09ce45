"""The labelled real pages: cwced's human labels, and ours for the gne pages.

Our labels (``benchmarks/labels/gne.json``, format and rules in ``labels/README.md``) do
not copy the pages' text: a body is given by its first and last lines and the lines to
leave out, and read from the page in ``../shared/data/pages/gne`` by ``page_lines``, a
plain rendering of the page (no scripts or styles, a line per block element) that owes
nothing to the extractor being measured.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import lxml.html

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: news_mirror lives there
from news_crawler.extraction.decode import decode_html  # noqa: E402
from news_mirror.data import FULL_DATA, Data  # noqa: E402

GNE_LABELS = Path(__file__).resolve().parent / "labels" / "gne.json"
_BLOCKS = (
    "p",
    "div",
    "br",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "li",
    "tr",
    "section",
    "article",
    "blockquote",
    "pre",
    "table",
)
_BLANKS = re.compile(r"[ \t\u3000\xa0]+")


def page_lines(html: str) -> list[str]:
    """The page's text, a line per block element, blanks collapsed, empty lines out."""
    root = lxml.html.fromstring(html)
    for el in list(root.iter("script", "style", "noscript", "template")):
        el.drop_tree()
    body = root.find("body")
    top = body if body is not None else root
    for el in top.iter(*_BLOCKS):
        el.tail = "\n" + (el.tail or "")
    lines = (_BLANKS.sub(" ", line).strip() for line in top.text_content().splitlines())
    return [line for line in lines if line]


def labelled_body(lines: list[str], label: dict) -> str:
    """The lines from the one starting with ``from`` to the next starting with ``to``,
    without those starting with one of ``drop``."""
    start = next(i for i, line in enumerate(lines) if line.startswith(label["from"]))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith(label["to"]))
    return "\n".join(line for line in lines[start : end + 1] if not line.startswith(tuple(label["drop"])))


def gne_pages(data: Data = FULL_DATA) -> list[tuple[dict, str]]:
    """(label, html) of each page we labelled; the label in cwced's shape (``content``,
    ``author`` and ``date`` "UNKNOWN" where the page gives none) plus ``layout``."""
    out = []
    for label in json.loads(GNE_LABELS.read_text(encoding="utf-8")):
        html = decode_html(data.require().page(data.gne, label["page"]))[0]
        out.append(
            (
                {
                    "id": label["page"],
                    "layout": label["layout"],
                    "html_title": label["title"],
                    "author": label["author"] or "UNKNOWN",
                    "date": label["date"] or "UNKNOWN",
                    "content": labelled_body(page_lines(html), label),
                },
                html,
            )
        )
    return out


def cwced_pages(data: Data = FULL_DATA) -> list[tuple[dict, str]]:
    labels = data.require().cwced_labels()
    return [(x, decode_html(data.page(data.cwced, x["html"]))[0]) for x in labels]


FIELDS_LABELS = Path(__file__).resolve().parent / "labels" / "fields.json"


def fields_pages(data: Data = FULL_DATA) -> list[tuple[dict, str]]:
    """(label, html) of each page of ``labels/fields.json``: images, description, tags, updated_at."""
    return [
        (label, decode_html(data.require().page(data.gne, label["page"]))[0])
        for label in json.loads(FIELDS_LABELS.read_text(encoding="utf-8"))
    ]
