"""What a page states about its article in markup rather than in words: schema.org JSON-LD
(``datePublished``, ``author`` of the object that gives the article's ``headline``) and an
element marked as the author (``class="author"``, ``itemprop="author"``, ``rel="author"``)
holding a bare name in the byline; the publication time microdata gives
(``itemprop="datePublished"``) or a byline's ``<time datetime>`` ("3天前" as it shows)."""

from __future__ import annotations

import html as html_lib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from lxml.html import HtmlElement

from news_crawler.extraction.markup import TAG, elements

_LD_SCRIPT = re.compile(r"<script\b[^<>]*?\btype\s*+=\s*+[\"']?application/ld\+json[\"']?[^<>]*+>", re.I)
_SCRIPT_CLOSE = re.compile(r"</script\s*+>", re.I)
_ARTICLE_TYPES = {
    "newsarticle",
    "article",
    "reportagenewsarticle",
    "analysisnewsarticle",
    "blogposting",
    "socialmediaposting",
    "webpage",
    "report",
    "backgroundnewsarticle",
    "opinionnewsarticle",
}
# A class or id word naming the author: author, article-author, author_name, authorName, zuozhe
# (not authorized, not a profile box's author-meta or author-posts: those are checked by
# where the name stands, see marked_author).
_MARKED = re.compile(r"(?:^|[\s_-])(?:author|writer|zuozhe|reporter|byline)(?:$|[\s_-]|Name|name)", re.I)
_NOT_MARKED = re.compile(r"avatar|img|pic|photo|icon|follow|desc|intro|more|list|editor|bio|posts?\b|count", re.I)
_LABEL = re.compile(r"^(?:作者|撰稿|撰文|文|记者|本报记者|by)\s*+[:：/｜|]?+\s*+", re.I)
_NAME = re.compile(
    r"[\u4e00-\u9fa5]{2,4}|[\u4e00-\u9fa5]{1,6}(?:·[\u4e00-\u9fa5]{1,6}){1,3}"
    r"|[A-Z][a-z]+(?:[ .·-][A-Z][a-z]+){1,3}"
)


@dataclass
class LinkedData:
    published: str = ""  # as written (parse_datetime reads it)
    author: str = ""
    headline: str = ""
    body: str = ""  # articleBody, as plain text (a page drawn by script may show nothing else)
    modified: str = ""  # dateModified, as written
    description: str = ""
    keywords: list[str] = field(default_factory=list)

    def about(self, title: str) -> LinkedData:
        """Itself where its headline is the page's (``title``), else nothing: a wiki page
        describes its subject ("韩国男艺人"), with the date the page was begun."""
        mine, theirs = "".join(self.headline.split()), "".join(title.split())
        same = bool(mine and theirs) and (mine[:10] in theirs or theirs[:10] in mine)
        return self if same else LinkedData()


def _objects(node: Any) -> list[dict]:
    """Every JSON object in a JSON-LD document, ``@graph`` members too, in document order."""
    if isinstance(node, list):
        return [o for item in node for o in _objects(item)]
    if not isinstance(node, dict):
        return []
    return [node, *_objects(node.get("@graph", []))]


def _types(obj: dict) -> set[str]:
    kind = obj.get("@type", "")
    return {str(k).lower() for k in (kind if isinstance(kind, list) else [kind])}


def _person(node: Any) -> str:
    """The first person's name an ``author`` value gives ("" for an organisation)."""
    for item in node if isinstance(node, list) else [node]:
        if isinstance(item, str) and item.strip():
            return item.strip()
        if isinstance(item, dict) and "organization" not in _types(item) and isinstance(item.get("name"), str):
            return item["name"].strip()
    return ""


