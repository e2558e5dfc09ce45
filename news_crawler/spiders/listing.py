"""What a start page is (an RSS or Atom feed, a sitemap or sitemap index, gzipped or not, or
an HTML or XHTML list page) and the links it holds.

A feed is told by its root element, not by an ``<?xml`` prolog: XHTML list pages start
with one too, and their links are ``<a href>`` like any HTML page's. Feed links are the
text of ``<link>``, ``<loc>``, ``<guid>`` and ``<id>`` (RSS, sitemaps) or the ``href`` of
``<link>`` (Atom); relative ones are read against the feed's URL.
"""

from __future__ import annotations

import gzip
import io
import re
import zlib
from collections.abc import Iterator
from urllib.parse import urlsplit

from lxml import etree
from scrapy.http import HtmlResponse, Response, TextResponse
from w3lib.url import safe_url_string

from news_crawler.extraction.decode import is_binary
from news_crawler.extraction.markup import join_url

PROLOG_BYTES = 65536  # where the root element must start: past a long DOCTYPE subset, not the whole page
FEED_ROOTS = {"rss", "feed", "urlset", "sitemapindex", "rdf:rdf", "rdf"}
# A DOCTYPE may hold an internal subset (<!DOCTYPE rss [<!ENTITY c "&#169;">]>): skipped as
# text, never parsed, so no entity is ever resolved and no external DTD fetched.
_PROLOG = re.compile(
    rb"\A(?:\xef\xbb\xbf)?\s*(?:(?:<\?[^>]*\?>|<!--.*?-->|<!DOCTYPE[^>\[]*(?:\[.*?\]\s*)?>)\s*)*"
    rb"<([A-Za-z][\w:.-]*)",
    re.S,
)
# <link> and <loc> hold links, relative ones too (read against the feed's URL); <guid> and
# <id> only when they are http(s) URLs (else an id: "urn:uuid:…", "5"); Atom's <link href>.
# One pattern, so that links come in document order without being collected first.
_FEED_LINK = re.compile(
    rb"""<link\b[^>]*?\bhref\s*=\s*["']([^"']+)["']"""
    rb"|<(?:link|loc)\b[^>]*>\s*(?:<!\[CDATA\[)?\s*([^<\s\]]+)"
    rb"|<(?:guid|id)\b[^>]*>\s*(?:<!\[CDATA\[)?\s*(https?://[^<\s\]]+)",
    re.I,
)


# A list page's link to its next page, by its text: 下一页, 下页, 后页, "next page", with arrows
# or brackets around (下一页>, [下一页], Next »), or a page number ([3]).
NEXT_LINK_TEXT = re.compile(r"^\W*(?:下一页|下页|后页|下一頁|next(?:\s+page)?|\d{1,4})\W*$", re.IGNORECASE)


def is_next_list_page(text: str, depth: int) -> bool:
    """A link's text names the next page of a list read ``depth`` pages from its start page:
    a next word, or the number one past it (the start page is page 1)."""
    number = text.strip(" \t\n[]【】()（）")
    return not number.isdigit() or int(number) == depth + 2


def root_element(body: bytes) -> str:
    """The lower-cased name of the document's first element ("" when there is none)."""
    m = _PROLOG.match(body[:PROLOG_BYTES])
    return m.group(1).decode("ascii", "replace").lower() if m else ""


def is_feed(body: bytes) -> bool:
    return root_element(body) in FEED_ROOTS


def is_sitemap_index(body: bytes) -> bool:
    """A sitemap of sitemaps: its links are more list pages, not articles."""
    return root_element(body) == "sitemapindex"


def unpacked(body: bytes, max_size: int) -> bytes | None:
    """A gzipped file (``sitemap.xml.gz``, served as a file, so the download is not unpacked
    on the way) unpacked; any other body as it is; None when it cannot be unpacked within
    ``max_size`` bytes (0: no limit)."""
    if body[:2] != b"\x1f\x8b":
        return body
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(body)) as f:
            out = f.read(max_size + 1) if max_size > 0 else f.read()
    except (OSError, EOFError, zlib.error):
        return None
    return out if not max_size or len(out) <= max_size else None


