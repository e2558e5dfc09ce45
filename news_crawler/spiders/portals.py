"""Spiders for the big Chinese portals: their real start pages and article URL patterns.

Each is the generic spider with its site's knowledge filled in. Start pages are the
portals' news front pages and channel lists (and RSS where the portal has one); article
patterns cover the URL shapes the portals have used for years, older ones included,
because old articles stay linked from new pages.
"""

from news_crawler.spiders.news import NewsSpider


class SinaSpider(NewsSpider):
    name = site = "sina"
    start_urls = ["https://news.sina.com.cn/", "https://news.sina.com.cn/china/", "https://news.sina.com.cn/world/",
                  "https://finance.sina.com.cn/"]
    allow = [r"^https?://(?:news|finance|ent|sports|tech|mil)\.sina\.com\.cn/(?:[\w-]+/)*\d{4}-\d{2}-\d{2}/doc-i[a-z0-9]+\.shtml"]


class NetEaseSpider(NewsSpider):
    name = site = "163"
    start_urls = ["https://news.163.com/", "https://news.163.com/domestic/", "https://news.163.com/world/",
                  "https://tech.163.com/"]
    allow = [r"^https?://www\.163\.com/(?:news|dy|money|ent|tech|sports)/article/[0-9A-Z]{16}\.html",
             r"^https?://(?:news|tech|money|ent|sports)\.163\.com/\d{2}/\d{4}/\d{2}/[0-9A-Z]{16}\.html",
             r"^https?://dy\.163\.com/v2/article/detail/[0-9A-Z]{16}\.html"]


class SohuSpider(NewsSpider):
    name = site = "sohu"
    start_urls = ["https://news.sohu.com/", "https://business.sohu.com/", "https://auto.sohu.com/"]
    allow = [r"^https?://www\.sohu\.com/a/\d+_\d+",
             r"^https?://(?:news|business|auto|it)\.sohu\.com/\d{8}/n\d+\.shtml"]


class QQSpider(NewsSpider):
    name = site = "qq"
    start_urls = ["https://news.qq.com/"]
    allow = [r"^https?://(?:new|news)\.qq\.com/(?:rain/a|omn(?:/\d{8})?)/[0-9A-Za-z]{10,}",
             r"^https?://news\.qq\.com/a/\d{8}/\d+\.htm"]


class IfengSpider(NewsSpider):
    name = site = "ifeng"
    start_urls = ["https://news.ifeng.com/", "https://finance.ifeng.com/"]
    allow = [r"^https?://(?:news|finance|ent|tech|mil)\.ifeng\.com/c/[0-9A-Za-z]{8,}",
             r"^https?://\w+\.ifeng\.com/a/\d{8}/\d+_0\.shtml"]


class PeopleSpider(NewsSpider):
    name = site = "people"
    start_urls = ["http://www.people.com.cn/", "http://politics.people.com.cn/", "http://society.people.com.cn/"]
    allow = [r"^https?://\w+\.people\.com\.cn/n1/\d{4}/\d{4}/c\d+-\d+\.html"]


class XinhuanetSpider(NewsSpider):
    name = site = "xinhuanet"
    start_urls = ["http://www.news.cn/", "http://www.xinhuanet.com/"]
    allow = [r"^https?://www\.(?:news|xinhuanet)\.(?:cn|com)/(?:\w+/)?\d{4}-\d{2}/\d{2}/c_\d+\.htm",
             r"^https?://www\.news\.cn/\w+/\d{8}/[0-9a-f]{32}/c\.html"]


class ChinanewsSpider(NewsSpider):
    name = site = "chinanews"
    start_urls = ["https://www.chinanews.com.cn/scroll-news/news1.html",
                  "https://www.chinanews.com.cn/rss/scroll-news.xml"]
    allow = [r"^https?://www\.chinanews\.com(?:\.cn)?/\w+/\d{4}/\d{2}-\d{2}/\d+\.shtml"]
    allowed_domains = ["chinanews.com.cn", "chinanews.com"]  # older articles are linked at chinanews.com


class ThepaperSpider(NewsSpider):
    name = site = "thepaper"
    start_urls = ["https://www.thepaper.cn/"]
    allow = [r"^https?://www\.thepaper\.cn/newsDetail_forward_\d+"]


class HuanqiuSpider(NewsSpider):
    name = site = "huanqiu"
    start_urls = ["https://www.huanqiu.com/", "https://world.huanqiu.com/"]
    allow = [r"^https?://\w+\.huanqiu\.com/article/[0-9A-Za-z]{8,}", r"^https?://3w\.huanqiu\.com/a/\w+/\w+"]


PORTALS = [SinaSpider, NetEaseSpider, SohuSpider, QQSpider, IfengSpider, PeopleSpider, XinhuanetSpider,
           ChinanewsSpider, ThepaperSpider, HuanqiuSpider]