def linked_data(html: str) -> LinkedData:
    """The article's ``datePublished`` (else ``dateCreated``) and author from the page's
    JSON-LD; a block that is not JSON is passed over."""
    found = LinkedData()
    for _, block in elements(html, _LD_SCRIPT, _SCRIPT_CLOSE):
        try:
            doc = json.loads(block.strip(), strict=False)
        except ValueError:
            continue
        for obj in _objects(doc):
            if not _types(obj) & _ARTICLE_TYPES or not isinstance(obj.get("headline"), str):
                continue  # not an article's own description (a wiki page's "name" only)
            if found.headline:
                continue  # the first article object describes the page
            when = obj.get("datePublished") or obj.get("dateCreated")
            body, modified, words = obj.get("articleBody"), obj.get("dateModified"), obj.get("keywords")
            found = LinkedData(
                when.strip() if isinstance(when, str) else "",
                _person(obj.get("author")),
                obj["headline"].strip(),
                _plain(body) if isinstance(body, str) else "",
                modified.strip() if isinstance(modified, str) else "",
                obj["description"].strip() if isinstance(obj.get("description"), str) else "",
                [words] if isinstance(words, str) else [w for w in words or [] if isinstance(w, str)],
            )
    return found


_BREAK = re.compile(r"<(?:br|/p|/div|/h[1-6]|/li)\b[^<>]*+>", re.I)


def _plain(body: str) -> str:
    """``articleBody`` as text: some sites put the article's markup there."""
    if "<" in body and ">" in body:
        body = html_lib.unescape(TAG.sub("", _BREAK.sub("\n", body)))
    return "\n".join(line.strip() for line in body.splitlines() if line.strip())


def marked_author(root: HtmlElement, byline: str) -> str:
    """The bare name in the first element the markup calls the author's (its class or id
    says author/writer, or ``itemprop``/``rel`` is author), a label before it taken off,
    that stands in ``byline`` (the text between the headline and the story: a sidebar's
    author box or a comment form's does not)."""
    for el in root.xpath(".//*[@class or @id or @itemprop or @rel]"):
        marks = " ".join(filter(None, (el.get("class"), el.get("id"))))
        if not (
            el.get("itemprop") == "author"
            or el.get("rel") == "author"
            or (_MARKED.search(marks) and not _NOT_MARKED.search(marks))
        ):
            continue
        text = " ".join(el.text_content().split())
        if len(text) > 30:
            continue
        name = _LABEL.sub("", text)
        if _NAME.fullmatch(name) and name in byline:
            return name
    return ""


_SOURCE_MARK = re.compile(r"(?:^|[\s_-])(?:source|media|laiyuan)(?:$|[\s_-]|Name|name)", re.I)
_SOURCE_LABEL = re.compile(r"^(?:来源|稿源|出处|source)\s*+[:：]?+\s*+", re.I)


def marked_source(root: HtmlElement, byline: str) -> str:
    """The outlet in the first element the markup calls the source (its class or id says
    source/media: ``<a class="source">参考消息</a>``), a label before it taken off, that
    stands in ``byline`` (the text between the headline and the story)."""
    for el in root.xpath(".//*[@class or @id]"):
        if not _SOURCE_MARK.search(" ".join(filter(None, (el.get("class"), el.get("id"))))):
            continue
        name = _SOURCE_LABEL.sub("", " ".join(el.text_content().split()))
        if 2 <= len(name) <= 20 and name in byline and any(c.isalpha() for c in name):
            return name
    return ""


def marked_time(root: HtmlElement, byline: str, html: str) -> str:
    """The time the markup gives: the value of the first ``itemprop="datePublished"``
    (``content``, ``datetime`` or its text), else the ``datetime`` of the first ``<time>``
    element shown in ``byline`` (the text under the headline; comments have theirs too).
    ``html`` is the page's source: a page that names neither is not searched."""
    if "datePublished" in html or "dateCreated" in html:
        for el in root.xpath(".//*[@itemprop='datePublished' or @itemprop='dateCreated']"):
            return (el.get("content") or el.get("datetime") or el.text_content()).strip()
    for el in root.iter("time") if "<time" in html else ():
        shown = " ".join(el.text_content().split())
        if el.get("datetime") and shown and shown in byline:
            return el.get("datetime").strip()
    return ""
