"""Every default of the project, named exactly like the setting it is the default of."""

# Where everything the crawler writes lives: a relative FEED_DIR, DAILY_DIR, EMBEDDED_REDIS_DIR
# or SUMMARY_FILE is under it, whatever directory a command runs in (cron's included).
DATA_DIR = "~/.local/share/news-crawler"
# What a day is for outcome counts, summaries, reports and the index's daily drop counts: an
# IANA zone name (Asia/Shanghai); empty: this machine's zone.
TIMEZONE = ""

# One Redis for everything. When REDIS_URL is empty an embedded server is started (or
# reused) with its data under EMBEDDED_REDIS_DIR, persisted as an append-only file.
REDIS_URL = ""
# scrapy-redis' way to name a server, used when REDIS_URL is empty and either is set.
REDIS_HOST = ""
REDIS_PORT = 0
# Client keyword arguments; REDIS_PARAMS in the settings is merged over these.
REDIS_PARAMS = {"socket_timeout": 5, "socket_connect_timeout": 3, "health_check_interval": 30}
# "auto": a Redis Cluster client when the server named says it is a cluster node; "yes"; "no".
REDIS_CLUSTER = "auto"
# A crawl waits this long for an unreachable Redis (paused, items held), then stops.
REDIS_OUTAGE_LIMIT = 300.0
EMBEDDED_REDIS_DIR = "redis"
EMBEDDED_REDIS_START_TIMEOUT = 10.0

