"""The fields of a kept article in every sink, and values as they can be written anywhere.

No Scrapy here: the settings module reads ``FEED_FIELDS``, and ``news-dedup``, which reads
the settings and never crawls, starts in two thirds of the time without importing Scrapy.
"""

import re
from typing import Any

# What no sink can store: a lone surrogate (a page's JSON-LD may escape one: "\\ud800") has no
# UTF-8 form, so a feed line holding one could not be written; PostgreSQL refuses U+0000 in
# text and in jsonb (a JSON-LD author, keywords or a description may carry one), and the
# other C0 controls but tab, newline and carriage return are no text of an article.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def well_formed(value: Any) -> Any:
    """A field as every sink can store it: each lone surrogate in its text (in lists and dicts
    too) replaced by U+FFFD, NUL and the other C0 controls but tab, newline and carriage
    return removed."""
    if isinstance(value, str):
        return _CONTROLS.sub("", _LONE_SURROGATE.sub("\ufffd", value))
    if isinstance(value, list):
        return [well_formed(v) for v in value]
    if isinstance(value, dict):
        return {well_formed(k): well_formed(v) for k, v in value.items()}
    return value


# What a kept article is in every sink (a feed line, a row, a stream entry, Scrapy's feeds), in
# this order; the item's other fields are the crawl's own.
FEED_FIELDS = (
    "url",
    "site",
    "title",
    "author",
    "published_at",
    "body",
    "simhash",
    "crawled_at",
    "editor",
    "source",
    "contributors",
    "images",
    "description",
    "tags",
    "updated_at",
    "version",
    "supersedes",
)
