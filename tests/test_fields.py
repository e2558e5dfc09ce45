"""The fields of an article beside its body: who wrote it (the reporters only), who helped
(correspondents), its images with their captions, description, tags, the time it was
changed; and the body whole (a news story is no page of posts, its lead stays, the site's
footer goes). Pages written as the sites write them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from news_crawler.extraction import extract_article
from news_crawler.extraction.names import clean_author
from tests.crawl_helpers import ROOT

STORY = [
    "国家统计局今天发布数据显示，十月份全国规模以上工业增加值同比增长百分之五点三，比上月加快零点五个百分点，制造业增长较快。",
    "分行业看，四十一个大类行业中有三十四个行业增加值保持同比增长，高技术制造业增长明显，装备制造业对工业增长的贡献率继续提高。",
    "专家表示，随着一系列稳增长政策落地见效，工业生产有望继续保持平稳增长态势，全年目标可以实现，企业利润也在逐步改善之中。",
]


def page(byline: str = "", before: str = "", after: str = "", head: str = "", story: list[str] = STORY) -> str:
    paragraphs = "".join(f"<p>{line}</p>" for line in story)
    return (
        f"<html><head><title>工业数据出炉_新闻网</title>{head}</head><body><div class='nav'><a href='/'>首页</a></div>"
        f"<h1>工业数据出炉</h1><div class='info'>2024-05-06 10:20 {byline}</div>"
        f"<div class='article'>{before}{paragraphs}{after}</div>"
        "<div class='footer'><p>关于我们 | 联系我们</p></div></body></html>"
    )


@pytest.mark.parametrize(
    "byline,after",
    [
        ("来源：新闻网 责任编辑：王五", ""),
        ("来源：新闻网", "<p>（责任编辑：王五）</p>"),
        ("编辑：王五", ""),
        ("", "<p>责编：王五</p>"),
        ("", "<p>编辑：刘洋\u3000责任编辑：王五\u3000审核：赵刚</p>"),  # the desk's credits: the one in charge
        ("编辑 刘洋 责编 王五", ""),
    ],
)
def test_the_editor_is_never_the_author(byline, after):
    article = extract_article(page(byline, after=after))
    assert (article.author, article.editor) == ("", "王五")


def test_a_mobile_byline_with_a_reading_count_names_the_writer_above_a_story_opening_with_a_headline_word():
    lines = ["周琦", "火箭总算是连胜了，先是爆冷战胜了季后赛边缘球队篮网，今天又力克难兄难弟公牛。", *STORY]
    html = (
        "<html><head><title>12+16+3!周琦赢下亚洲德比</title></head><body><header>某某新闻 <a>打开APP</a></header>"
        "<article><h1>12+16+3!周琦赢下亚洲德比</h1><p class='meta'><span>王小红</span> <span>2019-09-16 19:58</span>"
        " <span>阅读 3.2万</span></p><div class='art-body'>"
        + "".join(f"<p>{x}</p>" for x in lines)
        + "</div></article></body></html>"
    )
    article = extract_article(html)
    assert (article.author, article.published_at) == ("王小红", "2019-09-16T19:58:00+08:00")
    assert article.body.splitlines()[0] == "周琦"
    marked = html.replace("<span>王小红</span> <span>2019-09-16 19:58</span> <span>阅读 3.2万</span>", "")
    marked = marked.replace(
        "<p class='meta'>", "<p class='meta'><span itemprop='author'>王小红</span> <span>9月16日</span>"
    )
    assert "itemprop='author'" in marked and "阅读" not in marked
    assert extract_article(marked).author == "王小红"  # the byline stands between the headline and 周琦


@pytest.mark.parametrize("when", ["昨天", "刚刚", "今天"])
def test_a_time_told_relatively_under_the_headline_names_no_author(when):
    html = page().replace("<div class='info'>2024-05-06 10:20 </div>", f"<div class='info'>{when}</div>")
    assert f">{when}<" in html
    assert extract_article(html).author == ""


@pytest.mark.parametrize(
    "byline,author,contributors",
    [
        ("本报记者 孙丽 通讯员 何强", "孙丽", "何强"),
        ("记者 孙丽 张伟 通讯员 何强 李梅", "孙丽 张伟", "何强 李梅"),
        ("通讯员 何强", "", "何强"),
        ("本报实习生 刘国栋 本报记者 王燕平", "王燕平", "刘国栋"),
        ("记者 孙丽 摄影 陈明", "孙丽", ""),
        ("本报记者 孙丽 实习生 何强 通讯员 李梅", "孙丽", "何强 李梅"),
        ("（记者 孙丽 通讯员 何强 实习生 李梅）", "孙丽", "何强 李梅"),
    ],
)
def test_correspondents_are_contributors_not_authors(byline, author, contributors):
    article = extract_article(page(byline))
    assert (article.author, article.contributors) == (author, contributors)


@pytest.mark.parametrize(
    "credit",
    ["（记者 孙丽 通讯员 何强 实习生 李梅）", "本报记者 孙丽 通讯员 何强 实习生 李梅"],
)
def test_a_byline_that_closes_the_story_credits_its_correspondents_too(credit):
    article = extract_article(page(after=f"<p>{credit}</p>"))
    assert (article.author, article.contributors) == ("孙丽", "何强 李梅")


@pytest.mark.parametrize("raw", ["张三 编辑 李四", "张三 点击数 128", "张三　阅读 字号 打印", "张三 通讯员 李四"])
def test_a_byline_ends_at_the_first_label_or_counter(raw):
    assert clean_author(raw) == "张三"


@pytest.mark.parametrize("title", ["暨南大学教授", "中科院研究员", "著名评论家"])
def test_a_persons_title_is_no_name(title):
    assert clean_author(title) == ""
    assert extract_article(page(after=f"<p>特约撰稿：{title}</p>")).author == ""


def test_a_news_story_whose_paragraphs_tell_dates_is_no_page_of_posts():
    dated = [
        "2020年11月18日上午11点半，得知自己减刑释放的于欢还没缓过神来，就被送到了山东冠县的家中，母亲苏银霞早已在门口等候多时。",
        "几个小时前，山东聊城市中级人民法院在2020年11月18日作出刑事裁定书，认定于欢在服刑期间能够认罪悔罪，遵守监规，接受教育改造。",
        *STORY,
    ]
    for wrap in ("<p>{}</p>", "<div class='para'>{}</div>"):
        html = page(story=[]).replace(
            "<div class='article'>", "<div class='article'>" + "".join(wrap.format(x) for x in dated)
        )
        assert extract_article(html).body.splitlines() == dated, wrap


@pytest.mark.parametrize("label", ["【导读】", "导读：", "摘要：", "核心提示：", "【核心提示】"])
def test_a_labelled_lead_stays_in_the_body_and_a_summary_box_does_not(label):
    for lead in (label + STORY[0], label + "十月工业数据出炉，增速回升，专家称全年目标可以实现。"):
        assert extract_article(page(before=f"<p>{lead}</p>")).body.splitlines() == [lead, *STORY]
    box = label + STORY[0][:30] + "…"  # the story's first words again, cut off
    assert extract_article(page(before=f"<p>{box}</p>")).body.splitlines() == STORY


@pytest.mark.parametrize("label", ["摘要：", "【导读】", "核心提示："])
def test_a_lead_the_page_labels_in_a_box_of_its_own_under_the_headline_is_the_storys(label):
    lead = "十月工业数据出炉，增速回升，专家称全年目标可以实现。"
    boxed = page(after=IMAGES).replace(
        "<div class='article'>", f"<div class='abstract'><b>{label}</b>{lead}</div><div class='article'>"
    )
    article = extract_article(boxed, "https://www.example.cn/news/1.html")
    assert article.body.splitlines()[:4] == [label + lead, *STORY]
    assert [i["url"].rsplit("/", 1)[1] for i in article.images] == ["a.jpg", "b.jpg", "c.png"]
    cut = page().replace(
        "<div class='article'>", f"<div class='abstract'>{label}{STORY[0][:30]}…</div><div class='article'>"
    )
    assert extract_article(cut).body.splitlines() == STORY  # the story's first words again, cut off
    aside = page().replace("<div class='footer'>", f"<div class='aside'><p>{label}{lead}</p></div><div class='footer'>")
    assert extract_article(aside).body.splitlines() == STORY  # not under the headline: another story's


def test_a_summary_box_showing_the_pages_description_over_a_first_paragraph_it_is_all_of_leaves_the_body():
    head = f"<meta name='description' content='{STORY[0]}'>"  # DedeCMS's intro box: the description
    boxed = page(head=head, before=f"<div class='intro'>{STORY[0]}</div>")
    assert extract_article(boxed).body.splitlines() == STORY
    repeated = page(before=f"<p>{STORY[0]}</p>")  # no description says so: a paragraph repeated stays
    assert extract_article(repeated).body.splitlines() == [STORY[0], *STORY]


def test_linked_headlines_end_the_story_after_a_related_header_and_are_no_part_of_it_above_it():
    item = (
        "<p><a href='/19/0907/1.html'>女警一天打100电话被停机 电信:核实非诈骗后恢复</a></p>"
        "<p>近日，四川江油一社区女民警在开展辖区“实有人口”核查工作时，平均日拨100余个电话。电信技术部门监测到"
        "其操作频繁，以“涉嫌电信网络诈骗”为由，将其停机。目前，江油电信客服人员已核实情况，为民警恢复通话。</p>"
    )
    related = f"<div class='special_tag'><div>延伸 · 推荐</div>{item * 3}</div><p>责任编辑：史建磊_NBJ11331</p>"
    story = [f"{line}（{n}）" for n, line in enumerate(STORY * 3)]  # the block in the body's second half
    article = extract_article(page(after=related, story=story))
    assert article.body.splitlines() == story
    assert article.editor == "史建磊"  # under the related block, past where a byline stands
    video = "<p><a href='/v/1.html'>直播2019年苹果发布会(英文原声+中文字幕)</a></p>"  # a link above the story
    assert extract_article(page(before=video, story=story)).body.splitlines() == story
    inside = [*story[:2], "直播2019年苹果发布会(英文原声+中文字幕)", *story[2:]]
    linked_inside = (
        page(story=inside).replace("<p>直播", "<p><a href='/v/1.html'>直播").replace("字幕)</p>", "字幕)</a></p>")
    )
    assert extract_article(linked_inside).body.splitlines() == inside  # inside the story it is the story's
    unlinked = related.replace("<a href='/19/0907/1.html'>", "").replace("</a>", "")
    assert extract_article(page(after=unlinked, story=story)).body.splitlines()[-1].startswith("近日")  # goes on


def test_other_stories_headlines_under_the_story_each_with_a_linked_column_name_leave_the_body():
    # guancha: no header; each line a headline (a link, or a span a script follows) and its column's name
    rows = (
        "<div><a href='/post/785'>【逸语道破】美企撤离中国？相反，他们对中国的迟疑正在消散</a>"
        "<a href='/c/1'>大参考</a></div>"
        "<div><span class='post-href'>【察话会回顾】来察话会聊聊巴西为什么不上进</span><a href='/c/2'>聊吧</a></div>"
        "<div><a href='/post/786'>美国农民警告白宫：再打贸易战，都把我们打没了</a><a href='/c/3'>观学院</a></div>"
    )
    editor = "<p>责任编辑：刘响</p>"
    article = extract_article(page(after=editor + rows))
    assert article.body.splitlines() == STORY
    assert article.editor == "刘响"
    one = "<div><a href='/post/786'>美国农民警告白宫：再打贸易战，都把我们打没了</a><a href='/c/3'>观学院</a></div>"
    assert (
        extract_article(page(after=one)).body.splitlines()[-1] == "美国农民警告白宫：再打贸易战，都把我们打没了观学院"
    )
    # the story's own last lines, a link inside each, stay: each is a sentence
    linked = [f"{line[:-1]}，详见<a href='/a/{n}'>此前报道</a>。" for n, line in enumerate(STORY[-2:])]
    own = page(story=STORY[:-2]).replace(
        "</div><div class='footer'>", "".join(f"<p>{x}</p>" for x in linked) + "</div><div class='footer'>"
    )
    assert len(extract_article(own).body.splitlines()) == len(STORY)


def test_a_sites_footer_is_never_the_body():
    footer = (
        "<p>某某日报网 京ICP备11000491号-1 经营许可证编号：京B-2-4-20030004 All Rights Reserved since 1999</p>"
        "<p>某某日报报业集团 版权所有，未经许可不得转载</p>"
        "<p>违法和不良信息举报电话：010-12345678；举报邮箱：jubao@example.cn</p>"
        "<p>互联网新闻信息服务许可证编号：11120170001</p>"
    )
    body = extract_article(page(after=footer)).body
    assert body.splitlines() == STORY
    quoted = STORY + ["美国唱片工会表示：“播客在使用其它音乐时，一定要获得版权所有者或制作人的许可。”"]
    assert extract_article(page(story=quoted)).body.splitlines() == quoted  # a sentence is the story's


def test_a_source_keeps_its_own_last_word():
    assert extract_article(page("【来源】临江教育发布")).source == "临江教育发布"
    assert extract_article(page("来源：新闻晨报发布时间：2024-05-06")).source == "新闻晨报"


IMAGES = (
    "<p><img src='/logo.png' class='logo'></p>"
    "<p><img src='https://img.example.cn/2024/a.jpg' width='600'></p><p class='pictext'>图为工人在车间生产。</p>"
    "<figure><img data-src='//img.example.cn/2024/b.jpg' src='/loading.gif'>"
    "<figcaption>新建的生产线</figcaption></figure>"
    "<p><img src='https://stat.example.cn/pixel.gif' width='1' height='1'></p>"
    "<p><img src='https://img.example.cn/2024/c.png' alt='展览现场的参观者'></p>"
    "<p><img src='https://img.example.cn/icons/share_weixin.png'></p>"
)


def test_the_articles_own_images_in_order_with_their_captions():
    html = page(before=IMAGES) + "<img src='https://img.example.cn/ad/banner.jpg'>"
    images = extract_article(html, "https://news.example.cn/2024/05/06/1.html").images
    assert images == [
        {"url": "https://img.example.cn/2024/a.jpg", "caption": "图为工人在车间生产。"},
        {"url": "https://img.example.cn/2024/b.jpg", "caption": "新建的生产线"},
        {"url": "https://img.example.cn/2024/c.png", "caption": "展览现场的参观者"},
    ]
    assert extract_article(page()).images == []


def test_a_lone_image_s_caption_under_it_and_urls_relative_to_the_page_s_base():
    alone = "<p><img src='a.jpg'></p><p>▲工人在车间生产。记者 王五 摄</p>"
    html = page(before=alone, head="<base href='https://img.example.cn/2024/'>")
    assert extract_article(html, "https://news.example.cn/2024/05/06/1.html").images == [
        {"url": "https://img.example.cn/2024/a.jpg", "caption": "▲工人在车间生产。记者 王五 摄"}
    ]
    credited = page(before="<p><img src='a.jpg'></p><p>图片来源：视觉中国</p>")
    assert extract_article(credited, "https://news.example.cn/1.html").images[0]["caption"] == ""  # whose, not what
    branded = page(before="<p><img src='a.jpg' alt='新闻网'></p>")  # <title>工业数据出炉_新闻网</title>
    assert extract_article(branded, "https://news.example.cn/1.html").images[0]["caption"] == ""  # the site's name
    named = page(before="<p><img src='a.jpg' alt='新闻发布会现场'></p>")
    assert extract_article(named, "https://news.example.cn/1.html").images[0]["caption"] == "新闻发布会现场"
    unsafe = html.replace("https://img.example.cn/2024/", "javascript:alert(1)//")
    assert extract_article(unsafe, "https://news.example.cn/2024/05/06/1.html").images[0]["url"] == (
        "https://news.example.cn/2024/05/06/a.jpg"
    )


def test_description_tags_and_the_time_the_page_was_changed():
    head = (
        "<meta name='description' content='十月工业数据出炉，  增速回升'>"
        "<meta name='keywords' content='工业,统计局，增加值、制造业'>"
        "<meta property='article:tag' content='经济'>"
        "<meta property='article:modified_time' content='2024-05-07T08:30:00+08:00'>"
    )
    article = extract_article(page(head=head))
    assert article.description == "十月工业数据出炉， 增速回升"
    assert article.tags == ["工业", "统计局", "增加值", "制造业", "经济"]
    assert article.updated_at == "2024-05-07T08:30:00+08:00"
    labelled = extract_article(page("来源：新闻网 更新时间：2024-05-08 09:15", after="<p>标签：工业 统计</p>"))
    assert (labelled.updated_at, labelled.tags) == ("2024-05-08T09:15:00+08:00", ["工业", "统计"])
    assert labelled.published_at == "2024-05-06T10:20:00+08:00"
    edited = extract_article(page("发布于 2024-05-06 10:20 编辑于 2024-05-08 09:15"))
    assert (edited.published_at, edited.updated_at) == ("2024-05-06T10:20:00+08:00", "2024-05-08T09:15:00+08:00")
    bare = extract_article(page())
    assert (bare.description, bare.tags, bare.updated_at) == ("", [], "")
    # a description tag that is the headline again yields to another the page gives, else it stands
    again = "<meta name='description' content='工业数据出炉'>"
    lead = "<meta property='og:description' content='国家统计局今天发布数据显示，十月份工业增加值同比增长'>"
    assert (
        extract_article(page(head=again + lead)).description == "国家统计局今天发布数据显示，十月份工业增加值同比增长"
    )
    assert extract_article(page(head=again)).description == "工业数据出炉"


def test_a_lead_the_page_labels_is_the_description_where_its_markup_gives_none():
    lead = "统计局发布十月数据，工业生产平稳增长，多项指标好于预期。"
    for label in ("【导读】", "核心提示：", "摘要："):
        article = extract_article(page(before=f"<p>{label}{lead}</p>"))
        assert (article.description, article.body.splitlines()[0]) == (lead, label + lead), label
    marked = extract_article(page(before=f"<p>【导读】{lead}</p>", head="<meta name='description' content='十月数据'>"))
    assert marked.description == "十月数据"


def test_the_sites_own_keywords_are_no_tags_of_the_article():
    site = "<meta name='keywords' content='河南日报,河南新闻,河南时政,河南日报网'>"
    assert extract_article(page(head=site)).tags == []
    own = "<meta name='keywords' content='工业增加值,统计局,制造业'>"  # the article's, though not each in it
    assert extract_article(page(head=own)).tags == ["工业增加值", "统计局", "制造业"]
    broken = "<meta name='keywords' content='<meta name=统计局'>"  # the page's markup, broken
    assert extract_article(page(head=broken)).tags == []


def test_the_sites_own_description_is_no_summary_of_the_article():
    site = "<meta name='description' content='新闻网是本地区最大的综合门户网站，为网友提供全面及时的资讯服务。'>"
    assert extract_article(page(head=site)).description == ""
    lead = "统计局发布十月数据，工业生产平稳增长，多项指标好于预期。"
    assert extract_article(page(before=f"<p>【导读】{lead}</p>", head=site)).description == lead
    english = "<meta name='description' content='Industrial output grew 5.3% in October.'>"  # nothing to compare
    assert extract_article(page(head=english)).description == "Industrial output grew 5.3% in October."


def test_extract_prints_what_the_crawler_would_write(tmp_path):
    saved = tmp_path / "page.html"
    saved.write_text(page("记者 孙丽 通讯员 何强", before=IMAGES), encoding="utf-8")
    (tmp_path / "empty.html").write_text("<html><body><a href='/'>首页</a></body></html>")
    result = subprocess.run(
        [sys.executable, "-m", "news_crawler.cli.crawler", "extract", str(saved), str(tmp_path / "empty.html"),
         "--url", "https://news.example.cn/2024/05/06/1.html"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    assert (first["author"], first["contributors"], first["title"]) == ("孙丽", "何强", "工业数据出炉")
    assert first["body"].splitlines()[-3:] == STORY and len(first["simhash"]) == 16 and len(first["images"]) == 3
    assert set(first) >= {"url", "published_at", "editor", "source", "description", "tags", "updated_at"}
    # its one line is its one link, a menu's: no text of an article
    assert second == {"file": str(tmp_path / "empty.html"), "invalid": "no article text found on the page"}


def test_extract_without_url_resolves_against_the_address_the_page_names_else_says_so(tmp_path):
    canonical = "<link rel='canonical' href='https://news.example.cn/2024/05/06/1.html'>"
    named = tmp_path / "named.html"
    named.write_text(page("记者 孙丽", before=IMAGES, head=canonical), encoding="utf-8")
    bare = tmp_path / "bare.html"
    bare.write_text(page("记者 孙丽", before=IMAGES), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "news_crawler.cli.crawler", "extract", str(named), str(bare)],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    assert first["url"] == "https://news.example.cn/2024/05/06/1.html" and len(first["images"]) == 3
    assert all(i["url"].startswith("https://img.example.cn/2024/") for i in first["images"])  # //img... too
    assert len(second["images"]) < 3 and second["url"] == ""
    assert f"{bare}: no --url and the page names no address of its own" in result.stderr


def test_a_value_every_sink_can_store_has_no_nul_control_or_lone_surrogate_however_deep():
    from news_crawler.fields import well_formed

    raw = {"key\x00": ["tags\x00\x1f", {"caption\ud800": "图\x0b\x0c片\x1f"}], "n": 3, "body": "第一段\t\n第二段\r\x7f"}
    assert well_formed(raw) == {"key": ["tags", {"caption\ufffd": "图片"}], "n": 3, "body": "第一段\t\n第二段\r\x7f"}


def test_extract_reads_a_file_as_the_content_type_given(tmp_path):
    """--content-type stands for the server's header: what the page is, and its charset."""
    saved = tmp_path / "page.html"
    saved.write_bytes(page("记者 孙丽").encode("gbk"))  # no charset anywhere in the page

    def extract(content_type: str) -> tuple[int, dict]:
        result = subprocess.run(
            [sys.executable, "-m", "news_crawler.cli.crawler", "extract", str(saved),
             "--url", "https://news.example.cn/1.html", "--content-type", content_type],
            capture_output=True, text=True, cwd=ROOT, timeout=120,
        )  # fmt: skip
        return result.returncode, json.loads(result.stdout)

    assert extract("application/pdf") == (1, {"file": str(saved), "invalid": "not an HTML page (application/pdf)"})
    code, fields = extract("text/html; charset=gbk")
    assert code == 0 and fields["title"] == "工业数据出炉"
    assert extract("text/html; charset=big5")[1]["title"] != "工业数据出炉"  # the header's charset is believed
