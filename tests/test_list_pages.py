"""The generic spider finds every article: Atom feeds, XHTML list pages, list pagination
(``-a follow``, at most ``LIST_PAGE_LIMIT`` deep), and articles split over pages, joined
into one item at the first page's URL. A real crawl over HTTP of real article texts."""

import gzip
import html
import json
import subprocess
import sys
from urllib.parse import urljoin

import pytest

from news_crawler.extraction.pagination import joined_pages, next_page, page_of
from news_crawler.spiders.listing import feed_links, is_feed, root_element
from news_mirror.catalog import Catalog
from news_mirror.handler import mirror_path
from news_mirror.server import Mirror, serve
from tests.crawl_helpers import ROOT, mirror_env

SITE = "https://www.example.cn"


def article_page(title: str, paragraphs: list[str], extra: str = "") -> bytes:
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title></head><body>"
        f"<h1>{html.escape(title)}</h1><div class='time'>2024-05-06 10:20</div>"
        f"<div class='article'>{body}</div>{extra}<a href='/news/other.html'>下一篇</a></body></html>"
    ).encode()


def xhtml_article_page(title: str, paragraphs: list[str]) -> bytes:
    """An older site's XHTML article: an XML prolog declaring GBK, the only charset anywhere."""
    page = article_page(title, paragraphs).decode().replace("<meta charset='utf-8'>", "")
    page = page.replace(
        "<!DOCTYPE html><html>",
        "<?xml version='1.0' encoding='gbk'?>\n<!DOCTYPE html PUBLIC "
        "'-//W3C//DTD XHTML 1.0 Transitional//EN' 'http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd'>"
        "<html xmlns='http://www.w3.org/1999/xhtml'>",
    )
    return page.encode("gbk", "xmlcharrefreplace")


def list_page(links: list[str], more: str = "") -> bytes:
    items = "".join(f"<li><a href='{u}'>标题{n}</a></li>" for n, u in enumerate(links))
    return f"<html><body><ul>{items}</ul>{more}</body></html>".encode()


def thirds_of(body: str) -> list[list[str]]:
    sentences = [s + "。" for s in body.replace("\n", "").split("。") if s.strip()]
    cut = len(sentences) // 3
    return [sentences[:cut], sentences[cut : 2 * cut], sentences[2 * cut :]]


@pytest.fixture
def site(sina_articles):
    """A site with an Atom feed, an XHTML list, a list over three pages and a three-page article."""
    texts = [a for a in sina_articles if len(a["body"]) > 900][:10]
    urls = [f"{SITE}/news/2024/a{n}.html" for n in range(9)]
    mirror = Mirror(Catalog(), day=1)
    for n, (url, a) in enumerate(zip(urls[:8], texts)):
        if n in (2, 3):  # the XHTML list's articles are XHTML too
            mirror.add(url, xhtml_article_page(a["title"], a["body"].splitlines()), "application/xhtml+xml")
        else:
            mirror.add(url, article_page(a["title"], a["body"].splitlines()))
    thirds = thirds_of(texts[8]["body"])
    story = f"{SITE}/news/2024/story.html"
    for n, part in enumerate(thirds, 1):
        page = story if n == 1 else f"{SITE}/news/2024/story_{n}.html"
        nav = f"<a href='story_{n + 1}.html'>下一页</a>" if n < 3 else "<a href='story_2.html'>上一页</a>"
        mirror.add(page, article_page(texts[8]["title"], part, nav))
    trs = f"{SITE}/news/2024/t20240506_4567890.html"  # numbered as TRS does: page 2 is _1, page 3 _2
    for n, part in enumerate(thirds_of(texts[9]["body"]), 1):
        page = trs if n == 1 else trs.replace(".html", f"_{n - 1}.html")
        nav = (
            f"<a href='t20240506_4567890_{n}.html'>下一页</a>"
            if n < 3
            else "<a href='t20240506_4567890_1.html'>上一页</a>"
        )
        mirror.add(page, article_page(texts[9]["title"], part, nav))
    atom = "".join(
        f"<entry><title>t</title><link rel='alternate' href='{u}'/><id>tag:example.cn,{n}</id></entry>"
        for n, u in enumerate(urls[:2])
    )
    mirror.add(
        f"{SITE}/atom.xml",
        (
            f"<?xml version='1.0' encoding='utf-8'?><feed xmlns='http://www.w3.org/2005/Atom'>"
            f"<link rel='self' href='{SITE}/atom.xml'/>{atom}</feed>"
        ).encode(),
        "application/atom+xml",
    )
    xhtml = list_page(urls[2:4]).decode().replace("<html>", "<html xmlns='http://www.w3.org/1999/xhtml'>")
    # served as XML, as older CMSs serve XHTML (Scrapy makes it an XmlResponse, not an HtmlResponse)
    mirror.add(f"{SITE}/list.xhtml", ("<?xml version='1.0' encoding='utf-8'?>" + xhtml).encode(), "text/xml")
    mirror.add(
        f"{SITE}/news/index.html",
        list_page([urls[4], story, story.replace(".html", "_2.html")], "<a href='index_2.html'>下一页</a>"),
    )
    mirror.add(
        f"{SITE}/news/index_2.html",
        list_page([urls[5]], "<a href='index.html'>1</a> <a href='index_3.html'>3</a> <a href='index_4.html'>4</a>"),
    )  # numbers only
    mirror.add(f"{SITE}/news/index_3.html", list_page([urls[6]], "<a href='index_4.html'>下一页</a>"))
    mirror.add(f"{SITE}/news/index_4.html", list_page([urls[7], trs]))
    server = serve(mirror)
    yield mirror, f"http://127.0.0.1:{server.server_address[1]}", urls, story, texts, trs
    server.shutdown()


