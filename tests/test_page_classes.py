"""Classes of page a site never seen before shows: counters and pagers in the story's
container, a ``<title>`` that is the site's name over an ``<h1>`` headline, an author meta
tag naming the editor, a desk or a button, and pages that hold no article (an error page, a
removal notice). Each class is tested on its forms and on the near misses a story has."""

from __future__ import annotations

import pytest
from scrapy import Spider
from scrapy.exceptions import DropItem

from news_crawler.extraction import chrome, extract_article
from news_crawler.extraction.page import page_fields
from news_crawler.extraction.removed import notice_page
from news_crawler.items import ArticleItem
from news_crawler.pipelines.validate import ValidationPipeline, unusable
from tests.crawl_helpers import project_crawler

STORY = [
    "市政府今天召开新闻发布会，介绍了今年以来全市经济运行的情况。发布会上，市统计局负责人表示，前三季度全市生产总值同比增长百分之五点二。",
    "该负责人说，工业生产稳步回升，消费市场持续恢复，就业形势总体稳定，居民收入继续增加。",
    "下一步，全市将继续抓好稳增长各项政策的落实，推动经济持续向好。",
]
HEADLINE = "全市经济稳中向好"


def page(title: str = f"{HEADLINE}_某某新闻网", head: str = "", top: str = "", under: str = "") -> str:
    paragraphs = "".join(f"<p>{p}</p>" for p in STORY)
    return (
        f"<html><head><title>{title}</title>{head}</head><body>{top}<h1>{HEADLINE}</h1>"
        f"<div class=info>2024-05-06 10:00</div><div class=content>{paragraphs}{under}</div></body></html>"
    )


@pytest.mark.parametrize(
    "line",
    [
        "浏览 78386点赞 559",
        "阅读 3.2万 在看 28",
        "阅读原文 阅读 3456 在看 28",
        "阅读 10万+",
        "点赞(12) 收藏(3) 分享(1)",
        "浏览量：1234",
        "评论 5 条",
        "1 2 下一页",
        "上一页 1 2 3 尾页",
        "[1] [2] [3]",
    ],
)
def test_counters_and_pagers_in_any_spacing_leave_the_body(line):
    assert chrome.is_chrome(line, HEADLINE)
    assert extract_article(page(under=f"<div>{line}</div>")).body.splitlines() == STORY


@pytest.mark.parametrize("line", ["他说，阅读 3 本书是他今年的目标。", "2019", "12", "第1 2", "点赞的网友超过 559 人"])
def test_a_number_or_a_word_of_the_story_is_no_counter(line):
    assert not chrome.is_chrome(line, HEADLINE)


@pytest.mark.parametrize(
    "player",
    [
        ["00:00 / 02:35", "倍速", "0.5x 1.0x 1.25x 1.5x 2.0x", "高清 标清", "全屏"],
        ["00:00/02:35倍速0.5x1.0x1.25x"],
        ["视频播放失败，请刷新重试"],
        ["您的浏览器不支持 video 标签"],
        ["加载失败，点击重试", "重播"],
    ],
)
def test_a_video_player_s_controls_and_messages_leave_the_body(player):
    under = "".join(f"<div>{line}</div>" for line in player)
    top = page(under="").replace("<div class=content>", f"<div class=content><div class=player>{under}</div>")
    assert extract_article(top).body.splitlines() == STORY
    assert extract_article(page(under=f"<div class=player>{under}</div>")).body.splitlines() == STORY


@pytest.mark.parametrize(
    "line",
    ["10:30", "全屏观看演出的观众超过一万人。", "他说，播放失败的原因是网络拥堵，技术人员正在抢修。", "2倍于去年"],
)
def test_a_time_or_a_sentence_about_a_player_is_no_player_chrome(line):
    assert not chrome.is_chrome(line, HEADLINE)


def test_the_bounds_of_a_chrome_line_a_paragraph_and_a_tail_of_listings():
    pager = "上一页 " + " ".join(str(n) for n in range(1, 60))
    at_most = pager[: chrome.CHROME_MAX_CHARS].rstrip()
    assert len(at_most) == chrome.CHROME_MAX_CHARS and chrome.is_chrome(at_most)
    assert not chrome.is_chrome(pager[: chrome.CHROME_MAX_CHARS + 2].rstrip())  # 81 characters: text
    # a paragraph: a full stop after 40 characters, or after a pause in a line of 20 or more
    assert chrome.is_paragraph("甲" * 40 + "。") and not chrome.is_paragraph("甲" * 39 + "。")
    assert chrome.is_paragraph("甲" * 9 + "，" + "乙" * 9 + "。") and not chrome.is_paragraph(
        "甲" * 9 + "，" + "乙" * 8 + "。"
    )
    # two or more other stories' linked headlines close the story; one may be the story's own line
    links = frozenset({"另一条新闻的标题在这里", "第二条新闻的标题在这里"})
    story = ["正文第一段，写了很多内容。" * 3]
    assert chrome.strip_chrome("\n".join([*story, *sorted(links)]), links=links).splitlines() == story
    one = [*story, "另一条新闻的标题在这里"]
    assert chrome.strip_chrome("\n".join(one), links=links).splitlines() == one


