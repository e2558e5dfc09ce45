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
from urllib.parse import urljoin

from scrapy.http import HtmlResponse, Response

FEED_ROOTS = {"rss", "feed", "urlset", "sitemapindex", "rdf:rdf", "rdf"}
_PROLOG = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*(?:(?:<\?[^>]*\?>|<!--.*?-->|<!DOCTYPE[^>]*>)\s*)*<([A-Za-z][\w:.-]*)", re.S)
# <link> and <loc> hold links, relative ones too (read against the feed's URL); <guid> and
# <id> only when they are http(s) URLs (else an id: "urn:uuid:…", "5").
_TEXT_LINK = re.compile(rb"<(?:link|loc)\b[^>]*>\s*(?:<!\[CDATA\[)?\s*([^<\s\]]+)"
                        rb"|<(?:guid|id)\b[^>]*>\s*(?:<!\[CDATA\[)?\s*(https?://[^<\s\]]+)", re.I)
_HREF_LINK = re.compile(rb"""<link\b[^>]*?\bhref\s*=\s*["']([^"']+)["']""", re.I)


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
    m = _PROLOG.match(body[:4096])
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
    """Every http(s) link of an RSS/Atom feed or sitemap, in document order; relative ones
    (/news/5.html, //b.cn/6.html) read against ``base``, the feed's URL (without it, left out)."""
    found = sorted((m.start(), m.group(1) or m.group(2)) for rx in (_TEXT_LINK, _HREF_LINK) for m in rx.finditer(body))
    for _, raw in found:
        link = raw.decode("utf-8", "replace").replace("&amp;", "&")
        link = urljoin(base, link) if base and not _ABSOLUTE.match(link) else link
        if _ABSOLUTE.match(link):
            yield link


_ABSOLUTE = re.compile(r"https?://", re.I)


def as_html(response: Response) -> HtmlResponse | None:
    """``response`` as an HTML response (an XHTML page served as XML included), or None when
    it holds no text."""
    if isinstance(response, HtmlResponse):
        return response
    if not hasattr(response, "text"):
        return None
    return HtmlResponse(response.url, body=response.body, encoding=response.encoding, request=response.request)


def without_tracking(url: str, params: re.Pattern | None) -> str:
    """``url`` without the query parameters whose names ``params`` matches; the others stay
    exactly as written."""
    if params is None or "?" not in url:
        return url
    head, _, rest = url.partition("?")
    query, hash_, fragment = rest.partition("#")
    pairs = query.split("&")
    kept = [p for p in pairs if not params.match(p.partition("=")[0])]
    if len(kept) == len(pairs):
        return url
    return head + ("?" + "&".join(kept) if kept else "") + hash_ + fragment
