"""What a worker does with a fetched article page, in one call: its fields (``extraction``),
joined with the pages of its article before it, and the fingerprint of the whole. The
spider sends the page's bytes and gets the item's fields back; the near-duplicate pipeline
takes the fingerprint from them and does not send the body to the pool again."""

from __future__ import annotations

from typing import Any

from news_crawler.crawl.pool import fingerprint_with
from news_crawler.dedup.fingerprint import Fingerprinter
from news_crawler.defaults import IMAGES_MAX
from news_crawler.extraction.page import page_fields
from news_crawler.extraction.pagination import joined_pages


def article_page(
    fingerprinter: Fingerprinter,
    body: bytes,
    content_type: str,
    url: str,
    before: dict[str, Any] | None,
    last: bool,
    fingerprinted: bool,
    images_max: int = IMAGES_MAX,
) -> dict[str, Any]:
    """The fields of the article a page ends or continues (``before``: its pages so far),
    as ``finished`` makes them, from the page's bytes (at most ``images_max`` images)."""
    fields = page_fields(body, content_type, url, None, before is not None, images_max)
    return finished(fingerprinter, fields, url, before, last, fingerprinted, images_max)


def finished(
    fingerprinter: Fingerprinter,
    fields: dict[str, Any],
    url: str,
    before: dict[str, Any] | None,
    last: bool,
    fingerprinted: bool,
    images_max: int = IMAGES_MAX,
) -> dict[str, Any]:
    """A page's ``fields`` joined with its article's pages ``before`` it (the body, and the
    images not already there), at the first page's ``url``; with ``fingerprinted``, and when
    no page follows (``next_page`` None) or this is the ``last`` one taken, the whole
    article's ``fingerprint``: ``(Fingerprint, None)``, or ``(None, why)`` for a text that
    has none. A page that holds no article (``invalid_reason``) gets none."""
    following = fields.get("next_page")
    if before is not None:
        had = {i["url"] for i in before.get("images", [])}
        images = (before.get("images", []) + [i for i in fields.get("images", []) if i["url"] not in had])[:images_max]
        body = joined_pages(before["body"], fields.get("body", ""))
        fields = {**before, "body": body, "images": images, "next_page": following}
    else:
        fields = {**fields, "url": url}
    if fingerprinted and not fields.get("invalid_reason") and (last or not following):
        fields["fingerprint"] = fingerprint_with(fingerprinter, fields["body"], fields.get("title") or "")
    return fields
