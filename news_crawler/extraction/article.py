"""HTML page -> article fields."""

from __future__ import annotations

from dataclasses import dataclass

import lxml.html

_DROP = ("script", "style", "noscript", "nav", "header", "footer", "aside", "form", "iframe")


@dataclass
class Article:
    title: str = ""
    author: str = ""
    published_at: str = ""
    body: str = ""


def extract_article(html: str, url: str = "") -> Article:
    """The text of a page without scripts, styles and navigation."""
    if not html.strip():
        return Article()
    root = lxml.html.fromstring(html)
    for el in root.iter(*_DROP):
        el.drop_tree()
    title = (root.findtext(".//title") or "").strip()
    lines = (line.strip() for line in root.text_content().splitlines())
    return Article(title=title, body="\n".join(line for line in lines if line))
