"""Scrapy settings of the news crawler. Every default comes from ``defaults.py``. The
environment sets any setting of the project under its own name (``REDIS_URL``,
``DAILY_SPIDERS=sina,163``, ``DEDUP_MAX_DISTANCE=2``): see the README's configuration."""

from news_crawler.config import from_environment
from news_crawler.defaults import *  # noqa: F401,F403 - one source of defaults
from news_crawler.fields import FEED_FIELDS as _feed_fields  # not a setting of its own

BOT_NAME = "news_crawler"
SPIDER_MODULES = ["news_crawler.spiders"]
SPIDER_LOADER_CLASS = "news_crawler.spiders.sites.SiteSpiderLoader"  # every site of the sites files is a spider
NEWSPIDER_MODULE = "news_crawler.spiders"
COMMANDS_MODULE = "news_crawler.cli.commands"  # scrapy crawl exits 1 when Redis stopped the spider

SCHEDULER_PERSIST = True  # scrapy-redis' default is False: a daily crawl must remember

ITEM_PIPELINES = {
    "news_crawler.pipelines.validate.ValidationPipeline": 100,
    "news_crawler.pipelines.dedup.NearDuplicatePipeline": 200,
    # The sinks: an article is kept once every configured one has it (pipelines/delivery.py).
    "news_crawler.pipelines.feed.FeedPipeline": 250,  # FEED_DIR/<spider>/<time>.<host-pid>.jsonl
    "news_crawler.pipelines.postgres.PostgresPipeline": 260,  # DATABASE_URL
    "news_crawler.pipelines.redis_export.RedisStreamPipeline": 270,  # ITEMS_REDIS_STREAM
    "news_crawler.pipelines.redis_export.RedisListPipeline": 280,  # ITEMS_REDIS_KEY
    "news_crawler.pipelines.scrapy_feeds.ScrapyFeedsPipeline": 290,  # FEEDS, -o, -O
}
LOG_FORMATTER = "news_crawler.crawl.logformatter.ArticleLogFormatter"  # an article named in the log, not printed whole
EXTENSIONS = {
    "news_crawler.crawl.redact.RedactSecrets": 0,
    "news_crawler.crawl.summary.CrawlSummary": 500,
    "news_crawler.ops.alerting.SiteAlerts": 510,  # each site judged against its own runs (docs/alerts.md)
    "news_crawler.crawl.quickstop.QuickStop": 600,  # a stop within STOP_TIMEOUT seconds of SIGTERM
    "scrapy.extensions.feedexport.FeedExporter": None,  # FEEDS are written by ScrapyFeedsPipeline
}
SPIDER_MIDDLEWARES = {"news_crawler.middlewares.tracker.OutcomeTracker": 10}
DOWNLOADER_MIDDLEWARES = {
    "news_crawler.middlewares.safety.SafeRequests": 40,  # before Scrapy's offsite check (50)
    "scrapy.downloadermiddlewares.retry.RetryMiddleware": None,
    "news_crawler.middlewares.retry.BackoffRetryMiddleware": 550,
    # Scrapy's own, but a target no request can be made of is refused, not an exception
    "scrapy.downloadermiddlewares.redirect.MetaRefreshMiddleware": None,
    "news_crawler.middlewares.safety.SafeMetaRefresh": 580,
    "scrapy.downloadermiddlewares.redirect.RedirectMiddleware": None,
    "news_crawler.middlewares.safety.SafeRedirect": 600,
}
# Only http(s) is fetched: a page's file:, ftp:, s3: or data: link must never read a local file
# or reach another service (START_URLS_ALLOW_FILE turns the file handler on for start pages).
DOWNLOAD_HANDLERS = {"file": None, "ftp": None, "s3": None, "data": None}
# Both run code in the crawl for whoever reaches their port or token: off unless asked for
# (-s TELNETCONSOLE_ENABLED=True, -s REMOTE_CONTROL_ENABLED=True).
TELNETCONSOLE_ENABLED = False
REMOTE_CONTROL_ENABLED = False

# Polite to the portals: robots.txt, a few requests per site at a time, adaptive delay.
ROBOTSTXT_OBEY = True
USER_AGENT = "Mozilla/5.0 (compatible; news-crawler/0.1; +https://github.com/news-crawler/news-crawler)"
CONCURRENT_REQUESTS = 32
CONCURRENT_REQUESTS_PER_DOMAIN = 4
DOWNLOADER = "news_crawler.crawl.downloader.Downloader"  # Scrapy's, holding that per-site limit
AUTOTHROTTLE_ENABLED = True
AUTOTHROTTLE_START_DELAY = 0.5
AUTOTHROTTLE_TARGET_CONCURRENCY = 2.0
DOWNLOAD_TIMEOUT = 30
DOWNLOAD_MAXSIZE = 16 * 1024 * 1024  # a 50 MB "article" is cut off and counted, not parsed
DOWNLOAD_WARNSIZE = 4 * 1024 * 1024
FEED_EXPORT_ENCODING = "utf-8"  # -o/-O feeds as the feed files: Chinese as written, not \u escapes
FEED_EXPORT_FIELDS = list(_feed_fields)  # and the same fields, in the same order (a feed's own "fields" wins)
RETRY_GIVE_UP_LOG_LEVEL = "WARNING"  # a page that failed is an expected outcome (failed), not an error of the crawler
LOG_LEVEL = "INFO"  # Scrapy's DEBUG logs every request: too much for a daily run (-s LOG_LEVEL=DEBUG)
LOGSTATS_INTERVAL = 60.0
TWISTED_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"

# Last: every setting above (and every default) may come from the environment, by its name.
globals().update(from_environment({k: v for k, v in dict(globals()).items() if k.isupper()}))
