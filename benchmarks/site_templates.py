"""Page templates of the kinds a multi-site Chinese news crawl meets, for
``cross_site.py``: a government portal (TRS-style ``<div>``s, a date-only byline), a
modern portal (date and outlet in spans, editor line, related list, comments, a ranking
sidebar, a reporter's byline), an older CMS (a table, ``<br>`` lines, ASCII colons and ``&nbsp;`` separators,
GBK), a mobile page (``<article>``/``<section>``, a 文/ byline, app prompts) and a local paper (GB2312
declared, byline with author and editor, previous/next links and comments with times), a
party paper (date and source run together, editors in brackets), a self-media article
(WeChat-like ``<section>``s, the writer as a bare name in the meta line, a date only) and a
netease-like portal (GBK, 本文来源 and an editor code in the body, related and hot lists),
and a county site with no charset anywhere (GBK; headline, date-only byline with a click
counter, story, editor, print/close, previous/next headlines and timed comments all
``<br>`` lines of one table cell), and a city news site whose byline (source, author,
publication time) stands under the story.

Each returns ``(bytes, truth)``: truth has ``author`` ('' where the page names none),
``time`` (the numbers a right ``published_at`` starts with) and ``text`` (the story's
lines). The templates are written from how such sites look, not from any page in the
shared data, and were not tuned against the extractor.
"""

from __future__ import annotations

import random
from html import escape

NAMES = ["张建国", "李明", "王小红", "赵培", "陈智勇", "刘芳", "欧阳晓东", "孙悦"]
OUTLETS = ["新华社", "人民日报", "市政府办公室", "本站", "县融媒体中心", "中国新闻网", "澎湃新闻"]


def _when(rng: random.Random) -> tuple[int, int, int, int, int]:
    return 2019, rng.randint(1, 12), rng.randint(1, 28), rng.randint(7, 22), rng.randint(0, 59)


def _page(html: str, encoding: str, author: str, time: list[int], lines: list[str]) -> tuple[bytes, dict]:
    """The page's bytes (characters the charset lacks as references, as browsers send them)
    and its truth."""
    return html.encode(encoding, "xmlcharrefreplace"), {"author": author, "time": time, "text": "\n".join(lines)}


def _paragraphs(lines: list[str], opening: str, closing: str) -> str:
    return "".join(f"{opening}{escape(x)}{closing}" for x in lines)


def _links(others: list[str], fmt: str) -> str:
    return "".join(fmt.format(n=i, t=escape(t)) for i, t in enumerate(others))


