"""A byline above the story names its writer, even where the story quotes its own reporter
and where the byline's parts are inline elements that touch."""

from html import escape

import pytest

from news_crawler.extraction import extract_article

STORY = ["新京报讯 （记者 刘玮）10月30日，据香港媒体报道，武侠小说泰斗金庸逝世，享年94岁。",
         "主演过《笑傲江湖》的李亚鹏接受采访时表示，自己刚刚得知这个消息感到很突然和难过。",
         "李亚鹏回忆，自己第一次见到金庸是在《笑傲江湖》剧组，当时金庸去探班，两人相谈甚欢。"]


def page(byline: str, story: list[str] = STORY) -> str:
    paragraphs = "".join(f"<p>{escape(x)}</p>" for x in story * 3)
    return ("<html><head><meta charset='utf-8'><title>金庸逝世 李亚鹏回忆_手机某某网</title></head><body>"
            "<article><h1>金庸逝世 李亚鹏回忆</h1>"
            f"<div class='info'>{byline}</div><section>{paragraphs}</section></article></body></html>")


@pytest.mark.parametrize("byline,author", [
    ("<time>2019-12-21 08:38</time><cite>新华社</cite><span>文/欧阳晓东</span>", "欧阳晓东"),
    ("<span>2019年10月30日 12:51</span><a href='/s'>澎湃新闻</a><span>澎湃新闻记者 王小红</span>", "王小红"),
    ("<span>作者：</span><span>孙悦</span>", "孙悦"),
    ("<time>2019-12-21 08:38</time><cite>新华社</cite>", "刘玮"),  # no credit above: the story's own
])
def test_the_writer_credited_above_the_story_is_the_author(byline, author):
    article = extract_article(page(byline))
    assert article.author == author
    assert article.published_at.startswith(("2019-12-21T08:38", "2019-10-30T12:51", "")) and article.body.startswith("新京报讯")


def test_touching_inline_elements_read_as_separate_words():
    article = extract_article(page("<span>2019-03-01</span><span>10:20</span><span>来源：</span><span>新华社</span>"))
    assert article.published_at == "2019-03-01T10:20:00+08:00" and article.source == "新华社"


def test_a_padded_two_character_name_and_a_counter_word_that_runs_on():
    no_credit = [line.replace("（记者 刘玮）", "") for line in STORY]
    padded = page("<span>2019-03-01</span>", no_credit).replace("<title>", "<meta name='author' content='赵  培'><title>")
    assert extract_article(padded).author == "赵培"
    counter = page("<span>作者： 流泉 访问统计： 2005年08月30日</span>")
    assert extract_article(counter).author == "流泉"


def test_a_self_media_writer_after_its_original_tag_is_the_author():
    meta = "<span>原创</span><span>孙悦</span><span><a id='js_name'>某某观察</a></span><em>2019-01-25</em>"
    article = extract_article(page(meta))
    assert article.author == "孙悦" and article.published_at == "2019-01-25"
    no_credit = [line.replace("（记者 刘玮）", "") for line in STORY]
    channel = "<span>金融市场</span> <span>腾讯新闻</span> <span>2019-09-23 07:48</span>"
    assert extract_article(page(channel, no_credit)).author == ""  # a channel and a site: no writer