def test_a_counter_glued_after_the_story_s_last_sentence_leaves_the_sentence():
    glued = page(under="").replace(f"{STORY[-1]}</p>", f"{STORY[-1]}浏览 78386点赞 559</p>")
    assert extract_article(glued).body.splitlines() == STORY
    # the same words inside a sentence stay
    said = page(under="<p>截至发稿，该视频浏览 78386次，点赞 559次，网友纷纷留言称赞。</p>")
    assert "浏览 78386次，点赞 559次" in extract_article(said).body


def test_a_counter_that_changes_on_every_fetch_changes_no_body():
    bodies = {
        extract_article(page(under=f"<div>浏览 {n}点赞 {n // 7}</div><div>阅读 {n / 10:.1f}万</div>")).body
        for n in (78386, 91234)
    }
    assert len(bodies) == 1


def test_the_headline_over_the_story_wins_over_a_title_that_is_the_site_s_name():
    bar = "<div class=top>某某县融媒体中心</div><div class=nav>首页 本地 时政 民生</div>"
    assert extract_article(page(title="某某县融媒体中心", top=bar)).title == HEADLINE
    og = '<meta property="og:title" content="新浪财经">'
    assert extract_article(page(title="新浪财经", head=og)).title == HEADLINE
    # a site's logo in an <h1> far above the story loses to the <title> shown over it
    logo = (
        "<html><head><title>市场监管总局发布新规_某某网</title></head><body><h1>某某网新闻中心</h1>"
        + "".join(f"<div>栏目{n}</div>" for n in range(12))
        + "<div class=h>市场监管总局发布新规</div><div class=content>"
        + "".join(f"<p>{p}</p>" for p in STORY)
        + "</div></body></html>"
    )
    assert extract_article(logo).title == "市场监管总局发布新规"
    near = logo.replace("".join(f"<div>栏目{n}</div>" for n in range(12)), "<div>栏目</div>")
    assert extract_article(near).title == "市场监管总局发布新规"  # the nearer of the two


@pytest.mark.parametrize("between,title", [(7, HEADLINE), (8, "某某县融媒体中心")])
def test_the_headline_is_found_up_to_eight_lines_over_the_story(between, title):
    rows = "".join(f"<div>栏目{n}</div>" for n in range(between))
    html = page(title="某某县融媒体中心").replace("<div class=info>2024-05-06 10:00</div>", rows)
    assert extract_article(html).title == title


def test_a_four_character_headline_is_the_page_s_over_a_longer_channel_name():
    html = page(title="经济向好_本地经济新闻频道_某某网").replace(f"<h1>{HEADLINE}</h1>", "<h1>经济向好</h1>")
    assert extract_article(html).title == "经济向好"


def test_a_title_is_shown_by_a_line_sharing_six_tenths_of_its_characters():
    from news_crawler.extraction.title import _shown

    assert _shown("甲乙丙", "其他\n甲乙丙丁戊\n正文")  # 3 of 5 characters in common
    assert not _shown("甲乙丙", "其他\n甲乙丙丁戊己\n正文")  # 3 of 6


@pytest.mark.parametrize(
    "title,head,outlet",
    [
        (f"{HEADLINE}_某某县融媒体中心", "", "某某县融媒体中心"),
        (f"{HEADLINE}_某某县融媒体中心", '<meta property="og:site_name" content="某某日报">', "某某日报"),
        (f"{HEADLINE}_某某县融媒体中心", f'<meta property="og:site_name" content="{"长" * 100}">', "长" * 80),
        (f"某某县融媒体中心_{HEADLINE}", "", ""),  # the title does not open with the headline
        (f"{HEADLINE}_{HEADLINE}", "", ""),  # the headline again, no outlet
    ],
)
def test_the_outlet_is_the_site_name_stated_or_the_title_s_last_part_after_the_headline(title, head, outlet):
    assert extract_article(page(title=title, head=head)).outlet == outlet