def government(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    y, m, d, _, _ = _when(rng)
    paras = _paragraphs(lines, '<p style="text-indent:2em;">', "</p>")
    html = (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{escape(title)}-某市人民政府门户网站</title></head>'
        '<body><div class="header"><a href="/">首页</a><a href="/zwgk/">政务公开</a><a href="/hdjl/">互动交流</a>'
        '<a href="/bsfw/">办事服务</a></div><div class="location">当前位置：<a href="/">首页</a> &gt; '
        '<a href="/zwdt/">政务动态</a> &gt; 正文</div><div class="article">'
        f'<h1>{escape(title)}</h1><div class="info"><span>发布日期：{y}-{m:02d}-{d:02d}</span>'
        f'<span>来源：{rng.choice(OUTLETS)}</span><span>浏览次数：<em id="hits">1024</em></span>'
        '<span>字号：[<a href="#">大</a> <a href="#">中</a> <a href="#">小</a>]</span></div>'
        f'<div class="TRS_Editor">{paras}</div>'
        '<div class="tools">【<a href="#">打印本页</a>】【<a href="#">关闭窗口</a>】</div></div>'
        '<div class="related"><h3>相关信息</h3><ul>'
        + _links(others[:4], '<li><a href="/zwdt/{n}.html">{t}</a><span>2019-02-2{n}</span></li>')
        + '</ul></div><div class="footer">主办：某市人民政府办公室 网站标识码：3301000001 '
        "浙ICP备05012345号</div></body></html>"
    )
    return _page(html, "utf-8", "", [y, m, d], lines)


def portal(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>\u3000\u3000", "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}|新闻_某某网</title></head><body>'
        '<div class="top-nav"><a href="/">首页</a><a href="/news/">新闻</a><a href="/finance/">财经</a>'
        '<a href="/sports/">体育</a><a href="/login">登录</a></div><div class="main-content">'
        f'<h1 class="main-title">{escape(title)}</h1><div class="date-source">'
        f'<span class="date">{y}年{m:02d}月{d:02d}日 {hh:02d}:{mm:02d}</span>'
        f'<a class="source" href="/s">{rng.choice(OUTLETS)}</a><span class="author">澎湃新闻记者 {author}</span></div>'
        f'<div class="article" id="article">{paras}'
        f'<p class="show_author">责任编辑：{rng.choice(NAMES)}</p></div>'
        '<div class="keywords">文章关键词：<a href="/t/1">民生</a> <a href="/t/2">发展</a></div>'
        '<div class="share">分享到：<a>微博</a><a>微信</a><a>QQ空间</a></div>'
        '<div class="related"><h2>相关新闻</h2><ul>'
        + _links(others[:4], '<li><a href="/news/{n}.shtml">{t}</a></li>')
        + '</ul></div><div class="comment"><h3>网友评论</h3>'
        '<div class="cmt"><span class="name">北京网友</span><span class="time">03月02日 10:12</span>'
        '<p>支持，希望落到实处。</p></div></div></div><div class="sidebar"><h3>热门排行</h3><ol>'
        + _links(others, '<li><a href="/news/hot{n}.shtml">{t}</a></li>')
        + '</ol></div><div class="footer">Copyright © 1996-2019 某某网 All Rights Reserved</div></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def old_cms(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    gap = "&nbsp;" * 4
    body = "<br><br>".join(f"{gap}{escape(x)}" for x in lines)
    html = (
        "<html><head><meta http-equiv=Content-Type content='text/html; charset=gbk'>"
        f"<title>{escape(title)}</title></head><body><table width=980 align=center>"
        "<tr><td><a href=/>网站首页</a> | <a href=/news/>新闻动态</a> | <a href=/gg/>通知公告</a></td></tr>"
        f"<tr><td align=center class=title><font size=4><b>{escape(title)}</b></font></td></tr>"
        f"<tr><td align=center>作者:{author}{gap}来源:{rng.choice(OUTLETS)}{gap}"
        f"发布时间:{y}-{m}-{d} {hh}:{mm:02d}:00{gap}浏览次数:<font color=red>125</font></td></tr>"
        f"<tr><td class=content>{body}</td></tr>"
        "<tr><td align=right>【<a href=#>字体:大 中 小</a>】【<a href=#>打印</a>】【<a href=#>关闭</a>】</td></tr>"
        f"<tr><td>上一条:<a href=/a/1.html>{escape(others[0])}</a><br>"
        f"下一条:<a href=/a/2.html>{escape(others[1])}</a></td></tr><tr><td>相关文章:<br>"
        + _links(others[2:5], "<a href=/a/r{n}.html>{t}</a><br>")
        + "</td></tr><tr><td align=center>版权所有 某某信息网 备案号：京ICP备12345678号</td></tr></table></body></html>"
    )
    return _page(html, "gbk", author, [y, m, d, hh, mm], lines)


def mobile(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, '<p class="art_p">', "</p>")
    html = (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">'
        f'<title>{escape(title)}_手机某某网</title></head><body><header class="top">某某新闻 '
        '<a href="/app">打开APP</a></header><article class="art_box">'
        f'<h1 class="art_tit_h1">{escape(title)}</h1><div class="art_info">'
        f'<time class="art_time">{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}</time>'
        f'<cite class="art_cite">{rng.choice(OUTLETS)}</cite><span class="art_author">文/{author}</span></div>'
        f'<section class="art_content">{paras}</section><div class="look_more">展开全文</div></article>'
        '<div class="hot"><h2>热门推荐</h2>'
        + _links(others, '<a href="/n/{n}"><div class="title">{t}</div><span>1.{n}万阅读</span></a>')
        + "</div><footer>打开APP，阅读更多精彩内容</footer></body></html>"
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def local_paper(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>\u3000\u3000", "</p>")
    html = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312">'
        f"<title>{escape(title)} - 某某日报</title></head><body>"
        '<div class="nav"><a href="/">首页</a> <a href="/bd/">本地</a> <a href="/gn/">国内</a> '
        '<a href="/pl/">评论</a></div><div class="content">'
        f'<h2>{escape(title)}</h2><div class="source">{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}\u3000'
        f"来源：{rng.choice(OUTLETS)}\u3000作者：{author}\u3000编辑：{rng.choice(NAMES)}</div>"
        f'<div id="content">{paras}</div><div class="page_nav">'
        f'上一篇：<a href="/bd/1.html">{escape(others[0])}</a>\u3000'
        f'下一篇：<a href="/bd/2.html">{escape(others[1])}</a></div>'
        '<div class="pl"><h4>发表评论</h4><div class="item">网友 2019-12-02 08:00:01</div>'
        '<div class="item">写得真好，点赞！</div></div></div>'
        '<div class="foot">某某日报社版权所有 未经授权禁止转载</div></body></html>'
    )
    return _page(html, "gb18030", author, [y, m, d, hh, mm], lines)


def party_paper(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    y, m, d, hh, mm = _when(rng)
    editors = "、".join(rng.sample(NAMES, 2))
    paras = _paragraphs(lines, '<p style="text-indent: 2em;">', "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}--时政--人民某某网</title>'
        '<meta name="keywords" content="时政"></head><body><div class="nav"><a href="/">首页</a>|<a href="/gn/">国内</a>'
        f'</div><div class="col-1"><h1>{escape(title)}</h1><div class="box01"><div class="fl">'
        f'{y}年{m:02d}月{d:02d}日{hh:02d}:{mm:02d}&nbsp;&nbsp;来源：<a href="/">人民某某网－人民日报</a></div>'
        '<div class="fr"><a>分享到：</a><a class="wx">微信</a><a class="wb">微博</a></div></div>'
        f'<div class="box_con">{paras}<div class="box_pic"></div>'
        f'<div class="edit clearfix">(责编：{editors})</div></div>'
        '<div class="box_tag">相关专题</div><ul class="list">'
        + _links(others[:3], '<li><a href="/n1/{n}.html">{t}</a></li>')
        + '</ul></div><div class="footer">人民某某网版权所有，未经书面授权禁止使用</div></body></html>'
    )
    return _page(html, "utf-8", "", [y, m, d, hh, mm], lines)


def self_media(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, _, _), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, '<p><span style="font-size: 15px;">', "</span></p>")
    html = (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{escape(title)}</title>'
        '<meta name="viewport" content="width=device-width"></head><body><div id="js_article" class="rich_media">'
        f'<h1 class="rich_media_title">{escape(title)}</h1><div class="rich_media_meta_list">'
        f'<span class="rich_media_meta rich_media_meta_text">原创</span>'
        f'<span class="rich_media_meta rich_media_meta_text">{author}</span>'
        '<span class="rich_media_meta_nickname"><a id="js_name">某某观察</a></span>'
        f'<em id="publish_time" class="rich_media_meta">{y}-{m:02d}-{d:02d}</em></div>'
        f'<div class="rich_media_content" id="js_content"><section>{paras}</section>'
        "<section><p>喜欢此内容的人还喜欢</p></section></div>"
        '<div class="rich_media_tool"><a>阅读原文</a> 阅读 10万+ <a>在看</a></div></div>'
        '<div class="recommend"><h3>喜欢此内容的人还喜欢</h3>'
        + _links(others[:3], '<a href="/s/{n}"><span>{t}</span></a>')
        + "</div></body></html>"
    )
    return _page(html, "utf-8", author, [y, m, d], lines)


def netease(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    y, m, d, hh, mm = _when(rng)
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<html><head><meta charset="gbk"><title>{escape(title)}_网易新闻</title></head><body>'
        '<div class="N-nav"><a href="/">网易首页</a><a href="/news/">新闻</a><a href="/app">应用</a></div>'
        f'<div class="post_content"><h1 class="post_title">{escape(title)}</h1><div class="post_info">'
        f'{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}:{rng.randint(0, 59):02d}　来源: <a href="/s">{rng.choice(OUTLETS)}</a>'
        '<a class="post_jubao">举报</a></div>'
        f'<div class="post_body">{paras}<p>本文来源：{rng.choice(OUTLETS)}</p>'
        f'<div class="post_btmshare"></div><div class="ep-source cDGray"><span class="left">'
        f"责任编辑：{rng.choice(NAMES)}_NBJ{rng.randint(1000, 9999)}</span></div></div>"
        '<div class="post_next"><h3>相关推荐</h3><ul>'
        + _links(others[:4], '<li><a href="/21/{n}.html">{t}</a><span class="time">2019-02-2{n}</span></li>')
        + '</ul></div><div class="tie-area">跟贴 <span>1234</span> 参与 <span>5678</span></div></div>'
        '<div class="post_side"><h3>热点新闻</h3><ul>'
        + _links(others, '<li><a href="/22/{n}.html">{t}</a></li>')
        + "</ul></div></body></html>"
    )
    return _page(html, "gbk", "", [y, m, d, hh, mm], lines)


def county_site(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, _, _), author = _when(rng), rng.choice(NAMES)
    gap = "\u3000"
    cell = "<br>".join(
        [
            f"<b>{escape(title)}</b>",
            f"发布时间：{y}/{m:02d}/{d:02d}{gap}来源：{rng.choice(OUTLETS)}{gap}作者：{author}{gap}点击数："
            "<script>document.write(Math.round(Math.random()*900))</script>",
            "",
        ]
        + [f"{gap * 2}{escape(x)}" for x in lines]
        + [
            "",
            f"责任编辑：{rng.choice(NAMES)}",
            "【打印】【关闭】",
            f"上一篇：<a href=/art/{y}/{m}/1.html>{escape(others[0])}</a>",
            f"下一篇：<a href=/art/{y}/{m}/2.html>{escape(others[1])}</a>",
            "网友评论",
            f"游客 {y}-{m:02d}-{d:02d} 18:{rng.randint(10, 59)}:07{gap}说得好，支持！",
            f"热心市民 {y}-{m:02d}-{min(d + 1, 28):02d} 09:{rng.randint(10, 59)}:31{gap}希望多报道这样的事",
        ]
    )
    html = (
        "<html><head><title>" + escape(title) + "_某某县人民政府</title></head><body>"
        "<table width=1000 border=0 cellpadding=0 cellspacing=0><tr><td colspan=2>"
        "<a href=/>首页</a> | <a href=/zwgk/>政务公开</a> | <a href=/xwzx/>新闻中心</a> | <a href=/bsfw/>办事服务</a>"
        "</td></tr><tr><td width=220 valign=top>栏目导航<br><a href=/xwzx/gzdt/>工作动态</a><br>"
        "<a href=/xwzx/xzdt/>乡镇动态</a><br><a href=/xwzx/tzgg/>通知公告</a></td>"
        f"<td valign=top>当前位置：<a href=/>首页</a> &gt; <a href=/xwzx/>新闻中心</a><br>{cell}</td></tr>"
        "<tr><td colspan=2 align=center>主办：某某县人民政府办公室　地址：某某县人民路1号<br>"
        "备案号：某ICP备05001234号　网站标识码：1234000012</td></tr></table></body></html>"
    )
    return _page(html, "gbk", author, [y, m, d], lines)


def byline_under(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{escape(title)}_某某市新闻网</title></head><body>'
        '<div class="top"><a href="/">首页</a> <a href="/sz/">时政</a> <a href="/sh/">社会</a></div>'
        f'<div class="article"><h1>{escape(title)}</h1><div class="content">{paras}</div>'
        f'<div class="info">来源：{rng.choice(OUTLETS)}　作者：{author}　发布时间：{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}</div>'
        f'<div class="editor">责任编辑：{rng.choice(NAMES)}</div><div class="share">分享到：微信 微博</div></div>'
        '<div class="related"><h3>相关新闻</h3><ul>'
        + _links(others[:4], '<li><a href="/n/{n}.html">{t}</a></li>')
        + "</ul></div></body></html>"
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


TEMPLATES = {
    "government": government,
    "portal": portal,
    "old_cms": old_cms,
    "mobile": mobile,
    "local_paper": local_paper,
    "party_paper": party_paper,
    "self_media": self_media,
    "netease": netease,
    "county_site": county_site,
    "byline_under": byline_under,
}
