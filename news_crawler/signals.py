"""The project's own Scrapy signals (a leaf: the spider sends, the tracker receives)."""

fetch_failed = object()  # a page could not be fetched: request, failure (the spider's errback sends it)
