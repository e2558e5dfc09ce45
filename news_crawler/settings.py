"""Scrapy settings of the news crawler. Every default comes from ``defaults.py``; the
environment overrides the ones operators change (see the README's configuration table)."""

import os

from news_crawler.defaults import *  # noqa: F401,F403 - one source of defaults
from news_crawler import defaults as _d

BOT_NAME = "news_crawler"
SPIDER_MODULES = ["news_crawler.spiders"]
NEWSPIDER_MODULE = "news_crawler.spiders"

REDIS_URL = os.environ.get("REDIS_URL", _d.REDIS_URL)
EMBEDDED_REDIS_DIR = os.environ.get("EMBEDDED_REDIS_DIR", _d.EMBEDDED_REDIS_DIR)
DEDUP_NAMESPACE = os.environ.get("DEDUP_NAMESPACE", _d.DEDUP_NAMESPACE)

ROBOTSTXT_OBEY = True
USER_AGENT = "news-crawler (+https://github.com/news-crawler/news-crawler)"
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
FEED_EXPORT_ENCODING = "utf-8"
