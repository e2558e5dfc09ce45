"""When each start page is visited again (``news-crawler watch``): the estimate of a page's
rate and interval (``estimate.py``, pure) and the schedule in Redis (``schedule.py``)."""

from news_crawler.frontier.revisits.estimate import (
    RESULTS,
    PageState,
    StateFormatError,
    after_visit,
    interval_for,
    with_more_links,
)
from news_crawler.frontier.revisits.schedule import Claimed, Claims, RevisitSchedule, ScheduledPage

__all__ = [
    "RESULTS",
    "Claimed",
    "Claims",
    "PageState",
    "RevisitSchedule",
    "ScheduledPage",
    "StateFormatError",
    "after_visit",
    "interval_for",
    "with_more_links",
]
