"""No secret in any log: passwords in Redis URLs (``redis://:secret@host``) are masked. And
no line made unreadable by a page: a URL longer than ``URL_LOG_CHARS`` is cut (a hostile
page can link a URL of a megabyte, and Scrapy logs the URLs it ignores or redirects), and
control characters (a title's or a header's ESC, BEL, C1 codes) are escaped (``printable``). And no
traceback for an expected network failure (``NetworkErrorsInOneLine``).

Scrapy logs every overridden setting at start-up, ``REDIS_URL`` included; the
``RedactSecrets`` extension is built before that line is written and masks it, and any
later record that carries a URL with a password.
"""

from __future__ import annotations

import logging
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler

from news_crawler.printable import LONG_URL, URL_LOG_CHARS, log_safe, redact, short_urls


class RedactFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, dict):
            record.args = {k: redact(v) if isinstance(v, str) else v for k, v in record.args.items()}
        elif record.args:
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # a broken record: logging reports it itself
            return True
        shown = log_safe(message)  # nothing in a log line drives the terminal that shows it
        if len(shown) > URL_LOG_CHARS and LONG_URL.search(shown):
            shown = short_urls(shown)
        if shown != message:
            record.msg, record.args = shown, None  # args may be a Request: its repr holds the URL
        return True


class NetworkErrorsInOneLine(logging.Filter):
    """Scrapy's robots.txt middleware logs a robots.txt it could not download with a
    traceback; a network failure (DNS, a refused connection, a timeout: Scrapy's
    ``RETRY_EXCEPTIONS``) is expected on the open web, not a bug: one warning line."""

    def __init__(self, network_errors: tuple[type[BaseException], ...]) -> None:
        super().__init__()
        self.network_errors = network_errors

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if error is not None and isinstance(error, self.network_errors):
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.msg = "robots.txt not fetched for %(request)s (%(f_exception)s): the page is fetched as if allowed"
        return True


def network_errors(settings: Any) -> tuple[type[BaseException], ...]:
    from scrapy.utils.misc import load_object

    return tuple(load_object(e) if isinstance(e, str) else e for e in settings.getlist("RETRY_EXCEPTIONS"))


class RedactSecrets:
    """An extension only for its side effect: the filter on Scrapy's loggers and handlers."""

    def __init__(self) -> None:
        install()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedactSecrets:
        robots = logging.getLogger("scrapy.downloadermiddlewares.robotstxt")
        if not any(isinstance(f, NetworkErrorsInOneLine) for f in robots.filters):
            robots.addFilter(NetworkErrorsInOneLine(network_errors(crawler.settings)))
        # Scrapy installs its root handler anew after the extensions are built: filter that one too.
        crawler.signals.connect(install, signal=signals.engine_started)
        return cls()


_FILTER = RedactFilter()


def install() -> None:
    """Mask passwords in records of Scrapy's crawler logger and in every root handler."""
    logging.getLogger("scrapy.crawler").addFilter(_FILTER)
    for handler in logging.getLogger().handlers:
        if _FILTER not in handler.filters:
            handler.addFilter(_FILTER)
