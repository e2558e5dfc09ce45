"""Scrapy settings for crawling the mirror: the product's settings, with every http(s)
download sent to ``MIRROR_URL`` (from the environment) and no robots.txt or adaptive delay
(the mirror is local and has no robots.txt).

    SCRAPY_SETTINGS_MODULE=news_mirror.settings MIRROR_URL=http://127.0.0.1:8000 news-crawler crawl
"""

import os

from news_crawler.settings import *  # noqa: F401,F403 - the product's settings, then the mirror's

MIRROR_URL = os.environ.get("MIRROR_URL", "")
_HANDLER = "news_mirror.handler.MirrorDownloadHandler"
DOWNLOAD_HANDLERS = {**DOWNLOAD_HANDLERS, "http": _HANDLER, "https": _HANDLER}  # noqa: F405
ROBOTSTXT_OBEY = False
AUTOTHROTTLE_ENABLED = False


def environment(mirror_url: str) -> dict[str, str]:
    """Environment variables that make a crawl process fetch from the mirror at ``mirror_url``."""
    return {"SCRAPY_SETTINGS_MODULE": __name__, "MIRROR_URL": mirror_url}
