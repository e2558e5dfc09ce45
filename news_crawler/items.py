"""The article item: the fields other tools rely on (MISSION.md)."""

import scrapy


class ArticleItem(scrapy.Item):
    url = scrapy.Field()
    site = scrapy.Field()
    title = scrapy.Field()
    author = scrapy.Field()
    published_at = scrapy.Field()  # ISO 8601; +08:00 (Asia/Shanghai) when the page gives no zone
    body = scrapy.Field()  # plain text, one paragraph per line
    simhash = scrapy.Field()  # 16 hex digits, set by the near-duplicate pipeline
    crawled_at = scrapy.Field()  # ISO 8601, UTC, to the millisecond
    editor = scrapy.Field()  # 责任编辑/编辑, "" when the page names none
    source = scrapy.Field()  # the outlet the story comes from (来源), "" when the page names none
    contributors = scrapy.Field()  # correspondents and interns (通讯员, 实习生), space-separated
    images = scrapy.Field()  # the article's own images, in order: [{"url", "caption"}]
    description = scrapy.Field()  # the page's summary of its article (its description meta tag)
    tags = scrapy.Field()  # the page's own keywords and tags
    updated_at = scrapy.Field()  # ISO 8601, when the page states a modification, else ""
    version = scrapy.Field()  # 1 as first kept; n >= 2 for the edits a recheck found
    # the URLs of the articles kept before that this one replaced as its story's original
    # (published earlier: DEDUP_ORIGINAL); absent otherwise
    supersedes = scrapy.Field()
    encoding = scrapy.Field()  # how the page was decoded
    # the outlet whose page it is (og:site_name, the site's name in <title>): matched to another
    # copy's source (来源) to tell the story's original (never written anywhere)
    outlet = scrapy.Field()
    invalid_reason = scrapy.Field()  # set by the spider when it knows the page is unusable
    invalid_kind = scrapy.Field()  # that reason's stat: articles/invalid_reason/<kind>
    # (Fingerprint, None) or (None, why): computed with the fields in the worker pool and
    # taken off by the near-duplicate pipeline (never written anywhere)
    fingerprint = scrapy.Field()
