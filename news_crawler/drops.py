"""Why a pipeline dropped an item: each drop names the outcome recorded for its URL."""

from scrapy.exceptions import DropItem


class ArticleDrop(DropItem):
    outcome = "dropped"


class InvalidArticle(ArticleDrop):
    """No usable article on the page (not HTML, no text, too short, no words)."""

    outcome = "invalid"


class NearDuplicate(ArticleDrop):
    """Within the near-duplicate distance of an article kept before."""

    outcome = "duplicate"


class SeenBefore(ArticleDrop):
    """Kept, and written to a feed, by an earlier run: its recorded outcome stands."""

    outcome = ""