# Crawling: scrapy-redis' scheduler and dupefilter, per-spider keys, persistent, JSON queue.
SCHEDULER = "news_crawler.frontier.scheduler.RedisScheduler"
DUPEFILTER_CLASS = "news_crawler.frontier.scheduler.RedisDupeFilter"
# scrapy-redis' default: a queue and dupefilter that outlive the crawl only when asked for.
# This project's settings.py sets True (a daily crawl must remember what it fetched).
SCHEDULER_PERSIST = False
SCHEDULER_QUEUE_CLASS = "news_crawler.frontier.leasing.LeasedPriorityQueue"
SCHEDULER_QUEUE_KEY = "%(spider)s:requests"
SCHEDULER_DUPEFILTER_KEY = "%(spider)s:dupefilter"
SCHEDULER_IDLE_BEFORE_CLOSE = 0
SCHEDULER_FLUSH_ON_START = False
# Standalone dupefilter (under Scrapy's own scheduler): its set; empty means the spider's
# SCHEDULER_DUPEFILTER_KEY, kept across runs (scrapy-redis: a new dupefilter:<timestamp>).
DUPEFILTER_KEY = ""
DUPEFILTER_DEBUG = False
# news_crawler.frontier.bloom.BloomDupeFilter (a bounded dupefilter): URLs per period it is sized for,
# its false-positive rate (a URL wrongly taken as seen is never fetched), the period, and how
# many periods a URL is remembered.
DUPEFILTER_BLOOM_CAPACITY = 1_000_000
DUPEFILTER_BLOOM_ERROR = 0.001
DUPEFILTER_BLOOM_PERIOD_DAYS = 30.0
DUPEFILTER_BLOOM_PERIODS = 12
# Requests are queued as JSON; SCHEDULER_SERIALIZER may name another module with loads()
# and dumps(), but a pickle only with SCHEDULER_ALLOW_PICKLE (unpickling runs code).
SCHEDULER_SERIALIZER = ""
# "scrapy": the crawler's request fingerprinter; "scrapy-redis": scrapy-redis 0.9's, to keep
# using a dupefilter set that scrapy-redis filled (see frontier/dupefilter.py).
DUPEFILTER_FINGERPRINT = "scrapy"
SCHEDULER_ALLOW_PICKLE = False
# A taken request is leased, not popped: renewed every third of this while its worker
# lives, put back in the queue when the worker dies (see leasing/).
SCHEDULER_LEASE_SECONDS = 120.0
# Every URL taken from the queue gets a recorded outcome (see outcomes/store.py); a transient
# failure or an error is tried again on the next runs, up to OUTCOME_RETRY_RUNS runs.
# Outcomes are kept in a hash per day, each deleted by the server OUTCOMES_KEEP_DAYS days
# later (0: one hash, kept forever).
OUTCOMES_KEY = "%(spider)s:outcomes"
OUTCOMES_KEEP_DAYS = 30
OUTCOMES_ATTEMPTS_KEY = "%(spider)s:attempts"
OUTCOME_RETRY_RUNS = 3
# Scrapy's retries within a run wait BASE * 2**(n-1) seconds before the n-th, at most MAX.
RETRY_BACKOFF_BASE = 1.0
RETRY_BACKOFF_MAX = 30.0
ARTICLE_MIN_CHARS = 50
# List pagination (the spider's follow patterns): pages followed from a start page, at most;
# and whether a list page whose article links were all seen before ends its pagination (for
# lists that run newest first, where the pages after it hold older articles: off, since a
# list that runs oldest first would then hide its new articles on later pages).
LIST_PAGE_LIMIT = 100
LIST_STOP_AT_SEEN = False
# A spider without follow patterns follows a list page's 下一页 (下页, next page) link, or its
# link numbered one past it, to a page of a start page's host that is no article, as its next page.
LIST_FOLLOW_NEXT = True
# New article links queued from one list page, feed or sitemap in one run, at most: the
# links past them are counted (links/over_limit/<site>) and taken by the next runs, so one
# page can never flood the queue. 0: no limit.
LIST_LINKS_MAX = 1000
# file: start pages (local testing); a file: link found in a page is never fetched.
START_URLS_ALLOW_FILE = False
# Parameters a link carries for tracking or for the visit, not for its article (?utm_source=rss,
# &spm=, a session id: ?sid=, ;jsessionid=, ?PHPSESSID=): taken off article links, in the query
# and as path parameters, so that one article is one URL whichever list, feed or visit linked it
# (and a daily run does not fetch it again under new ones). "": links kept as written. A site
# whose own ids use such a name (?sid=123 the story) sets strip_params in its sites file.
URL_TRACKING_PARAMS = (
    r"(?i)^(?:utm_[a-z_]+|spm|fbclid|gclid"  # tracking
    r"|sid|s?sessionid|session_id|jsessionid|phpsessid|aspsessionid\w*|cfid|cftoken)$"  # a visit's session
)
# An article split over pages (下一页, _2.shtml, ?page=2): pages joined into its item, at most.
ARTICLE_MAX_PAGES = 20
# An article's images, at most (the first ones of its story, each with its caption).
IMAGES_MAX = 30
ITEMS_REDIS_KEY = ""
# The items list keeps the newest this many (the oldest are trimmed and counted in
# items/redis_trimmed; every kept item is in the feed files too); 0: unbounded.
ITEMS_REDIS_MAX = 1_000_000
# Kept items also go to a Redis stream (XADD, fields url, version, item): consumers read it
# with consumer groups and acknowledgements. It keeps about the newest ..._MAXLEN entries
# (XADD MAXLEN ~); 0: unbounded.
ITEMS_REDIS_STREAM = ""
ITEMS_REDIS_STREAM_MAXLEN = 1_000_000
# Kept items also go to PostgreSQL (postgresql://user:password@host:port/db): upserted into
# the table articles, earlier versions in article_versions. Written in batches of at most
# DATABASE_BATCH, through a pool of at most DATABASE_POOL connections; a write that fails
# within DATABASE_TIMEOUT seconds makes its articles' outcome error (the next run writes them).
DATABASE_URL = ""
DATABASE_BATCH = 100
DATABASE_POOL = 4
DATABASE_TIMEOUT = 10.0
# Scrapy's feeds (any storage Scrapy supports), beside the feed files of FEED_DIR: as in Scrapy,
# {"s3://bucket/%(name)s/%(time)s.jsonl": {"format": "jsonlines"}}; from the environment, JSON.
FEEDS: dict[str, dict[str, object]] = {}
# A CSV cell from a page that a spreadsheet would run as a formula (=, +, -, @, tab, CR first)
# gets a leading ' (OWASP: CSV injection); False writes cells as they are.
FEED_CSV_ESCAPE_FORMULAS = True
# Which sinks took an article that a later sink failed (pipelines/delivery.py).
DELIVERIES_KEY = "%(spider)s:deliveries"
# Sites with render = "browser" (sites file) are fetched through Playwright with this Chromium
# ("": chromium, chromium-browser or google-chrome on PATH); at most BROWSER_PAGES pages open
# at once, a fresh browser context every BROWSER_CONTEXT_PAGES pages (middlewares/browser.py).
BROWSER_PATH = ""
BROWSER_PAGES = 3
BROWSER_CONTEXT_PAGES = 100
# A browser page's renderer may hold this many MiB (resident, and the script heap's bound):
# past it the renderer is ended and the page is invalid; the next page gets a new one.
BROWSER_MEMORY_MAX = 384
SUMMARY_FILE = ""
FEED_DIR = "output"  # under DATA_DIR unless absolute
# news-crawler crawl, worker, watch and recheck write Scrapy's log to a file of their own here
# (under DATA_DIR unless absolute; kept LOG_KEEP_DAYS days) and show a progress line and the
# summary; -v, or LOG_LEVEL or LOG_FILE set, shows the whole log on the terminal instead.
LOG_DIR = "logs"
LOG_KEEP_DAYS = 30

