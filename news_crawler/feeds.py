"""Feed URI parameters: ``%(feed_dir)s`` is the ``FEED_DIR`` setting, so ``-s FEED_DIR=...`` works."""

from __future__ import annotations

from typing import Any

from scrapy import Spider


def uri_params(params: dict[str, Any], spider: Spider) -> dict[str, Any]:
    return {**params, "feed_dir": spider.settings.get("FEED_DIR")}
