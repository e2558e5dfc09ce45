"""The project's defaults for a Scrapy project that uses its components, filled once.

This project's own settings module holds every default (``settings.py``). A Scrapy project of
its own that uses the scheduler, the dupefilters or the pipelines names the add-on once::

    ADDONS = {"news_crawler.addon.NewsCrawler": 0}

and Scrapy calls ``update_settings`` before any component is built: every setting of
``defaults.py`` the project leaves unset gets its default, at the add-on's priority (the
project's own values win). Components read ``crawler.settings`` as they find them.
"""

from __future__ import annotations

from scrapy.settings import BaseSettings

from news_crawler import defaults

# A setting that only this project defines: present means the defaults are in.
MARKER = "DEDUP_NAMESPACE"
SCRAPY_DOWNLOADER = "scrapy.core.downloader.Downloader"
DOWNLOADER = "news_crawler.crawl.downloader.Downloader"  # Scrapy's, holding each site's concurrency


def project_defaults() -> dict[str, object]:
    """Every setting of ``defaults.py`` by name."""
    return {k: v for k, v in vars(defaults).items() if k.isupper()}


class NewsCrawler:
    """Scrapy add-on: this project's defaults wherever a setting is unset."""

    def update_settings(self, settings: BaseSettings) -> None:
        missing = {k: v for k, v in project_defaults().items() if settings.get(k) is None}
        settings.setdict(missing, priority="addon")
        if settings.get("DOWNLOADER") == SCRAPY_DOWNLOADER:  # Scrapy's, unless the project chose another
            settings.set("DOWNLOADER", DOWNLOADER, priority="addon")


def check_defaults(settings: BaseSettings) -> None:
    """Stop with one line when the settings lack this project's defaults (a Scrapy project
    that uses a component of this one without the add-on)."""
    if settings.get(MARKER) is None:
        from news_crawler.errors import UserError

        raise UserError(
            'news_crawler\'s components need its defaults: add ADDONS = {"news_crawler.addon.NewsCrawler": 0} '
            "to the project's settings"
        )