# Sites files (TOML, see spiders/sites.py) read after the built-in one, each adding sites or replacing
# one by name; several are separated by commas.
SITES_FILE = ""

# Cluster workers: start pages come from a Redis list per spider, filled by the seeder;
# a worker stops after WORKER_IDLE_SECONDS with nothing to do (0: never stops).
SEED_FROM_REDIS = False
SEED_KEY = "%(spider)s:start_urls"
WORKER_IDLE_SECONDS = 30.0

# Daily runs: lock, logs, summaries and reports under DAILY_DIR (under DATA_DIR unless absolute);
# DAILY_SPIDERS empty means every configured site.
DAILY_DIR = "daily"
DAILY_SPIDERS: list[str] = []

# Near-duplicate engine.
DEDUP_ENABLED = True
DEDUP_NAMESPACE = "news"
DEDUP_MAX_DISTANCE = 3
# The index's layout: the fingerprint's 64 bits cut into blocks (high bits first); one table
# for each choice of all blocks but DEDUP_MAX_DISTANCE of them, which must be fewer than the
# blocks (16,12,12,12,12 reaches distance 4). A namespace keeps the layout it was begun with.
DEDUP_BLOCKS = "16,16,16,16"
# Archive a generation when it is sealed (a new one began: DEDUP_RETENTION_DAYS): its tables
# sorted and compressed as the seed keeps them, read-only, deciding as before
# (news-dedup archive does it by hand).
DEDUP_ARCHIVE = False
# Which copy of a story is kept, its original: "earliest", the earliest published (a copy
# published more than a minute before the kept one takes its place, which becomes a copy of
# it); "first", the first decided. Copies without a published_at keep the first decided.
DEDUP_ORIGINAL = "earliest"
DEDUP_IDF_PATH = ""
DEDUP_STOP_WORDS_PATH = ""
DEDUP_TOPIC_WORDS: list[str] = []
DEDUP_TOPIC_WEIGHT = 1.0
DEDUP_TOP_K = 0
DEDUP_USE_TITLE = False
DEDUP_STRIP_BOILERPLATE = True
DEDUP_MAX_CHARS = 200_000
DEDUP_HMM = False
# Segmentation: "auto" uses rjieba where it gives jieba's words exactly (HMM off, no user
# dictionary), else jieba; "jieba" always jieba. DEDUP_USER_DICT: a jieba user dictionary.
DEDUP_SEGMENTER = "auto"
DEDUP_USER_DICT = ""
DEDUP_POSITION_DECAY = 10.0
DEDUP_MAX_WORD_SHARE = 0.1
DEDUP_BATCH_SIZE = 64
# Drop records (what each dropped article copies) kept at most: they are written in eras of
# half of it, and a new era deletes the one two before (lua/drops.lua). 0: no limit. A dropped article
# decided again after its record went is dropped again, as a new decision.
DEDUP_DROPS_MAX = 1_000_000
# The second signal (BENCHMARKS.md): a document that shares DEDUP_SENTENCE_MATCH of its
# DEDUP_SENTENCE_COUNT longest sentences (each of DEDUP_SENTENCE_MIN_CHARS Chinese characters
# or more, each key forgiving a small edit; a short story with three or four keys: all but one
# of them, with one or two: all) with a kept one,
# is within DEDUP_SENTENCE_MAX_DISTANCE bits of it and within DEDUP_SENTENCE_LENGTH_RATIO of
# its size, is dropped too. DEDUP_SENTENCES = False: simhash only.
DEDUP_SENTENCES = True
DEDUP_SENTENCE_COUNT = 5
DEDUP_SENTENCE_MATCH = 3
DEDUP_SENTENCE_MIN_CHARS = 8
# 22 rather than 24: stories retold around one quoted paragraph sit farther apart than the
# edited copies the rule is for (benchmarks/quality.py, four seeds: false drops 9/11/11/8 ->
# 8/9/10/7, recall 0.981/0.980/0.986 -> 0.978/0.980/0.985; BENCHMARKS.md).
DEDUP_SENTENCE_MAX_DISTANCE = 22
DEDUP_SENTENCE_LENGTH_RATIO = 0.8
# Retention: fingerprints are kept DEDUP_RETENTION_DAYS (0: for ever), in generations of
# DEDUP_GENERATION_DAYS; an expired generation is deleted whole.
DEDUP_RETENTION_DAYS = 0.0
DEDUP_GENERATION_DAYS = 7.0
# Worker processes for page extraction and fingerprints; 0: one thread; below 0: one per core.
DEDUP_PROCESSES = -1
# Seconds a page's extraction, or its fingerprint, may take: past it the worker is replaced
# and the page is invalid ("extraction took too long"). 0: no limit.
EXTRACT_TIMEOUT = 5.0
# After SIGTERM (or Ctrl-C) the requests not yet fetched go back to the queue at once; the ones
# being fetched have this many seconds, then their leases go back too and the crawl stops
# (docker stop and systemd wait 10 s before SIGKILL). 0: Scrapy's own stop, which fetches all.
STOP_TIMEOUT = 8.0

