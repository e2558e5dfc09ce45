"""What a request's meta says of it, read by the spiders, the middlewares and the scheduler."""

from __future__ import annotations

from scrapy import Request

START_PAGE, LIST_DEPTH = "start_page", "list_depth"  # request meta of list pages
RECHECK = "recheck"  # request meta: a kept article fetched again, its recheck state as claimed (JSON)
REVISIT_OF = "revisit_of"  # request meta: the watched start page whose revisit led to this list page


def is_list_page(request: Request) -> bool:
    """A start page, or a list page followed from one: fetched again on every run."""
    return bool(request.meta.get(START_PAGE)) or LIST_DEPTH in request.meta