def crawl(
    tmp_path,
    redis_url,
    mirror_url,
    name,
    start_urls=f"{SITE}/atom.xml,{SITE}/list.xhtml,{SITE}/news/index.html",
    follow=r"/news/index_\d+\.html",
    **settings,
):
    out = tmp_path / f"{name}.jsonl"
    args = [
        sys.executable,
        "-m",
        "scrapy",
        "crawl",
        "news",
        "-O",
        str(out),
        "-a",
        f"start_urls={start_urls}",
        "-a",
        r"allow=/news/20\d\d/",
        "-a",
        f"follow={follow}",
        "-s",
        f"REDIS_URL={redis_url}",
        "-s",
        f"DEDUP_NAMESPACE={name}",
        "-s",
        f"FEED_DIR={tmp_path / name}",
    ]
    for key, value in settings.items():
        args += ["-s", f"{key}={value}"]
    result = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=300, env=mirror_env(mirror_url))
    assert result.returncode == 0, result.stderr[-3000:]
    crawl.log = result.stderr
    return {i["url"]: i for i in map(json.loads, out.read_text().splitlines())}


def urlset(urls: list[str]) -> bytes:
    entries = "".join(f"<url><loc>{u}</loc><lastmod>2024-05-06</lastmod></url>" for u in urls)
    return (
        "<?xml version='1.0' encoding='UTF-8'?><urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>"
        f"{entries}</urlset>"
    ).encode()


