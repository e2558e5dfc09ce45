"""What a page states in markup: JSON-LD, microdata, ``<time datetime>``, an element marked
as the author; and bylines whose parts stand in elements of their own."""

import json
from datetime import datetime
from html import escape

from news_crawler.extraction import extract_article

STORY = [
    "市政府昨天召开新闻发布会，介绍今年城市更新工作的进展情况和下一步安排。",
    "会上介绍，全市已完成老旧小区改造一百二十个，惠及居民四万余户，群众满意度明显提升。",
    "下一步，全市将继续推进城市更新，重点解决停车难、加装电梯等群众关心的问题。",
]
TITLE = "全市完成老旧小区改造一百二十个"


def page(head: str = "", byline: str = "", after: str = "", title: str = TITLE) -> str:
    paragraphs = "".join(f"<p>{escape(x)}</p>" for x in STORY * 3)
    return (
        f"<html><head><meta charset='utf-8'><title>{title}_某某新闻</title>{head}</head><body>"
        f"<nav><a href='/'>首页</a></nav><h1>{title}</h1><div class='meta'>{byline}</div>"
        f"<div class='article-body'>{paragraphs}</div>{after}</body></html>"
    )


def ld(obj: object) -> str:
    return f"<script type='application/ld+json'>{json.dumps(obj, ensure_ascii=False)}</script>"


def test_json_ld_gives_the_time_and_the_writer_a_year_less_byline_does_not():
    data = {
        "@context": "https://schema.org",
        "@type": "NewsArticle",
        "headline": TITLE,
        "datePublished": "2019-03-01T10:08:00+08:00",
        "author": {"@type": "Person", "name": "王小红"},
    }
    article = extract_article(page(ld(data), "<span>3月1日 10:08</span><span>来源：中国新闻网</span>"))
    assert (article.published_at, article.author) == ("2019-03-01T10:08:00+08:00", "王小红")
    graph = {
        "@context": "https://schema.org",
        "@graph": [
            {"@type": "WebSite", "name": "某某新闻"},
            {
                "@type": ["NewsArticle"],
                "headline": TITLE,
                "datePublished": "2019-03-01 10:08",
                "author": [{"@type": "Organization", "name": "某某新闻"}, "孙悦"],
            },
        ],
    }
    article = extract_article(page(ld(graph)))
    assert (article.published_at, article.author) == ("2019-03-01T10:08:00+08:00", "孙悦")


def test_json_ld_of_another_headline_or_broken_or_an_organisation_is_passed_over():
    wiki = {
        "@type": "Article",
        "name": "金鍾國",
        "headline": "韩国男艺人",
        "datePublished": "2011-06-17T11:26:10Z",
        "author": {"@type": "Organization", "name": "维基媒体项目贡献者"},
    }
    article = extract_article(page(ld(wiki), "<span>2020-04-17 09:00</span>"))
    assert (article.published_at, article.author) == ("2020-04-17T09:00:00+08:00", "")
    broken = '<script type=\'application/ld+json\'>{"@type": "NewsArticle", "headline": </script>'
    organisation = ld(
        {"@type": "NewsArticle", "headline": TITLE, "author": {"@type": "Organization", "name": "某某日报"}}
    )
    article = extract_article(page(broken + organisation, "<span>2020-04-17 09:00</span>"))
    assert (article.published_at, article.author) == ("2020-04-17T09:00:00+08:00", "")


def test_microdata_gives_the_time_and_the_writer():
    byline = (
        "<span itemprop='author' itemscope><span itemprop='name'>欧阳晓东</span></span>"
        "<span itemprop='datePublished' content='2019-05-27T16:33:00+08:00'>5月27日</span>"
    )
    article = extract_article(page(byline=byline))
    assert (article.published_at, article.author) == ("2019-05-27T16:33:00+08:00", "欧阳晓东")


def test_a_time_element_in_the_byline_gives_the_time_a_comment_s_does_not():
    comment = "<div class='comments'><b>网友甲</b><time datetime='2019-06-02T08:00:00+08:00'>2小时前</time></div>"
    byline = (
        "<a class='account' href='/u/1'>城市观察</a><time datetime='2019-06-01T21:05:00+08:00'>3"
        "天前</time><span>关注</span>"
    )
    article = extract_article(page(byline=byline, after=comment))
    assert (article.published_at, article.author) == ("2019-06-01T21:05:00+08:00", "城市观察")
    assert extract_article(page(byline="<span>来源：某某网</span>", after=comment)).published_at == ""


def test_a_date_whose_year_and_day_stand_in_elements_of_their_own():
    byline = (
        "<div class='header-time'><span class='year'><em>2019</em></span><span class='day'><em>03</em>/<em>01</em>"
        "</span><span class='time'>10:08:23</span></div><div class='source'>来源：新华网</div>"
    )
    assert extract_article(page(byline=byline)).published_at == "2019-03-01T10:08:23+08:00"


def test_a_name_in_an_element_marked_as_the_author_s_in_the_byline():
    byline = (
        "<span class='author'>王小红</span><span class='date'>2019-03-19 09:16</span><span class"
        "='read'>阅读 3.2万</span>"
    )
    assert extract_article(page(byline=byline)).author == "王小红"
    labelled = "<span class='article-author'>作者：孙悦</span><span>2019-03-19 09:16</span>"
    assert extract_article(page(byline=labelled)).author == "孙悦"
    sidebar = (
        "<div class='author'>相关文章</div><div class='author-name'>股市行情</div><span class='"
        "authorized'>我已授权</span>"
    )
    assert extract_article(page(byline="<span>2019-03-19 09:16</span>", after=sidebar)).author == ""


def test_a_year_less_month_and_day_in_chinese_is_this_year_s():
    article = extract_article(page(byline="<span>3月1日 10:08</span><span>来源：中国新闻网</span>"))
    when = datetime.fromisoformat(article.published_at)
    assert (when.month, when.day, when.hour, when.minute) == (3, 1, 10, 8)
    assert when.year in (datetime.now().year, datetime.now().year - 1)


def _drawn_by_script(body: str) -> str:
    """A page whose article a script draws: nothing of the story in the markup."""
    data = {
        "@context": "https://schema.org",
        "@type": "NewsArticle",
        "headline": TITLE,
        "datePublished": "2019-03-01T10:08:00+08:00",
        "articleBody": body,
    }
    return (
        f"<html><head><meta charset='utf-8'><title>{TITLE}_某某新闻</title>{ld(data)}</head><body>"
        f"<div id='app'></div><script src='/app.js'></script></body></html>"
    )


def test_a_page_its_script_draws_gives_the_json_ld_article_body():
    plain = extract_article(_drawn_by_script("\n".join(STORY)))
    assert plain.body.split("\n") == STORY and plain.published_at == "2019-03-01T10:08:00+08:00"
    marked = extract_article(_drawn_by_script("".join(f"<p>{escape(x)}</p>" for x in STORY)))
    assert marked.body.split("\n") == STORY
    shown = page(ld({"@type": "NewsArticle", "headline": TITLE, "articleBody": STORY[0][:20]}))
    assert extract_article(shown).body.split("\n") == STORY * 3  # the page's own story when it shows one