def feed_links(body: bytes, base: str = "") -> Iterator[str]:
    """Every link of an RSS/Atom feed or sitemap, in document order, read as a stream;
    relative ones (/news/5.html, //b.cn/6.html) read against ``base``, the feed's URL
    (without it, left out). Links of any scheme come out: the caller refuses what is not
    http(s) (``web_url``), so that it can count them."""
    for m in _FEED_LINK.finditer(body):
        link = (m.group(1) or m.group(2) or m.group(3)).decode("utf-8", "replace").replace("&amp;", "&")
        if not _SCHEME.match(link):
            if not base:
                continue
            link = join_url(base, link) or link  # one that cannot be joined comes out as written, to be refused
        yield link


_SCHEME = re.compile(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*+:")


def web_url(url: str) -> bool:
    """An http(s) URL with a host: the only kind of link a page may lead the crawler to
    (``file:``, ``ftp:``, ``data:``... would read local files or reach other services)."""
    return request_url(url) is not None


def request_url(url: str, encoding: str = "utf-8") -> str | None:
    """``url`` quoted as a request sends it (``w3lib.url.safe_url_string``, non-ASCII query
    text in the page's ``encoding``, as Scrapy's link extractor does), or None when it is no
    http(s) URL with a host, or one no request can be made of (a broken IPv6 host, a port
    out of range, a host w3lib refuses to quote: each raises). Such a link is refused, never
    an exception that loses the rest of its page."""
    try:
        parts = urlsplit(url)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            return None
        return safe_url_string(url, encoding)
    except (ValueError, UnicodeError):
        return None


def html_links(text: str, base: str) -> Iterator[tuple[str, str]]:
    """``(url, text)`` of every ``<a>`` and ``<area>`` link of an HTML page, in document
    order, read as a stream: each link element is dropped once read, so a page of a
    million links never holds more than the links its reader keeps. URLs are absolute
    (against ``<base href>`` or ``base``), not yet quoted (the reader quotes those it takes,
    ``w3lib.url.safe_url_string`` with the page's encoding, as Scrapy's link extractor does);
    ``javascript:``, ``mailto:`` and the like come out as written, for the caller to refuse."""
    parser = etree.HTMLPullParser(events=("end",), tag=("a", "area", "base"), recover=True)
    for start in range(0, len(text), _CHUNK):
        parser.feed(text[start : start + _CHUNK])
        for _, element in parser.read_events():
            href = (element.get("href") or "").strip().translate(_TAB_NEWLINE)  # as browsers read it (WHATWG)
            if element.tag == "base":
                base = (join_url(base, href) or base) if href else base
            elif href and not href.startswith("#"):
                label = " ".join("".join(element.itertext()).split()) if element.tag == "a" else ""
                yield join_url(base, href) or href, label  # one that cannot be joined: as written, to be refused
            element.clear(keep_tail=True)
            while element.getprevious() is not None:  # what was read before it, too
                del element.getparent()[0]
    parser.close()


_CHUNK = 1 << 16
_TAB_NEWLINE = str.maketrans("", "", "\t\n\r")


def as_html(response: Response) -> HtmlResponse | None:
    """``response`` as an HTML response (an XHTML page served as XML included), or None when
    it holds no text."""
    if isinstance(response, HtmlResponse):
        return response
    if not isinstance(response, TextResponse):
        return None
    return HtmlResponse(response.url, body=response.body, encoding=response.encoding, request=response.request)


def without_tracking(url: str, params: re.Pattern | None) -> str:
    """``url`` without the query parameters, and the path parameters (``;jsessionid=…``),
    whose names ``params`` matches; the others stay exactly as written."""
    if params is None or ("?" not in url and ";" not in url):
        return url
    head, question, rest = url.partition("?")
    if ";" in head:
        scheme, sep, path = head.partition("://")
        segments = [
            ";".join([s.split(";", 1)[0]] + [p for p in s.split(";")[1:] if not params.match(p.partition("=")[0])])
            for s in path.split("/")
        ]
        head = scheme + sep + "/".join(segments)
    if not question:
        return head
    query, hash_, fragment = rest.partition("#")
    pairs = query.split("&")
    kept = [p for p in pairs if not params.match(p.partition("=")[0])]
    return head + ("?" + "&".join(kept) if kept else "") + hash_ + fragment


def is_markup(body: bytes) -> bool:
    """A page to read ``<a>`` links from: text with tags (HTML, XHTML), not another XML
    document, JSON, plain text or binary bytes."""
    head = body[:PROLOG_BYTES]
    if head.lstrip(b"\xef\xbb\xbf \t\r\n")[:5].lower() == b"<?xml" and root_element(head) != "html":
        return False
    return b"<" in head and not is_binary(head)