def test_a_sitemap_index_of_plain_and_gzipped_sitemaps(tmp_path, redis_server, sina_articles):
    texts = [a for a in sina_articles if len(a["body"]) > 900][10:15]
    urls = [f"{SITE}/news/2024/m{n}.html" for n in range(5)]
    mirror = Mirror(Catalog(), day=1)
    for url, a in zip(urls, texts):
        mirror.add(url, article_page(a["title"], a["body"].splitlines()))
    mirror.add(f"{SITE}/sitemap-1.xml", urlset(urls[:2]), "application/xml")
    mirror.add(f"{SITE}/sitemap-2.xml.gz", gzip.compress(urlset(urls[2:4])), "application/x-gzip")  # a file
    mirror.add(f"{SITE}/archive/old.xml", urlset(urls[4:]), "application/xml")  # not matching follow
    children = [f"{SITE}/sitemap-1.xml", f"{SITE}/sitemap-2.xml.gz", f"{SITE}/archive/old.xml"]
    index = (
        "<?xml version='1.0' encoding='UTF-8'?><sitemapindex>"
        + "".join(f"<sitemap><loc>{u}</loc></sitemap>" for u in children)
        + "</sitemapindex>"
    ).encode()
    mirror.add(f"{SITE}/sitemap.xml.gz", gzip.compress(index), "application/x-gzip")  # the index gzipped too
    mirror.add(f"{SITE}/broken.xml.gz", b"\x1f\x8b\x08\x00" + b"not gzip at all", "application/x-gzip")
    server = serve(mirror)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        items = crawl(
            tmp_path,
            redis_server.url,
            url,
            "sitemaps",
            start_urls=f"{SITE}/sitemap.xml.gz,{SITE}/broken.xml.gz",
            follow=r"/sitemap-\d+\.xml",
        )
    finally:
        server.shutdown()
    assert set(items) == set(urls[:4])  # both sitemaps' articles; the unfollowed one's not
    assert mirror_path(f"{SITE}/archive/old.xml") not in mirror.requests
    assert "broken.xml.gz is gzip that cannot be unpacked" in crawl.log


def test_feeds_xhtml_pagination_and_multi_page_articles(tmp_path, redis_server, redis_client, site):
    mirror, url, urls, story, texts, trs = site
    items = crawl(tmp_path, redis_server.url, url, "all")
    assert set(items) == set(urls[:8]) | {story, trs}  # every article, and story_2 never an item of its own
    for first, text in ((story, texts[8]), (trs, texts[9])):
        joined = items[first]["body"]
        sentences = [s for s in text["body"].replace("\n", "").split("。") if s.strip()]
        assert all(s.strip() in joined for s in sentences)  # the three pages' text, in one item
        assert joined.index(sentences[0].strip()) < joined.index(sentences[-1].strip())
        assert items[first]["title"] == text["title"]
    for n in (2, 3):  # XHTML, GBK declared only in the XML prolog
        first = texts[n]["body"].splitlines()[0].strip()
        assert items[urls[n]]["title"] == texts[n]["title"] and items[urls[n]]["body"].startswith(first[:30])
        assert items[urls[n]]["published_at"].startswith("2024-05-06T10:20")
    assert mirror.article_requests().count(mirror_path(story.replace(".html", "_2.html"))) == 1  # once, as page 2

    redis_client.delete(*redis_client.keys("news:*"))  # a fresh start, one list page deep
    since = len(mirror.requests)
    shallow = crawl(tmp_path, redis_server.url, url, "shallow", LIST_PAGE_LIMIT=1)
    asked = mirror.requests[since:]
    assert mirror_path(f"{SITE}/news/index_2.html") in asked and mirror_path(f"{SITE}/news/index_3.html") not in asked
    assert urls[5] in shallow and urls[6] not in shallow


def test_without_follow_a_list_s_next_page_link_is_followed(tmp_path, redis_server, redis_client, site):
    """No -a follow: a list page's 下一页 link to a page that is no article is the list's next
    page (LIST_FOLLOW_NEXT, on by default), and so is its link numbered one past it (page 2
    links 3; not 4); 下一篇 and the articles' own pagers are not."""
    mirror, url, urls, story, texts, trs = site
    redis_client.delete(*redis_client.keys("news:*") or ["none"])
    items = crawl(tmp_path, redis_server.url, url, "next", start_urls=f"{SITE}/news/index.html", follow="")
    assert set(urls[4:8]) | {story, trs} == set(items)  # all four list pages' articles
    assert "pages/list/www.example.cn': 4" in crawl.log
    assert mirror.requests.count(mirror_path(f"{SITE}/news/index_4.html")) == 1  # from page 3, at its depth
    redis_client.delete(*redis_client.keys("news:*") or ["none"])
    items = crawl(
        tmp_path,
        redis_server.url,
        url,
        "first-only",
        start_urls=f"{SITE}/news/index.html",
        follow="",
        LIST_FOLLOW_NEXT="False",
    )
    assert set(items) == {urls[4], story}


