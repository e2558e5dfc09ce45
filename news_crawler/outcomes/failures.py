"""What a failed fetch means for its URL: gone (404, 410: not retried), robots (refused by
robots.txt), invalid (refused before it was fetched: not http(s), or a redirect off the
site; or a download where a page was expected; a browser's page past its bounds), else
failed (tried again on the next run)."""

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


class PageTooBig(IgnoreRequest):
    """A browser site's page whose document is larger than ``DOWNLOAD_MAXSIZE``, unpacked or as
    its script built it (``middlewares/browser.py``): outcome ``invalid``."""

    reason = "larger than DOWNLOAD_MAXSIZE"


class RendererCrashed(IgnoreRequest):
    """A browser site's page whose renderer crashed, or was ended past ``BROWSER_MEMORY_MAX``
    (``middlewares/browser.py``): outcome ``invalid``."""

    reason = "the browser's renderer crashed or went past BROWSER_MEMORY_MAX"


INVALID = (RedirectedOutside, NotAPage, PageTooBig, RendererCrashed)


def classify_failure(failure: Any) -> tuple[str, str]:
    """``(outcome, reason)`` of a request that could not be fetched."""
    error = failure.value
    for kind in INVALID:
        if failure.check(kind):
            return "invalid", kind.reason
    if failure.check(RefusedScheme):  # never fetched, and never will be
        return "invalid", "not an http(s) URL"
    if failure.check(HttpError):
        status = error.response.status
        return ("gone" if status in GONE_STATUSES else "failed"), f"HTTP {status}"
    if failure.check(IgnoreRequest) and "robots.txt" in str(error):
        return "robots", "forbidden by robots.txt"
    return "failed", f"{type(error).__name__}: {error}"[:200]
