"""No secret in any log: passwords in Redis URLs (``redis://:secret@host``) are masked.

Scrapy logs every overridden setting at start-up, ``REDIS_URL`` included; the
``RedactSecrets`` extension is built before that line is written and masks it, and any
later record that carries a URL with a password.
"""

from __future__ import annotations

import logging
import re
from scrapy.crawler import Crawler

_PASSWORD_IN_URL = re.compile(r"(\w+://[^:/@\s'\"]*:)[^@/\s'\"]+@")


def redact(text: str) -> str:
    """``text`` with the password of every URL in it replaced by ``***``."""
    return _PASSWORD_IN_URL.sub(r"\1***@", text)


class RedactFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, dict):
            record.args = {k: redact(v) if isinstance(v, str) else v for k, v in record.args.items()}
        elif record.args:
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        return True


class RedactSecrets:
    """An extension only for its side effect: the filter on Scrapy's loggers and handlers."""

    def __init__(self) -> None:
        install()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedactSecrets:
        return cls()


_FILTER = RedactFilter()


def install() -> None:
    """Mask passwords in records of Scrapy's crawler logger and in every root handler."""
    logging.getLogger("scrapy.crawler").addFilter(_FILTER)
    for handler in logging.getLogger().handlers:
        if _FILTER not in handler.filters:
            handler.addFilter(_FILTER)