def test_a_list_page_whose_articles_were_all_seen_ends_its_pagination(
    tmp_path, redis_server, redis_client, site, sina_articles
):
    mirror, url, urls, story, texts, trs = site
    redis_client.delete(*redis_client.keys("news:*") or ["none"])
    start = f"{SITE}/news/index.html"
    crawl(tmp_path, redis_server.url, url, "day1", start_urls=start, LIST_STOP_AT_SEEN="True")  # the whole list
    new_url = f"{SITE}/news/2024/new.html"
    mirror.add(new_url, article_page(sina_articles[40]["title"], sina_articles[40]["body"].splitlines()))
    mirror.add(start, list_page([new_url, urls[4]], "<a href='index_2.html'>下一页</a>"))  # newest first
    since = len(mirror.requests)
    day2 = crawl(tmp_path, redis_server.url, url, "day2", start_urls=start, LIST_STOP_AT_SEEN="True")
    asked = mirror.requests[since:]
    assert set(day2) == {new_url}
    assert mirror_path(f"{SITE}/news/index_2.html") in asked  # the first page had a new article
    assert mirror_path(f"{SITE}/news/index_3.html") not in asked  # the second had none: its next pages are older
    assert "pages/list_ended_at_seen/" in crawl.log
    since = len(mirror.requests)
    crawl(tmp_path, redis_server.url, url, "day2-all", start_urls=start)
    assert mirror_path(f"{SITE}/news/index_4.html") in mirror.requests[since:]  # off (the default): every page


def test_tracking_parameters_leave_article_links_so_one_article_is_one_url(tmp_path, redis_server, redis_client, site):
    mirror, url, urls, story, texts, trs = site
    redis_client.delete(*redis_client.keys("news:*") or ["none"])
    feed = "".join(f"<item><title>t</title><link>{u}</link></item>" for u in (urls[0] + "?utm_source=rss", urls[1]))
    mirror.add(
        f"{SITE}/rss.xml", f"<?xml version='1.0'?><rss><channel>{feed}</channel></rss>".encode(), "application/rss+xml"
    )
    mirror.add(f"{SITE}/tracked.html", list_page([urls[0] + "?spm=a1.b2&amp;utm_medium=list", urls[1] + "#comments"]))
    # (the list page before the feed: its links come first)
    since = len(mirror.requests)
    items = crawl(
        tmp_path,
        redis_server.url,
        url,
        "tracked",
        start_urls=f"{SITE}/tracked.html,{SITE}/rss.xml",
        CONCURRENT_REQUESTS=1,
    )
    assert set(items) == {urls[0], urls[1]}, crawl.log[-3000:]
    asked = mirror.requests[since:]
    assert mirror_path(urls[0]) in asked and not [r for r in asked if "utm_" in r or "spm=" in r]  # under its own URL


def test_articles_whose_urls_end_in_a_small_number_are_no_later_pages_unless_the_list_links_the_first(
    tmp_path, redis_server, redis_client, site, sina_articles
):
    """show_12.html is article 12, not page 12 of show.html: only a list that also links
    show.html makes show_2.html its second page."""
    mirror, url, urls, story, texts, trs = site
    redis_client.delete(*redis_client.keys("news:*") or ["none"])
    ids = [f"{SITE}/news/2024/show_{n}.html" for n in (12, 13, 7)]
    for n, u in enumerate(ids):
        mirror.add(u, article_page(sina_articles[50 + n]["title"], sina_articles[50 + n]["body"].splitlines()))
    mirror.add(f"{SITE}/news/2024/show.html", b"<html><body>not an article</body></html>")
    feed = "".join(f"<item><title>t</title><link>{u.replace(SITE, '')}</link></item>" for u in ids[2:])  # relative
    mirror.add(
        f"{SITE}/ids.xml", f"<?xml version='1.0'?><rss><channel>{feed}</channel></rss>".encode(), "application/rss+xml"
    )
    mirror.add(f"{SITE}/ids.html", list_page(ids[:2] + [story.replace(".html", "_2.html"), story]))
    items = crawl(tmp_path, redis_server.url, url, "ids", start_urls=f"{SITE}/ids.html,{SITE}/ids.xml")
    assert set(items) == set(ids) | {story}, crawl.log[-3000:]
    assert mirror_path(f"{SITE}/news/2024/show.html") not in mirror.requests


