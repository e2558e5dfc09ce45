"""HTML page -> article fields: readability-lxml finds the body, our rules the metadata.

readability-lxml was chosen by measurement on the human-labelled pages (BENCHMARKS.md):
best body F1 of the libraries tried, and the fastest. Title, time and author come from
meta tags and Chinese byline patterns (``metadata.py``), which no library got right.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

import lxml.html
from lxml.etree import ParserError
from readability import Document

from news_crawler.defaults import IMAGES_MAX
from news_crawler.extraction import readability_speed  # noqa: F401,I001 - readability made faster, the same output
from news_crawler.extraction.chrome import (
    is_chrome,
    is_paragraph,
    labelled_lead,
    same_headline,
    strip_chrome,
    with_lead_above,
)
from news_crawler.extraction.densest import densest_block
from news_crawler.extraction.markup import shallow
from news_crawler.extraction.media import find_description, find_images, find_tags, find_updated_at
from news_crawler.extraction.metadata import (
    find_author,
    find_contributors,
    find_editor,
    find_source,
    meta_content,
    near_article,
)
from news_crawler.extraction.pagination import page_of
from news_crawler.extraction.posts import first_post, fragment
from news_crawler.extraction.published import find_published_at, in_zone_of, not_ahead
from news_crawler.extraction.structured import linked_data
from news_crawler.extraction.title import find_outlet, find_title, headline_in_body, headline_over_story
from news_crawler.extraction.traditional import as_written, is_traditional, with_simplified_labels

_BLOCK = (
    "p",
    "div",
    "br",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "li",
    "tr",
    "td",
    "th",
    "section",
    "article",
    "blockquote",
    "pre",
    "center",
    "dt",
    "dd",
    "header",
    "footer",
    "figcaption",
    "address",
    "caption",
    "title",  # of a page with no <body>, where it stands among the text (a line of its own)
)
_DROP = ("script", "style", "noscript", "template", "iframe", "svg")
_BLANKS = re.compile(r"[ \t\u3000\xa0]+")

# readability logs every candidate it scores at INFO.
logging.getLogger("readability.readability").setLevel(logging.WARNING)


@dataclass
class Article:
    title: str = ""
    author: str = ""  # the reporters: never the editor, a correspondent, an outlet or a photographer
    published_at: str = ""
    body: str = ""
    editor: str = ""
    source: str = ""
    contributors: str = ""  # correspondents and interns (通讯员, 实习生), space-separated
    images: list[dict[str, str]] = field(default_factory=list)  # {"url", "caption"} each, in order
    description: str = ""
    tags: list[str] = field(default_factory=list)
    updated_at: str = ""  # ISO 8601, when the page states a modification
    outlet: str = ""  # the outlet whose page it is (og:site_name, the site's name in <title>)


def block_text(el: lxml.html.HtmlElement) -> str:
    """Text of an element with one line per paragraph (block elements end lines)."""
    for tag in el.iter(*_BLOCK):
        tag.tail = "\n" + (tag.tail or "")
    lines = (_BLANKS.sub(" ", line).strip() for line in el.text_content().splitlines())
    return "\n".join(line for line in lines if line)


# Inline elements a byline is made of: "<cite>新华社</cite><span>文/王小红</span>" reads as two words.
_TOUCHING = ("span", "cite", "time", "em", "a", "label", "font", "i", "b", "strong", "small")


def page_text(page: lxml.html.HtmlElement) -> str:
    """``block_text`` of a whole page for its metadata, with a space between inline elements
    that touch, so that a byline's parts do not run into each other."""
    for el in page.iter(*_TOUCHING):
        following = el.getnext()
        if not el.tail and following is not None and following.tag in _TOUCHING:
            el.tail = " "
    # A page with no <body> (markup wrapped in an element of its own): its <title> is not shown.
    titles = [(el, el.text) for el in page.iter("title")]
    for el, _ in titles:
        el.text = None
    text = block_text(page)
    for el, shown in titles:
        el.text = shown
    return text


def _parse(html: str) -> lxml.html.HtmlElement | None:
    try:
        root = lxml.html.fromstring(html)
    except (ParserError, ValueError):
        return None
    for el in list(root.iter(*_DROP)):
        el.drop_tree()
    return root


def _readability(html: str) -> str:
    try:
        summary = Document(html).summary(html_partial=True)
    except Exception:  # noqa: BLE001 - readability raises bare Exceptions on odd pages
        return ""
    root = _parse(summary) if summary.strip() else None
    return block_text(root) if root is not None else ""


def _sections_as_divs(html: str) -> str:
    root = _parse(html)
    if root is None:
        return ""
    for el in root.iter("section"):
        el.tag = "div"
    return lxml.html.tostring(root, encoding="unicode")


