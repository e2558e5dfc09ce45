"""Older sites' pages that are one table: the story's cell must come out whatever the links
around it weigh."""

from html import escape

import pytest

from news_crawler.extraction import chrome, extract_article
from news_crawler.extraction.densest import densest_block

OTHER_HEADLINES = [
    "4金块拼出嘉禾片头 邹文怀被赞“香港电影教父”",
    "50美分为给对手难看买下其200张演场会票",
    "57岁梅格-瑞恩宣布订婚 未婚夫为美国摇滚歌手",
    "600岁网红首次做出品方《上新了·故宫》好看吗？",
    "A妹前任回应新歌被点名 坦言除了感激别无他想",
]


def one_table_page(title: str, lines: list[str], related: bool = True) -> str:
    """Menu row, headline, byline, the story as <br> lines in a cell, tools, previous/next
    and related links in rows of their own, a footer: all one table, as older CMSs make them."""
    gap = "&nbsp;" * 4
    links = "".join(f"<a href=/a/r{n}.html>{escape(t)}</a><br>" for n, t in enumerate(OTHER_HEADLINES[2:]))
    return (
        f"<html><head><title>{escape(title)}</title></head><body><table width=980>"
        "<tr><td><a href=/>网站首页</a> | <a href=/news/>新闻动态</a> | <a href=/gg/>通知公告</a></td></tr>"
        f"<tr><td align=center><font size=4><b>{escape(title)}</b></font></td></tr>"
        f"<tr><td align=center>作者:李明{gap}来源:本站{gap}发布时间:2019-3-19 9:16:00{gap}浏览次数:125</td></tr>"
        "<tr><td class=content>" + "<br><br>".join(gap + escape(x) for x in lines) + "</td></tr>"
        "<tr><td align=right>【<a href=#>字体:大 中 小</a>】【<a href=#>打印</a>】【<a href=#>关闭</a>】</td></tr>"
        f"<tr><td>上一条:<a href=/a/1.html>{OTHER_HEADLINES[0]}</a><br>"
        f"下一条:<a href=/a/2.html>{OTHER_HEADLINES[1]}</a></td></tr>"
        + (f"<tr><td>相关文章:<br>{links}</td></tr>" if related else "")
        + "<tr><td align=center>版权所有 某某信息网 备案号：京ICP备12345678号</td></tr></table></body></html>"
    )


@pytest.fixture(scope="module")
def short_stories(sina_articles):
    """Real stories of 300 to 700 characters, as lines: short next to the links around them."""
    out = []
    for a in sina_articles:
        lines = [x.strip() for x in a["body"].split("\n") if x.strip()]
        if (
            300 <= sum(map(len, lines)) <= 700
            and chrome.strip_chrome("\n".join(lines), a["title"]).splitlines() == lines
        ):
            out.append((a["title"], lines))
    assert len(out) >= 20
    return out[:20]


@pytest.mark.parametrize("related", [True, False])
def test_the_story_cell_of_a_one_table_page_is_the_body(related, short_stories):
    for title, lines in short_stories:
        article = extract_article(one_table_page(title, lines, related))
        assert article.body.splitlines() == [" ".join(x.split()) for x in lines], title
        assert (article.author, article.published_at) == ("李明", "2019-03-19T09:16:00+08:00")


def test_the_densest_block_is_the_cell_not_a_line_or_the_table(short_stories):
    import lxml.html

    title, lines = short_stories[0]
    root = lxml.html.fromstring(one_table_page(title, lines))
    block = densest_block(root, 200)
    assert block.tag == "td" and block.get("class") == "content"
    assert densest_block(root, 10_000) is None  # no block holds that much text of its own
    root = lxml.html.fromstring(
        "<div><div class=story>"
        + "".join(f"<p>{x}</p>" for x in lines)
        + "</div>"
        + "<p>"
        + "<a href=/x>很长的链接文字</a>" * 40
        + "</p></div>"
    )
    assert densest_block(root, 200).get("class") == "story"  # a paragraph stands for its container


def test_related_headlines_that_ask_a_question_still_end_the_body(short_stories):
    _, lines = short_stories[0]
    story = lines * 3  # the block must stand in the body's second half
    related = ["相关文章:", OTHER_HEADLINES[3], OTHER_HEADLINES[4]]
    assert chrome.strip_chrome("\n".join(story + related), "标题").splitlines() == story
    asking = ["相关文章:", "40人同时看戏却看到两个故事，赖声川咋做的？", "56岁美国甜心又“婚”头？单身超10年终宣告订婚"]
    assert chrome.strip_chrome("\n".join(story + asking), "标题").splitlines() == story  # a pause in a question
    story_goes_on = ["相关文章:", OTHER_HEADLINES[3], "记者了解到，这一做法已在全市推广，受到群众欢迎。"]
    kept = chrome.strip_chrome("\n".join(story + story_goes_on), "标题").splitlines()
    assert kept == story + story_goes_on[1:]