def test_list_page_and_feed_recognition():
    assert root_element(b"\xef\xbb\xbf<?xml version='1.0'?>\n<!-- c --><feed xmlns='x'>") == "feed"
    assert is_feed(b"<?xml version='1.0'?><rss version='2.0'>") and is_feed(b"<urlset>")
    assert not is_feed(b"<?xml version='1.0'?><!DOCTYPE html><html xmlns='http://www.w3.org/1999/xhtml'>")
    subset = b"<?xml version='1.0'?>\n<!DOCTYPE rss [\n<!ENTITY c \"&#169;\">\n<!ENTITY x SYSTEM 'file:///etc/passwd'>]>\n<rss>"
    assert is_feed(subset) and list(feed_links(subset + b"<item><link>&x;</link></item></rss>")) == []
    atom = (
        b"<feed><link href='https://a.cn/1.html'/><entry><link rel='alternate' href=\"https://a.cn/2.html\"/></entry>"
    )
    rss = b"<rss><item><link>https://a.cn/3.html</link><guid><![CDATA[https://a.cn/4.html]]></guid></item></rss>"
    assert list(feed_links(atom)) == ["https://a.cn/1.html", "https://a.cn/2.html"]
    assert list(feed_links(rss)) == ["https://a.cn/3.html", "https://a.cn/4.html"]


def test_a_feed_s_relative_links_are_read_against_its_own_url():
    rss = (
        b"<rss><channel><link>/</link><item><link>/news/5.html</link><guid isPermaLink='false'>5</guid></item>"
        b"<item><link>\n  //b.cn/6.html\n</link></item><item><link>7.html</link></item></channel></rss>"
    )
    assert list(feed_links(rss, "https://a.cn/feeds/rss.xml")) == [
        "https://a.cn/",
        "https://a.cn/news/5.html",
        "https://b.cn/6.html",
        "https://a.cn/feeds/7.html",
    ]
    atom = b"<feed><entry><link rel='alternate' href='/news/8.html'/><id>urn:uuid:1</id></entry></feed>"
    assert list(feed_links(atom, "https://a.cn/atom.xml")) == ["https://a.cn/news/8.html"]
    assert list(feed_links(b"<urlset><url><loc>https://a.cn/9.html</loc></url></urlset>")) == ["https://a.cn/9.html"]


def test_pages_of_an_article():
    assert page_of("https://a.cn/n/x_3.shtml") == ("https://a.cn/n/x.shtml", 3)
    assert page_of("https://a.cn/a.html?id=5&page=2") == ("https://a.cn/a.html?id=5", 2)
    assert page_of("https://a.cn/n/2024_05.html") == ("https://a.cn/n/2024_05.html", 1)  # not a page number
    page = "<a href='x_2.shtml'><span>下一页</span></a><a href='y.shtml'>下一篇</a>"
    assert next_page(page, "https://a.cn/n/x.shtml") == "https://a.cn/n/x_2.shtml"
    assert next_page(page, "https://a.cn/n/x_2.shtml") is None  # a link back is not the next page
    assert next_page("<a href='y.shtml'>下一篇</a>", "https://a.cn/n/x.shtml") is None


def test_a_later_page_s_lines_already_in_the_pages_before_are_left_out():
    first = "县里召开秋粮收购工作会议，部署今年秋粮收购各项工作。\n会议要求各乡镇切实做好收购服务，确保农民卖粮方便。"
    # page 2 repeats the article's summary box (its first words, cut off) and a line of page 1
    second = (
        "县里召开秋粮收购工作会议，部署今年...\n会议要求各乡镇切实做好收购服务，确保农民卖粮方便"
        "。\n收购从十月开始，持续两个月。\n好。"
    )
    assert joined_pages(first, second) == first + "\n收购从十月开始，持续两个月。\n好。"
    # below its first new line, a paragraph the story quotes again stays
    quoted = "收购从十月开始，持续两个月。\n会议要求各乡镇切实做好收购服务，确保农民卖粮方便。"
    assert joined_pages(first, quoted) == first + "\n" + quoted
    assert joined_pages("", second) == second and joined_pages(first, "") == first