_SENTENCE_END = re.compile(r"[。！？]")
SHORT_BODY = 200  # characters: below this readability may have missed the article
SHORT_STORY = 50  # characters: the shortest story looked for when readability found nothing
LATER_PAGE = 20  # characters: the least text of an article's later page (its last lines)


# The button of a story folded on a mobile page: the rest is in the page, hidden until tapped.
_UNFOLD = ("展开全文", "展开阅读全文")  # (点击展开全文 too; not 阅读全文, a list's link to a story)
_HIDDEN = re.compile(r"(?:^|;)\s*+(?:display\s*+:\s*+none|visibility\s*+:\s*+hidden)", re.IGNORECASE)


def _unfolded(html: str) -> str:
    """``html`` with the story's folded part shown, when the page has a button to unfold
    it (展开全文): readability drops what is hidden, and the story's second half with it.
    Only hidden blocks of prose (two sentences or more) are shown; a hidden menu, template or
    pop-up stays hidden."""
    if not any(button in html for button in _UNFOLD):
        return html
    root = _parse(html)
    if root is None:
        return html
    shown = False
    for el in root.xpath("//*[@style or @hidden]"):
        hidden = el.get("hidden") is not None or _HIDDEN.search(el.get("style") or "")
        if hidden and len(_SENTENCE_END.findall(el.text_content())) >= 2:
            el.attrib.pop("hidden", None)
            el.set("style", _HIDDEN.sub("", el.get("style") or ""))
            shown = True
    return lxml.html.tostring(root, encoding="unicode") if shown else html


def extract_body(html: str) -> str:
    """readability's body (a story folded behind 展开全文 unfolded first). Pages that build
    the article of ``<section>`` elements (WeChat and other editors) give readability no
    paragraphs to score: when the body comes out short, it reads them again as ``<div>``s."""
    html = _unfolded(html)
    if "<section" in html:
        html = _sections_as_divs(html) or html
    return _readability(html)


def story_under_headline(text: str, title: str, body: str) -> str:
    """The page's own story where readability took another: ``body`` unless paragraphs of
    prose (two or more, ``SHORT_STORY`` characters) stand in the page's ``text`` between the
    headline and ``body``'s first line. Run straight into ``body``, they are its first part,
    put back; parted from it by lines that are no prose (推荐阅读, another story's headline
    and account), they are the story, and ``body`` is a story recommended under it."""
    lines = [line for line in (" ".join(x.split()) for x in text.splitlines()) if line]
    first = next((" ".join(x.split()) for x in body.splitlines() if x.strip()), "")
    heads = [i for i, line in enumerate(lines) if same_headline(line, title)]
    if not heads or not first or first not in lines[heads[0] + 1 :]:
        return body
    start = lines.index(first, heads[0] + 1)
    head = max(i for i in heads if i < start)
    prose = [i for i in range(head + 1, start) if is_paragraph(lines[i]) and not is_chrome(lines[i], title)]
    if len(prose) < 2 or sum(len(lines[i]) for i in prose) < SHORT_STORY:
        return body
    run = "\n".join(lines[prose[0] : prose[-1] + 1])
    parted = any(not is_chrome(lines[i], title) for i in range(prose[-1] + 1, start))
    return run if parted else f"{run}\n{body}"


def _densest_text(page: lxml.html.HtmlElement, body: str, later: bool = False) -> str:
    """The text of the block with the most text of its own (``densest.py``), where it reads
    as the story:

    - where readability's ``body`` holds a sentence, 200 characters of it;
    - where it holds none (nothing, or a sidebar's few words), a short story's 50 in two
      sentences or more, or 100 with a sentence's end (a reprint cut short; a footer or a
      menu has none);
    - on a ``later`` page of an article, whose last lines may be few, 20 with a sentence's end
      where ``body`` has none (a menu).

    With ``body`` when one element holds both and little else (a short story whose paragraphs
    stand in two blocks, the second folded behind 展开全文)."""
    sentence = bool(_SENTENCE_END.search(body))
    later = later and not sentence
    block = densest_block(page, SHORT_BODY if sentence else LATER_PAGE if later else SHORT_STORY)
    if block is None:
        return ""
    text = block_text(block)
    ends = len(_SENTENCE_END.findall(text))
    if later and not ends:
        return ""
    if (
        not sentence
        and not later
        and not (len(text) >= SHORT_BODY or ends >= 2 or ends and len(text) >= 2 * SHORT_STORY)
    ):
        return ""
    together = _holding_both(block, body) if body.strip() and text not in body else None
    return block_text(together) if together is not None else text


_WS = re.compile(r"\s+")


def _prose_beside_table(page: lxml.html.HtmlElement, body: str) -> str:
    """When readability's ``body`` is a table of cells (not one sentence in it: a notice's
    table of courses and teachers) and the page's densest block is prose beside it (the
    notice's text in a cell of its own), the text of the element holding both, if it holds
    little else; else ``body``."""
    if _SENTENCE_END.search(body):
        return body
    block = densest_block(page, SHORT_BODY)
    prose = block_text(block) if block is not None else ""
    if len(_SENTENCE_END.findall(prose)) < 3:
        return body
    holder = _holding_both(block, body) if block is not None else None
    return block_text(holder) if holder is not None else body