def test_a_footer_ends_the_body_and_a_long_line_naming_a_licence_does_not(short_stories):
    _, lines = short_stories[1]
    story = lines * 3
    for footer in (
        ["版权所有 某某信息网 备案号：京ICP备12345678号"],
        ["Copyright © 2019 某某网 All Rights Reserved", "联系我们"],
        ["主办：某市人民政府办公室 网站标识码：3301000001"],
        ["Powered by EmpireCMS 7.5 © 2002-2019 EmpireSoft Inc."],
        ["技术支持：某某网络科技有限公司"],
    ):
        assert chrome.strip_chrome("\n".join(story + footer), "标题").splitlines() == story, footer
    licence = (
        "记者查询发现，该网站首页底部标注的“京ICP备12345678号”实为另一家公司的备案，"
        "涉事平台已被要求限期整改，相关部门表示将继续跟进调查处理情况。"
    )
    assert chrome.strip_chrome("\n".join(story + [licence] + lines), "标题").splitlines() == story + [licence] + lines


@pytest.mark.parametrize(
    "page_title,headline",
    [
        ("57岁梅格-瑞恩宣布订婚 未婚夫为美国摇滚歌手", "57岁梅格-瑞恩宣布订婚 未婚夫为美国摇滚歌手"),
        ("57岁梅格-瑞恩宣布订婚_新浪网", "57岁梅格-瑞恩宣布订婚"),
        ("县里召开秋粮收购工作会议-某县人民政府网", "县里召开秋粮收购工作会议"),
        ("麻辣鸡与卡迪-Ｂ隔空和解_某某县人民政府", "麻辣鸡与卡迪-Ｂ隔空和解"),
        ("COVID-19疫苗进展 多国启动接种-某某网", "COVID-19疫苗进展 多国启动接种"),
        # 直击|…, 穿搭丨…: a column's name joined by a bar is the headline's where the page shows it whole
        ("直击|高瓴张磊：价值投资大有作为", "直击|高瓴张磊：价值投资大有作为"),
        ("直击|高瓴张磊：价值投资大有作为-某某县人民政府", "直击|高瓴张磊：价值投资大有作为"),
        ("穿搭丨冷空气驾到 卫衣拿出来了_某某网", "穿搭丨冷空气驾到 卫衣拿出来了"),
        ("视频：撩星记 | 官鸿超甜表白 - 某某网", "视频：撩星记 | 官鸿超甜表白"),
        ("县里召开秋粮收购工作会议 | 某县人民政府网", "县里召开秋粮收购工作会议"),
    ],
)
def test_a_hyphen_or_a_column_s_bar_in_a_headline_is_not_a_site_suffix(page_title, headline, short_stories):
    _, lines = short_stories[2]
    page = one_table_page(headline, lines).replace(f"<title>{headline}</title>", f"<title>{page_title}</title>")
    article = extract_article(page)
    assert article.title == headline and article.body.splitlines() == [" ".join(x.split()) for x in lines]


def test_a_page_that_does_not_show_its_headline_keeps_the_title_without_the_site_s_name(short_stories):
    _, lines = short_stories[2]
    page = one_table_page("x", lines).replace(
        "<title>x</title>", "<title>县里召开秋粮收购工作会议-某县人民政府网</title>"
    )
    assert extract_article(page.replace("<b>x</b>", "")).title == "县里召开秋粮收购工作会议"


@pytest.mark.parametrize(
    "credit",
    [
        "校对：刘洋",
        "责任校对：王磊",
        "审校：李静",
        "编审：陈晨",
        "监制：张晓明",
        "值班编辑：赵敏",
        "编辑|禤志杰",
        "责编｜陈梦莹",
        "来源|广州参考、羊城晚报",
        "策划：孙立",
        "（责任编辑 赵敏）",
        "责任编辑 赵敏",
    ],
)
def test_proofreading_and_supervising_credits_leave_the_body(credit, short_stories):
    _, lines = short_stories[3]
    assert chrome.strip_chrome("\n".join(lines + [credit]), "标题").splitlines() == lines