# news-crawler watch (WATCH: set by the command): each start page is visited again after an
# interval that follows how often it shows new links (frontier/revisits/estimate.py), between
# REVISIT_MIN and REVISIT_MAX seconds (a site's revisit_min and revisit_max in its sites
# file win); the schedule is shared in Redis under REVISIT_KEY.
WATCH = False
REVISIT_MIN = 300.0
REVISIT_MAX = 86400.0
REVISIT_KEY = "%(spider)s:revisits"
# How long each kept article took to be found (crawled_at - published_at), a histogram per
# spider: one for all time, one a day (kept OUTCOMES_KEEP_DAYS days).
LATENCY_KEY = "%(spider)s:latency"

# Every kept article is fetched again this long after it was kept, once an entry (a number
# and a unit, s m h d; a site's recheck_after in its sites file wins; "" for none): an edit
# is written as a new version, a deletion recorded (spiders/recheck.py). RECHECK (news-crawler
# recheck): fetch the due rechecks and nothing else. What they found is in CHANGES_KEY.
RECHECK_AFTER = "1h,6h,1d,3d,7d"
RECHECK = False
RECHECK_KEY = "%(spider)s:rechecks"
CHANGES_KEY = "%(spider)s:changes"

# Site alerts (ops/alerting.py): after every finished crawl (in watch, every
# ALERTS_WATCH_INTERVAL seconds) each site is judged against its own last ALERTS_HISTORY runs
# (fewer than ALERTS_MIN_RUNS: not judged): no_articles (kept none where it usually keeps
# some), extraction (the share of new articles with a body, an author or a time fell by
# ALERTS_SHARE_DROP, or the median body below ALERTS_LENGTH_RATIO of its usual; runs of at
# least ALERTS_MIN_ARTICLES new articles), failures (a start page failed, or more than
# ALERTS_FAILED_SHARE of the fetches). Its history and alerts are under HEALTH_KEY.
ALERTS_ENABLED = True
ALERTS_HISTORY = 7
ALERTS_MIN_RUNS = 3
ALERTS_MIN_ARTICLES = 3
ALERTS_SHARE_DROP = 0.4
ALERTS_LENGTH_RATIO = 0.4
ALERTS_FAILED_SHARE = 0.5
ALERTS_WATCH_INTERVAL = 3600.0
HEALTH_KEY = "%(spider)s:health"
# Where alerts go, at most one a site and kind a day, and one "recovered" when it clears: an
# HTTP POST of JSON to ALERTS_WEBHOOK_URL; mail through ALERTS_SMTP_URL
# (smtp://[user:password@]host:port, STARTTLS when offered) to ALERTS_EMAIL_TO (addresses,
# comma-separated) from ALERTS_EMAIL_FROM. A channel that does not answer within
# ALERTS_TIMEOUT seconds failed: one log line, the crawl goes on.
ALERTS_WEBHOOK_URL = ""
ALERTS_SMTP_URL = ""
ALERTS_EMAIL_TO = ""
ALERTS_EMAIL_FROM = "news-crawler@localhost"
ALERTS_TIMEOUT = 5.0