def _holding_both(block: lxml.html.HtmlElement, body: str) -> lxml.html.HtmlElement | None:
    """The lowest element above ``block`` that holds ``body`` too (its first and last words),
    if it holds little else: not one half again as much text as the two (else the page, or a
    good part of it: not the article's element)."""
    text, own = _WS.sub("", body), _WS.sub("", block.text_content())
    head, tail = text[:20], text[-20:]
    for holder in block.iterancestors():
        held = _WS.sub("", holder.text_content())
        if len(held) > 1.5 * (len(text) + len(own)):
            return None
        if head in held and tail in held:
            return holder
    return None


# An XHTML page's prolog: lxml refuses a decoded string that still declares an encoding.
_XML_DECLARATION = re.compile(r"^\ufeff?\s*+<\?xml[^<>]*?\?>")


_IMG = re.compile(r"<img\b[^>]*+>", re.I)
IMAGES_READ = 1000  # <img> tags of a page parsed, at most: an image holds no text, and a page may hold 100,000


def _surplus_images_out(html: str) -> str:
    """``html`` without its ``<img>`` tags past the first ``IMAGES_READ`` (every parse and
    walk of the page then costs what an ordinary page's does)."""
    kept = 0

    def one(match: re.Match[str]) -> str:
        nonlocal kept
        kept += 1
        return match.group(0) if kept <= IMAGES_READ else ""

    return _IMG.sub(one, html)


def extract_article(html: str, url: str = "", paged: bool = False, images_max: int = IMAGES_MAX) -> Article:
    """Title, author, published_at (ISO 8601) and plain-text body of an article page (HTML,
    or XHTML with its ``<?xml ...?>`` prolog). Fields that cannot be found are empty
    strings; nothing raises on odd HTML. ``paged``: the article goes on to a next page (its
    text here may be short, as on a later page, ``url`` numbered 2, 3...)."""
    html = shallow(_surplus_images_out(_XML_DECLARATION.sub("", html or "", count=1)))
    if not html.strip():
        return Article()
    linked = linked_data(html)  # before _parse drops the scripts
    root = _parse(html)
    if root is None:
        return Article()
    page = root.find("body")
    text = page_text(page if page is not None else root)
    title = find_title(root, text)
    linked = linked.about(title)
    body = extract_body(html)
    if len(body) < SHORT_BODY:  # readability may have dropped the article's table
        later = paged or (bool(url) and page_of(url)[1] > 1)  # one page of several: its text may be short
        body = max(body, _densest_text(page if page is not None else root, body, later), key=len)
    if len(body) < SHORT_BODY and len(linked.body) > len(body):  # a page its script draws: JSON-LD's articleBody
        body = linked.body
    if body:
        body = _prose_beside_table(page if page is not None else root, body)
    post = first_post(root, body)
    if post is not None:
        body = extract_body(fragment(post)) or body
    title, body = headline_in_body(title, text, body)
    title = headline_over_story(root, title, text, body)
    body = story_under_headline(text, title, body)
    body = with_lead_above(body, text, title)
    traditional = is_traditional(text)
    # Traditional characters: the rules read the labels as simplified ones, and what they
    # find is taken back from the page's own text.
    text_, title_, body_ = (
        (with_simplified_labels(x) for x in (text, title, body)) if traditional else (text, title, body)
    )
    links = frozenset(text for text in ("".join(a.text_content().split()) for a in root.iter("a")) if len(text) >= 2)
    clean_ = strip_chrome(body_, title_, meta_content(root, ("description", "og:description")), links)
    clean = "\n".join(as_written(line, body_, body) for line in clean_.split("\n")) if traditional else clean_

    def written(found: str) -> str:
        return as_written(found, text_, text) if traditional else found

    source_ = find_source(root, text_, title_, clean_)
    editor_ = find_editor(text_, title_, clean_)
    published_at = find_published_at(root, text_, title_, clean_, linked.published, html)
    return Article(
        title=title,
        author=written(find_author(root, text_, title_, clean_, linked.author, source_, editor_)),
        published_at=published_at,
        body=clean,
        editor=written(editor_),
        source=written(source_),
        contributors=written(find_contributors(text_, title_, clean_)),
        images=find_images(root, clean, url, title, images_max),
        description=find_description(
            root, linked.description, written(labelled_lead(clean_)), f"{title}\n{clean}", title
        ),
        tags=find_tags(root, near_article(text_, title_, clean_), linked.keywords, f"{title}\n{clean}"),
        updated_at=not_ahead(in_zone_of(find_updated_at(root, text_, linked.modified), published_at)),
        outlet=find_outlet(root, title),
    )
