"""A fetched page -> the article fields of its item. Plain data in, plain data out: it runs
in the worker pool (``news_crawler.crawl.pool``), so the reactor thread only moves bytes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from news_crawler.defaults import IMAGES_MAX
from news_crawler.extraction.article import Article, extract_article
from news_crawler.extraction.decode import decode_html, is_binary, is_text
from news_crawler.extraction.pagination import next_page
from news_crawler.printable import printable

PAGE_TYPES = ("html", "xml", "text/plain")


def invalid(reason: str, kind: str) -> dict[str, str]:
    """The fields of an item whose page holds no article: ``reason`` for its outcome, ``kind``
    for its counted stat (``articles/invalid_reason/<kind>``)."""
    return {
        "title": "",
        "author": "",
        "published_at": "",
        "body": "",
        "editor": "",
        "source": "",
        "invalid_reason": reason,
        "invalid_kind": kind,
    }


def not_a_page(content_type: str) -> dict[str, str] | None:
    """The fields of an item whose response is not a page (a PDF, an image), else None."""
    if content_type and not any(t in content_type.lower() for t in PAGE_TYPES):
        return invalid(f"not an HTML page ({printable(content_type.split(';')[0], 100)})", "not_html")
    return None


def page_fields(
    body: bytes,
    content_type: str,
    url: str,
    extract: Callable[[str], Article] | None = None,
    later: bool = False,
    images_max: int = IMAGES_MAX,
) -> dict[str, Any]:
    """``title``, ``author``, ``published_at``, ``body`` and ``encoding`` of a fetched page
    (or ``invalid_reason``), and ``next_page``: the URL of the article's next page, or None;
    ``extract`` replaces the generic extraction of the decoded HTML; ``later``: the page is
    a later page of an article (its text may be short), whatever its URL says; at most
    ``images_max`` images."""
    fields = not_a_page(content_type)
    if fields is not None:
        return fields
    if is_binary(body):
        return invalid("not text (binary bytes)", "not_text")
    html, encoding = decode_html(body, content_type or None)
    if not is_text(html):
        return invalid(f"not text (undecodable as {encoding})", "not_text")
    following = next_page(html, url, body, encoding)
    article = (
        extract(html) if extract is not None else extract_article(html, url, later or following is not None, images_max)
    )
    return {
        "title": article.title,
        "author": article.author,
        "published_at": article.published_at,
        "body": article.body,
        "editor": article.editor,
        "source": article.source,
        "contributors": article.contributors,
        "images": article.images,
        "description": article.description,
        "tags": article.tags,
        "updated_at": article.updated_at,
        "outlet": article.outlet,
        "encoding": encoding,
        "next_page": following,
    }