@pytest.mark.parametrize(
    "meta,under,author",
    [
        ("张三", "", "张三"),
        ("Zhang San", "", "Zhang San"),
        ("李四", "<p>责任编辑：李四</p>", ""),  # the editor the page credits
        ("编辑部", "", ""),
        ("本报编辑部", "", ""),
        ("区委宣传部", "", ""),
        ("新闻中心", "", ""),
        ("财经", "", ""),
        ("分享", "", ""),
        ("播报文章", "", ""),
    ],
)
def test_an_author_meta_tag_is_believed_only_when_it_names_a_writer(meta, under, author):
    found = extract_article(page(head=f'<meta name="author" content="{meta}">', under=under))
    assert found.author == author


NOTICES = {
    "404": "<html><head><title>404 页面不存在</title></head><body><div><h2>抱歉，您访问的页面不存在或已被删除！</h2>"
    "<p>可能的原因：网址输入有误，或者该页面已经被管理员删除，请检查您输入的网址是否正确。</p>"
    "<p>您可以：返回首页 | 返回上一页 | 联系管理员</p><p>5秒后自动跳转到首页……</p></div></body></html>",
    "forum": "<html><head><title>提示信息 - 某某论坛</title></head><body><div id=messagetext>"
    "<p>错误的版面参数，请返回重试。如果问题依然存在，请联系论坛管理员处理，谢谢您的理解与支持。</p>"
    "<p><a href=/>[ 点击这里返回上一页 ]</a></p></div></body></html>",
    "deleted": "<html><head><title>新闻详情</title></head><body><div class=main>"
    "<p>该文章已被删除或不存在，请查看其它内容。"
    "感谢您对本站的关注和支持，欢迎继续浏览本站的其他新闻资讯内容。</p></div></body></html>",
    "server": "<html><head><title>系统繁忙</title></head><body><p>系统繁忙，请稍后再试。给您带来的不便，我们深表歉意，"
    "工程师正在全力处理中，请您稍后刷新页面重新访问。</p></body></html>",
}


@pytest.mark.parametrize("name", sorted(NOTICES))
def test_an_error_page_or_a_removal_notice_is_invalid_with_its_reason(name):
    fields = page_fields(NOTICES[name].encode(), "text/html; charset=utf-8", "https://x.example/a/1.html")
    assert len(fields["body"]) >= 50  # long enough to pass as an article but for what it says
    reason, kind = unusable(fields["body"], 50, fields["title"]) or ("", "")
    assert kind == "notice" and "not an article" in reason
    validate, stats = pipeline()
    with pytest.raises(DropItem, match="notice"):
        validate.process_item(
            ArticleItem(url="https://x.example/1", site="x", title=fields["title"], body=fields["body"])
        )
    assert stats.get_value("articles/invalid_reason/notice") == 1


def pipeline():
    crawler = project_crawler(Spider)
    return ValidationPipeline.from_crawler(crawler), crawler.stats


@pytest.mark.parametrize(
    "title,body",
    [
        (
            "网曝动画被下架 页面显示无法观看",
            "10月26日，有网友发现某动画已无法播放，页面上显示的也是“该视频已下架”，平台暂未回应。",
        ),
        (
            "500彩票网推迟发布业绩",
            "500彩票网今日宣布，受技术性困难的影响，现决定推迟发布第三季度财报，具体时间另行通知。",
        ),
        ("平台清理违规账号", "记者从平台获悉，平台已删除违规账号3000个，相关内容已被删除，下一步将持续开展专项治理。"),
        ("某某网", "页面设计已经完成，将于下月上线。" + "新版网站将提供更多便民服务功能，市民可在线办理多项业务。" * 2),
    ],
)
def test_a_short_story_about_such_things_is_no_notice(title, body):
    assert notice_page(title, body) == ""


