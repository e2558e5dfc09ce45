"""The one way to get a Redis client: ``REDIS_URL`` if set, else the embedded server."""

from __future__ import annotations

from typing import Any

import redis

from news_crawler import defaults
from news_crawler.embedded import ensure_server


def resolve_url(url: str = "", data_dir: str = defaults.EMBEDDED_REDIS_DIR,
                timeout: float = defaults.EMBEDDED_REDIS_START_TIMEOUT) -> str:
    """``url`` when given, otherwise the URL of the embedded server (started if needed)."""
    return url or ensure_server(data_dir, timeout)


def get_redis(url: str = "", data_dir: str = defaults.EMBEDDED_REDIS_DIR, **kwargs: Any) -> redis.Redis:
    """A client for ``url``, or for the embedded server under ``data_dir`` when ``url`` is empty."""
    return redis.Redis.from_url(resolve_url(url, data_dir), **kwargs)


def url_from_settings(settings: Any) -> str:
    """Resolve the Redis URL from Scrapy settings (or any object with ``get``/``getfloat``)."""
    return resolve_url(
        settings.get("REDIS_URL") or "",
        settings.get("EMBEDDED_REDIS_DIR") or defaults.EMBEDDED_REDIS_DIR,
        settings.getfloat("EMBEDDED_REDIS_START_TIMEOUT", defaults.EMBEDDED_REDIS_START_TIMEOUT),
    )


def from_settings(settings: Any, **kwargs: Any) -> redis.Redis:
    """The client every component uses: scheduler, dupefilter, pipeline and CLI alike."""
    return redis.Redis.from_url(url_from_settings(settings), **kwargs)
