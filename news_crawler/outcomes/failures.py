"""What a failed fetch means for its URL: gone (404, 410: not retried), robots (refused by
robots.txt), invalid (refused before it was fetched: not http(s), or a redirect off the
site; or a download where a page was expected), else failed (tried again on the next run)."""

from __future__ import annotations

from typing import Any

from scrapy.exceptions import IgnoreRequest
from scrapy.spidermiddlewares.httperror import HttpError

GONE_STATUSES = (404, 410)


class RefusedScheme(IgnoreRequest):
    """A request for a URL that is not http(s) (``middlewares/safety.py`` refuses it): outcome ``invalid``."""


class RedirectedOutside(IgnoreRequest):
    """A redirect that leaves the site (``middlewares/safety.py`` refuses it): the URL's outcome is ``invalid``."""

    reason = "redirected outside the site"


class NotAPage(IgnoreRequest):
    """A browser site's URL that answered with a download (``middlewares/browser.py`` refuses it):
    outcome ``invalid``."""

    reason = "a download, not a page"


def classify_failure(failure: Any) -> tuple[str, str]:
    """``(outcome, reason)`` of a request that could not be fetched."""
    error = failure.value
    if failure.check(RedirectedOutside):
        return "invalid", RedirectedOutside.reason
    if failure.check(NotAPage):
        return "invalid", NotAPage.reason
    if failure.check(RefusedScheme):  # never fetched, and never will be
        return "invalid", "not an http(s) URL"
    if failure.check(HttpError):
        status = error.response.status
        return ("gone" if status in GONE_STATUSES else "failed"), f"HTTP {status}"
    if failure.check(IgnoreRequest) and "robots.txt" in str(error):
        return "robots", "forbidden by robots.txt"
    return "failed", f"{type(error).__name__}: {error}"[:200]
