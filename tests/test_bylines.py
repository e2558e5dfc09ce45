"""A byline whose parts are inline elements that touch."""

from html import escape

from news_crawler.extraction import extract_article

STORY = ["新京报讯 （记者 刘玮）10月30日，据香港媒体报道，武侠小说泰斗金庸逝世，享年94岁。",
         "主演过《笑傲江湖》的李亚鹏接受采访时表示，自己刚刚得知这个消息感到很突然和难过。",
         "李亚鹏回忆，自己第一次见到金庸是在《笑傲江湖》剧组，当时金庸去探班，两人相谈甚欢。"]


def page(byline: str) -> str:
    paragraphs = "".join(f"<p>{escape(x)}</p>" for x in STORY * 3)
    return ("<html><head><meta charset='utf-8'><title>金庸逝世 李亚鹏回忆_手机某某网</title></head><body>"
            "<article><h1>金庸逝世 李亚鹏回忆</h1>"
            f"<div class='info'>{byline}</div><section>{paragraphs}</section></article></body></html>")


def test_touching_inline_elements_read_as_separate_words():
    article = extract_article(page("<span>2019-03-01</span><span>10:20</span><span>来源：</span><span>新华社</span>"))
    assert article.published_at == "2019-03-01T10:20:00+08:00" and article.source == "新华社"
