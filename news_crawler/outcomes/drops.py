"""Why a pipeline dropped an item: each drop names the outcome recorded for its URL."""

from scrapy.exceptions import DropItem


class ArticleDrop(DropItem):
    """A drop of the article at ``url``, for ``reason`` (what its outcome records); the log
    line names both."""

    outcome = "dropped"
    ends_lease = True  # the URL is done with; False: the next run must fetch it again

    def __init__(self, reason: str, url: str, log_level: str = "INFO") -> None:
        super().__init__(f"{reason}: {url}", log_level=log_level)
        self.reason, self.url = reason, url


class InvalidArticle(ArticleDrop):
    """No usable article on the page (not HTML, no text, too short, no words)."""

    outcome = "invalid"


class NearDuplicate(ArticleDrop):
    """Within the near-duplicate distance of an article kept before."""

    outcome = "duplicate"


class SeenBefore(ArticleDrop):
    """Kept, and written to a feed, by an earlier run: its recorded outcome stands."""

    outcome = ""


class Unsettled(ArticleDrop):
    """Redis stayed unreachable past the limit: nothing is recorded, the lease stays, and
    the next run fetches the page again."""

    outcome = ""
    ends_lease = False