def test_a_notice_is_read_at_the_start_of_the_title_or_the_first_two_lines_of_a_short_text():
    from news_crawler.extraction.removed import NOTICE_PAGE_MAX_CHARS, NOTICE_WITHIN

    said = "系统繁忙，请稍后再试。"
    filler = "请返回首页继续浏览其他内容。"
    assert notice_page("", (said + filler * 30)[:NOTICE_PAGE_MAX_CHARS]) == "系统繁忙"
    assert notice_page("", (said + filler * 30)[: NOTICE_PAGE_MAX_CHARS + 1]) == ""  # longer: an article
    assert notice_page("", "某某网\n" + said) == "系统繁忙"  # the second line
    assert notice_page("", "某某网\n首页 新闻\n" + said) == ""  # the third
    lead = "您好" * (NOTICE_WITHIN // 2 - 1) + "您 "  # the words start at the twelfth character
    assert len(lead) == NOTICE_WITHIN
    assert notice_page("", lead + "Internal Server Error") == "Internal Server Error"
    assert notice_page("", "您" + lead + "Internal Server Error") == ""  # further in: a sentence's words


def test_no_short_story_of_the_corpus_is_taken_for_a_notice(sina_articles):
    short = [a for a in sina_articles if len(a["body"].strip()) <= 300]
    assert len(short) >= 100
    assert [a["title"] for a in short if notice_page(a["title"], a["body"])] == []


def test_a_wechat_like_page_of_sections_is_read_whole_with_its_account_s_writer():
    paragraphs = [
        "今天，我们来聊一聊城市更新中的老旧小区改造。",
        "近年来，各地老旧小区改造工作稳步推进，居民的居住条件明显改善，不少小区加装了电梯，改造了管网。",
        "但改造中也存在一些问题，比如居民意见难统一、资金来源单一、后续管理跟不上等。",
        "专家认为，老旧小区改造要坚持居民自愿、政府引导、多方参与，探索可持续的改造模式。",
        "他建议，要建立长效管理机制，引入专业物业服务，让改造成果得以长期保持。",
        "城市更新是一项长期工程，需要久久为功。",
    ]
    content = "".join(
        f"<section><span>{p}</span></section>" if i % 3 else f"<p><span>{p}</span></p>"
        for i, p in enumerate(paragraphs)
    )
    wechat = (
        "<html><head><title>老旧小区改造，如何改到居民心坎上？</title></head><body><div id=img-content>"
        "<h1 class=rich_media_title>老旧小区改造，如何改到居民心坎上？</h1><div id=meta_content>"
        "<span>原创</span> <span>李华</span> <a id=js_name>城市观察</a> <em>2024-05-06 08:30</em> "
        f"<span>北京</span></div><div class=rich_media_content id=js_content>{content}</div>"
        "<div>阅读原文 阅读 3456 在看 28</div></div></body></html>"
    )
    found = extract_article(wechat)
    assert found.body.splitlines() == paragraphs
    assert found.author == "李华" and found.published_at == "2024-05-06T08:30:00+08:00"


def test_credits_in_brackets_a_caption_and_a_wiki_s_marks_are_no_story_line():
    lines = ["本网讯 （通讯员 赵雅）", *STORY, "图为表彰大会现场。", "（记者 周建国 通讯员 吴丽萍）"]
    county = page(under="").replace(
        "".join(f"<p>{p}</p>" for p in STORY), "".join(f"<p>{p}</p>" for p in lines) + "<div>1 2 下一页</div>"
    )
    found = extract_article(county)
    assert found.body.splitlines() == STORY
    assert found.author == "周建国" and found.contributors == "赵雅 吴丽萍"
    wiki = ["本条目需要补充更多来源。请协助补充可靠来源以改善这篇条目。", "历史[编辑]", *STORY]
    assert chrome.strip_chrome("\n".join(wiki), HEADLINE).splitlines() == ["历史", *STORY]
    # a paragraph of the story that starts as a caption does is longer than any chrome line
    long = "图为" + "，".join(STORY)
    assert chrome.strip_chrome(long, HEADLINE) == long


def test_the_story_under_the_headline_beats_a_longer_one_recommended_below_it():
    other = [
        f"返乡青年小王告诉记者，他去年回到家乡开了一家网店，销售本地土特产，营业额超过了一百万元，带动{n}户村民增收。"
        for n in range(20, 28)
    ]
    own = "".join(f"<p>{p}</p>" for p in STORY)
    recommended = (
        "<html><head><title>全市经济稳中向好</title></head><body><div class=article>"
        f"<h1>{HEADLINE}</h1><div class=author>某某发布 2024-05-06 11:20</div><div class=content>{own}</div></div>"
        "<div class=recommend><div>推荐阅读</div><h2>返乡青年电商创业带富乡亲</h2><div>乡村振兴观察</div>"
        "<div class=text>" + "".join(f"<p>{p}</p>" for p in other) + "</div></div></body></html>"
    )
    assert extract_article(recommended).body.splitlines() == STORY
    # the story's first paragraphs in a block of their own, run straight into the rest: one story
    split = recommended.replace(
        "<div class=recommend><div>推荐阅读</div><h2>返乡青年电商创业带富乡亲</h2><div>乡村振兴观察</div>", "<div>"
    )
    assert extract_article(split).body.splitlines() == [*STORY, *other]