def test_a_later_page_s_few_last_lines_are_its_body():
    from news_crawler.extraction import extract_article

    rest = (
        "蓝洁瑛过去提到曾被性侵的不堪往事时，表示男友新年期间跑出去玩无故冷落她，甚至还不避讳露出旧"
        "伤痕，凄凉处境让人心疼不已。"
    )
    page = (
        "<html><head><title>蓝洁瑛被曝每晚凄厉惨叫--某某市新闻网</title></head><body><div class='top'><a>首页</a> | "
        "<a>本地</a></div><div class='wrap'><div class='biaoti'>蓝洁瑛被曝每晚凄厉惨叫</div><div clas"
        "s='xinxi'><font>日期："
        f"2019-3-3 9:59&nbsp;&nbsp;作者：刘芳</font></div><div class='zhengwen'>&nbsp;&nbsp;&nbsp;&nbsp;{rest}</div>"
        "<div class='fenye'>上一篇：<a>3D戏曲电影用科技做翅膀 让传统戏曲飞得更高更远</a><br>下一篇：<"
        "a>4金块拼出嘉禾片头 "
        "邹文怀被赞“香港电影教父”</a></div></div><div class='page'><a href='x.html'>上一页</a></div></body></html>"
    )
    assert extract_article(page, "https://a.cn/n/x_2.html").body == rest
    # readability takes the menu; on a first page a story so short is not looked for
    assert extract_article(page, "https://a.cn/n/x.html").body != rest


def test_a_first_page_s_few_lines_are_its_body_when_a_next_page_follows():
    from news_crawler.extraction.page import page_fields

    lead = "因为昨天都在工作，得知消息有些惊讶及伤感，第一时间都觉得很可惜不知道说什么，真的觉得很可惜及伤感。"
    page = (
        "<html><head><title>蓝洁瑛被曝每晚凄厉惨叫--某某市新闻网</title></head><body><div class='top'><a>首页</a> | "
        "<a>本地</a></div><div class='wrap'><div class='biaoti'>蓝洁瑛被曝每晚凄厉惨叫</div><div clas"
        "s='xinxi'><font>日期："
        f"2019-3-3 9:59&nbsp;&nbsp;作者：刘芳</font></div><div class='zhengwen'>&nbsp;&nbsp;&nbsp;&nbsp;{lead}</div>"
        "<div class='fenye'>上一篇：<a>3D戏曲电影用科技做翅膀 让传统戏曲飞得更高更远</a><br>下一篇：<"
        "a>4金块拼出嘉禾片头 "
        "邹文怀被赞“香港电影教父”</a></div></div>{pager}</body></html>"
    )
    paged = page_fields(
        page.format(pager="<div class='page'><a href='x_2.html'>下一页</a></div>").encode(),
        "text/html",
        "https://a.cn/n/x.html",
    )
    assert paged["next_page"] == "https://a.cn/n/x_2.html" and paged["body"] == lead
    alone = page_fields(page.format(pager="").encode(), "text/html", "https://a.cn/n/x.html")
    assert alone["next_page"] is None and alone["body"] != lead  # a page alone so short is not looked for


@pytest.mark.parametrize(
    "here,there",
    [
        ("https://a.gov.cn/art/t20181105_123456.html", "t20181105_123456_1.html"),  # TRS numbers from 0: _1 is page 2
        ("https://a.gov.cn/art/t20181105_123456_1.html", "t20181105_123456_2.html"),
        ("https://bbs.a.cn/article-123-1.html", "article-123-2.html"),  # Discuz's portal
        ("https://a.cn/2018/11/slug/", "/2018/11/slug/2/"),  # WordPress
        ("https://a.cn/show.asp?id=5", "show.asp?id=5&pageindex=2"),
    ],
)
def test_a_next_page_link_to_the_article_s_next_page_in_other_numberings(here, there):
    page = f"<div class='pages'><a href='{there}'>下一页</a></div><a href='/n/7.html'>下一篇</a>"
    assert next_page(page, here) == urljoin(here, there)


