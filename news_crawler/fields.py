"""The fields of a kept article in every sink, and values as they can be written anywhere.

No Scrapy here: the settings module reads ``FEED_FIELDS``, and ``news-dedup``, which reads
the settings and never crawls, starts in two thirds of the time without importing Scrapy.
"""

import re
from typing import Any

# A lone surrogate (a page's JSON-LD may escape one: "\\ud800") has no UTF-8 form: a feed
# line holding one could not be written.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def well_formed(value: Any) -> Any:
    """A field as it can be written anywhere: each lone surrogate in its text (in lists and
    dicts too) replaced by U+FFFD."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
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
)