@pytest.mark.parametrize(
    "notice",
    [
        "（完）",
        "扫一扫分享",
        "展开全文",
        "阅读原文",
        "举报/反馈",
        "原文链接：http://example.com/1.html",
        "图片来源：视觉中国",
        "（图片来源于网络）",
        "视频加载中...",
        "点击查看更多精彩内容",
        "本文来源于网络，如有侵权请联系删除",
        "打印 | 关闭",
        "分享：",
        "【我要纠错】 责任编辑：王五",
        "标签：金庸 李亚鹏",
        "关键词：金庸 李亚鹏",
        "Tags: 金庸",
        "阅读(123)",
        "喜欢(0)",
        "点赞 3",
        "本文已被浏览 123 次",
        "本文链接：http://www.x.cn/a/1.html",
        "转载请注明出处",
        "本文来自：新华网",
        "扫描二维码 分享到微信",
        "相关附件：",
        "附件下载：",
        "值班主任：赵六",
        "监审：赵六",
    ],
)
def test_notices_and_tools_leave_the_body(notice, short_stories):
    _, lines = short_stories[3]
    assert chrome.strip_chrome("\n".join(lines + [notice]), "标题").splitlines() == lines


def test_a_sentence_that_starts_like_a_notice_stays(short_stories):
    _, lines = short_stories[3]
    sentence = "查看更多的人认为这是一个好主意，我们应该继续推进。"
    assert chrome.strip_chrome("\n".join(lines + [sentence]), "标题").splitlines() == lines + [sentence]


def test_a_short_story_in_a_one_table_page_is_found_and_a_page_without_one_gives_no_body():
    story = [
        "县农业农村局昨日召开秋粮收购工作会议，部署今年的收购任务。",
        "会议要求各乡镇做好仓容准备，确保农民售粮顺畅。",
    ]
    article = extract_article(one_table_page("县里召开秋粮收购工作会议", story))
    assert article.body.splitlines() == story  # 50 characters: readability drops the table
    cut = [
        "县农业农村局昨日召开秋粮收购工作会议，部署今年的收购任务，要求各乡镇做好仓容准备，确保农民售粮顺畅，"
        "同时加强市场监管。会议还通报了去年收购工作中发现的问题，并就今年收购价格、质量标准、资金保障等事项作了具体安排，"
        "各相关部门负责人参加会议"
    ]  # a reprint cut short: one sentence end in over 100 characters
    assert extract_article(one_table_page("县里召开秋粮收购工作会议", cut)).body.splitlines() == cut
    no_story = one_table_page("视频：秋粮收购现场", []).replace(
        "<td class=content></td>", "<td class=content><embed src=/v/1.swf></td>"
    )
    assert extract_article(no_story).body == ""  # the footer and the menu are no story


def test_a_story_of_one_long_line_is_cut_at_a_footer_in_the_first_half_of_its_lines(short_stories):
    """A story of a paragraph or two, then more short lines of chrome than it has lines: the
    footer is past the middle of the text though not of the lines."""
    title, lines = short_stories[3]
    story = ["".join(lines)]  # one long line, as many sina bodies are
    cell = "<br>".join(
        [
            f"<b>{escape(title)}</b>",
            "发布时间：2019/03/01\u3000来源：本站\u3000作者：张建国\u3000点击数：",
            *story,
            "版权所有，未经授权不得转载。",
            "举报电话：010-12345678",
            "责任编辑：李明",
            "【打印】【关闭】",
            f"上一篇：<a href=/1.html>{escape(OTHER_HEADLINES[0])}</a>",
            f"下一篇：<a href=/2.html>{escape(OTHER_HEADLINES[1])}</a>",
            "网友评论",
            "游客 2019-03-05 18:22:07 说得好",
        ]
    )
    page = (
        f"<html><head><title>{escape(title)}_某某县人民政府</title></head><body><table><tr>"
        f"<td>栏目导航<br><a href=/a/>工作动态</a><br><a href=/b/>通知公告</a></td><td>{cell}</td></tr"
        "></table></body></html>"
    )
    article = extract_article(page)
    assert article.body.splitlines() == story
    assert (article.author, article.published_at[:10]) == ("张建国", "2019-03-01")
    # The same lines where the story is many lines keep being cut by the lines' count alone.
    many = lines * 3 + ["版权所有，未经授权不得转载。", "网友评论", "一条很长的评论" * 30]
    assert chrome.strip_chrome("\n".join(many), "标题").splitlines() == lines * 3