@pytest.mark.parametrize(
    "here,there",
    [
        ("https://a.cn/news-456.html", "news-457.html"),  # another article, whatever the link says
        ("https://a.cn/2018/11/slug/", "/2018/11/other/2/"),
        ("https://a.cn/n/x_3.html", "x_2.html"),  # back
        ("https://a.cn/show.asp?id=5", "show.asp?id=6"),
    ],
)
def test_a_next_page_link_to_another_article_or_back_is_not_followed(here, there):
    assert next_page(f"<a href='{there}'>下一页</a>", here) is None


def test_the_last_of_an_article_s_pages_in_another_numbering_is_read_as_a_later_page():
    from news_crawler.extraction.page import page_fields

    rest = (
        "蓝洁瑛过去提到曾被性侵的不堪往事时，表示男友新年期间跑出去玩无故冷落她，甚至还不避讳露出旧"
        "伤痕，凄凉处境让人心疼不已。"
    )
    page = (
        "<html><head><title>蓝洁瑛被曝每晚凄厉惨叫--某某市新闻网</title></head><body><div class='top'><a>首页</a> | "
        "<a>本地</a></div><div class='wrap'><div class='biaoti'>蓝洁瑛被曝每晚凄厉惨叫</div><div clas"
        "s='xinxi'><font>日期："
        f"2019-3-3 9:59&nbsp;&nbsp;作者：刘芳</font></div><div class='zhengwen'>&nbsp;&nbsp;&nbsp;&nbsp;{rest}</div>"
        "<div class='fenye'>上一篇：<a>3D戏曲电影用科技做翅膀 让传统戏曲飞得更高更远</a><br>下一篇：<"
        "a>4金块拼出嘉禾片头 "
        "邹文怀被赞“香港电影教父”</a></div></div><div class='page'><a href='t1_5.html'>上一页</a></div></body></html>"
    )
    url = "https://a.gov.cn/art/t1_5_1.html"  # TRS's page 2: its URL does not tell
    assert page_fields(page.encode(), "text/html", url, later=True)["body"] == rest
    assert page_fields(page.encode(), "text/html", url)["body"] != rest


def test_html_links_streams_the_links_scrapy_s_link_extractor_finds():
    """The streaming reader gives every http(s) link of the real saved pages that Scrapy's
    LinkExtractor gives, in the same order (same-page #links and empty hrefs aside)."""
    from scrapy.http import HtmlResponse
    from scrapy.linkextractors import LinkExtractor
    from w3lib.url import safe_url_string

    from news_crawler.spiders.listing import html_links
    from news_mirror.data import SHIPPED_DATA

    pages = SHIPPED_DATA.pages(SHIPPED_DATA.cwced)
    extractor, base = LinkExtractor(unique=False, deny_extensions=[]), "https://www.example.cn/news/index.html"
    compared = 0
    for name, page in pages:
        response = HtmlResponse(base, body=page)
        expected = [link.url.strip() for link in extractor.extract_links(response) if not link.url.startswith(base)]
        streamed = [
            safe_url_string(url, response.encoding)
            for url, _ in html_links(response.text, base)
            if url.startswith(("http:", "https:", "file:")) and not url.startswith(base)
        ]
        assert streamed == expected, name
        compared += len(expected)
    assert compared > 3000


def test_a_tracking_pattern_is_matched_at_the_start_of_each_parameter_name():
    """As ``re.match`` reads a pattern: ``ref`` takes ``ref`` and ``referrer`` off, never
    ``xref`` (a name that only holds it); path parameters alike; the rest stay as written."""
    import re

    from news_crawler.spiders.listing import without_tracking

    ref = re.compile("ref")
    assert without_tracking("https://a.cn/n/1.html?xref=2&ref=home&referrer=x&id=7#top", ref) == (
        "https://a.cn/n/1.html?xref=2&id=7#top"
    )
    assert without_tracking("https://a.cn/n;refid=3;xref=4/1.html?ref=1", ref) == "https://a.cn/n;xref=4/1.html"
    assert without_tracking("https://a.cn/n/1.html?ref=1", None) == "https://a.cn/n/1.html?ref=1"