def test_previous_and_next_links_after_a_related_block_are_no_story_going_on(short_stories):
    """上一篇/下一篇 lines are chrome however long their headlines run: they do not keep a
    related block above them in the body."""
    _, lines = short_stories[4]
    story = lines * 3
    long_next = (
        f"上一篇：{OTHER_HEADLINES[0]}网红脸又赢了 Bigbang胜利实锤女友撩汉靠裙装 "
        "下一篇：你的微信号可能会被回收 而且里面钱不退？"
    )
    block = ["相关文章：", f"{OTHER_HEADLINES[3]} 2018-11-01", f"{OTHER_HEADLINES[4]} 2018-10-30", long_next]
    assert chrome.strip_chrome("\n".join(story + block), "标题").splitlines() == story


@pytest.mark.parametrize("header", ["点击排行", "热门文章", "最新文章", "精彩推荐", "热点新闻", "推荐文章"])
def test_a_sidebar_s_header_after_the_story_ends_the_body(header, short_stories):
    _, lines = short_stories[5]
    story = lines * 3
    tail = [header, OTHER_HEADLINES[3], OTHER_HEADLINES[4]]
    assert chrome.strip_chrome("\n".join(story + tail), "标题").splitlines() == story


@pytest.mark.parametrize(
    "header",
    [
        "发表评论 共有2条评论",
        "网友评论（12）",
        "全部评论 (3)",
        "共有0条评论",
        "已有5人参与评论",
        "评论(0)",
        "网友评论 共3条",
    ],
)
def test_a_comment_box_with_its_count_ends_the_body(header, short_stories):
    _, lines = short_stories[5]
    story = lines * 3
    tail = [header, "匿名 发表于 2018-11-06 12:00", "好文章，说得很对，支持一下。"]
    assert chrome.strip_chrome("\n".join(story + tail), "标题").splitlines() == story


def test_an_old_site_s_byline_labels_and_its_empty_related_and_comment_rows_leave_the_body(short_stories):
    """文章作者：X 文章来源：Y 点击数：N 更新时间：2018/11/5 above the story, then 相关文章： with
    没有相关文章 and a comment row with its notice in brackets under it (an older CMS's
    article page, as ASP sites print it)."""
    title, lines = short_stories[6]
    cell = "<br>".join(escape(x) for x in lines)
    page = (
        f"<html><head><title>{escape(title)}--某某教育网</title></head><body><table>"
        "<tr><td>您现在的位置： <a href=/>某某教育网</a> &gt;&gt; <a href=/n/>新闻中心</a> &gt;&gt; 正文</td></tr>"
        f"<tr><td align=center><strong>{escape(title)}</strong></td></tr>"
        "<tr><td align=center>文章作者：钱学敏&nbsp;&nbsp;文章来源：某某教育局&nbsp;&nbsp;点击数：<font>327</font>"
        "&nbsp;&nbsp;更新时间：2018/11/5</td></tr>"
        f"<tr><td id=fontzoom>{cell}</td></tr><tr><td>【<a>发表评论</a>】【<a>打印此文</a>】【<a>关闭窗"
        "口</a>】</td></tr>"
        f"<tr><td>上一篇文章： <a href=/1.html>{escape(OTHER_HEADLINES[0])}</a></td></tr>"
        "<tr><td>相关文章：<br>没有相关文章</td></tr>"
        "<tr><td>网友评论：（只显示最新10条。评论内容只代表网友观点，与本站立场无关！）</td></tr></table></body></html>"
    )
    article = extract_article(page)
    assert article.body.splitlines() == [" ".join(x.split()) for x in lines]
    assert (article.author, article.source, article.published_at) == ("钱学敏", "某某教育局", "2018-11-05")


def test_a_discuz_portal_article_s_byline_gives_its_original_writer_and_outlet(short_stories):
    title, lines = short_stories[7]
    pipe = "<span class=pipe>|</span>"
    page = (
        f"<html><head><title>{escape(title)} - 本地新闻 - 某某论坛 - Powered by Discuz!</title></head><body>"
        f"<div id=pt>某某论坛 › 门户 › 本地新闻 › 查看内容</div><div class=h><h1>{escape(title)}</h1>"
        f"<p class=xg1>2018-11-5 09:30{pipe} 发布者: admin{pipe} 查看: 1234{pipe} 评论: 0{pipe}原作者: 刘建军{pipe}"
        "来自: 某某日报</p></div><table><tr><td id=article_content>"
        + "".join(f"<p>{escape(x)}</p>" for x in lines)
        + "</td></tr></table></body></html>"
    )
    article = extract_article(page)
    assert article.body.splitlines() == [" ".join(x.split()) for x in lines]
    assert (article.author, article.source, article.published_at) == ("刘建军", "某某日报", "2018-11-05T09:30:00+08:00")
