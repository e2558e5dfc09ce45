"""Ten more page templates for ``cross_site.py``, written after the twenty-two of
``site_templates.py`` and ``more_site_templates.py`` and run once before any change they led
to: pages that state their time or writer in markup rather than in a labelled byline (a
modern portal's JSON-LD under a year-less "3月1日 10:08", microdata ``itemprop``s, a
self-media page's ``<time datetime>`` shown as "3天前" beside the account's name and a
follow button, a mobile page's ``<span class="author">``), a xinhuanet-like header whose
year, month/day and time stand in elements of their own ("2019 03/01 10:08:23") over a
新华社…电（记者 X） dateline, a people's-daily-like page (GB2312, 本报记者 line, date and time
run together, 责编 in brackets), a byline under the story with the writer's affiliation
and a sidebar's later date, and three that try the body: a story under thirty comments that together
outweigh it, one above a related list of eighteen headlines with summaries, and ``<br><br>``
lines around an ad block with the source and writer at the end.

They found: JSON-LD, microdata and ``<time datetime>`` not read (no time on those pages,
no author where only markup gave it); the split xinhua date not read; a name in an
element marked as the author's not read; "3月1日 10:08" not read as a year-less time; an
account name followed by a relative time and 关注 not read. The body templates were
already right. Where a template states a writer in markup or a dateline, a reporter's credit of the story's
own (新京报讯（记者 X）, （文/记者 X）) is taken out of it: the page would name two writers.
"""

from __future__ import annotations

import json
import random
import re
from html import escape

from more_site_templates import ALL as EARLIER
from site_templates import NAMES, OUTLETS, _links, _page, _paragraphs, _when

_OWN_CREDIT = re.compile(r"[（(][^（）()]{0,20}?(?:记者|通讯员|实习生|文\s*[/／]|[/／]\s*文)[^（）()]{0,20}[）)]")


def _uncredited(lines: list[str]) -> list[str]:
    """The story without a reporter's credit of its own (（记者 X）, （文/记者 X）, （文/X）, （X/文 Y/摄影）)."""
    return [_OWN_CREDIT.sub("", line) for line in lines]


def jsonld_modern(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    ld = json.dumps(
        {
            "@context": "https://schema.org",
            "@type": "NewsArticle",
            "headline": title,
            "datePublished": f"{y}-{m:02d}-{d:02d}T{hh:02d}:{mm:02d}:00+08:00",
            "author": {"@type": "Person", "name": author},
        },
        ensure_ascii=False,
    )
    half = len(lines) // 2
    paras1, paras2 = _paragraphs(lines[:half], "<p>", "</p>"), _paragraphs(lines[half:], "<p>", "</p>")
    html = (
        f'<!doctype html><html><head><meta charset="utf-8"><title>{escape(title)}_新闻频道</title>'
        f'<script type="application/ld+json">{ld}</script></head><body><nav><a href="/">首页</a><a href="/n">新闻</a></nav>'
        f'<div class="article-header"><h1>{escape(title)}</h1><div class="meta"><span class="time">{m}月{d}日 {hh:02d}:{mm:02d}</span>'
        f'<span class="source">来源：中国新闻网</span></div></div><div class="article-body">{paras1}'
        '<div class="related-inline"><h4>相关阅读</h4><ul>'
        + _links(others[:3], '<li><a href="/r{n}.html">{t}</a></li>')
        + "</ul></div>"
        f'{paras2}<p class="statement">声明：本文转载自其他媒体，不代表本站观点。</p></div>'
        "<aside><h3>热门排行</h3><ul>"
        + _links(others[3:], '<li><a href="/h{n}.html">{t}</a></li>')
        + "</ul></aside></body></html>"
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def people_style(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, '<p style="text-indent: 2em;">', "</p>")
    html = (
        f'<html><head><meta http-equiv="content-type" content="text/html;charset=GB2312"><title>{escape(title)}--时政--人民网</title></head><body>'
        f'<div class="col-1"><h1>{escape(title)}</h1><p class="author">本报记者&nbsp;&nbsp;{author}</p>'
        f'<div class="box01"><div class="fl">{y}年{m:02d}月{d:02d}日{hh:02d}:{mm:02d}&nbsp;&nbsp;来源：<a href="#">人民网－人民日报</a></div>'
        '<div class="fr"><a href="#">分享到</a></div></div>'
        f'<div class="rm_txt_con">{paras}<div class="edit">(责编：{rng.choice(NAMES)}、{rng.choice(NAMES)})</div></div>'
        '<div class="rm_relevant"><h2>相关新闻</h2><ul>'
        + _links(others, '<li><a href="/r{n}.html">{t}</a></li>')
        + "</ul></div></div></body></html>"
    )
    return _page(html, "gb2312", author, [y, m, d, hh, mm], lines)


def xinhua_style(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    first = f"新华社北京{m}月{d}日电（记者{author}）" + lines[0]
    paras = _paragraphs([first] + lines[1:], "<p>", "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}-新华网</title></head><body>'
        f'<div class="header"><div class="head-line"><h1><span class="title">{escape(title)}</span></h1>'
        f'<div class="header-time left"><span class="year"><em>{y}</em></span><span class="day"><em>{m:02d}</em>/<em>{d:02d}</em></span>'
        f'<span class="time">{hh:02d}:{mm:02d}:{rng.randint(0, 59):02d}</span></div><div class="source">来源：新华网</div></div></div>'
        f'<div class="main"><div id="detail">{paras}</div><div class="editor">【责任编辑:{rng.choice(NAMES)}】</div></div>'
        '<div class="list"><h3>推荐阅读</h3>' + _links(others, '<a href="/x{n}.htm">{t}</a>') + "</div></body></html>"
    )
    want_lines = [first] + lines[1:]
    return _page(html, "utf-8", author, [y, m, d, hh, mm], want_lines)


def mobile_spans(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = "".join(
        f"<p><span>{escape(x)}</span></p>" + (f'<p><img src="/i{i}.jpg"></p>' if i == 1 else "")
        for i, x in enumerate(lines)
    )
    html = (
        f'<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>{escape(title)}</title></head><body>'
        f'<header class="top-bar"><a class="logo" href="/">某某新闻</a><a class="open-app">打开APP</a></header>'
        f'<div class="article"><h1 class="article-title">{escape(title)}</h1><div class="article-info"><span class="author">{author}</span>'
        f'<span class="date">{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}</span><span class="read">阅读 3.2万</span></div>'
        f'<div class="article-content">{paras}</div><div class="open-app-tip">打开APP阅读全文</div></div>'
        '<div class="recommend"><h3>为你推荐</h3>'
        + _links(others, '<a href="/m{n}"><p>{t}</p><span>评论 12</span></a>')
        + "</div></body></html>"
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def footer_byline(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>　　", "</p>")
    html = (
        f'<html><head><meta charset="gbk"><title>{escape(title)}_某某网</title></head><body>'
        f'<div class="sidebar"><h4>最新更新</h4><ul><li>{y}-{(m % 12) + 1:02d}-05 12:00 <a href="/s.html">{escape(others[0])}</a></li></ul></div>'
        f'<div class="content"><h1>{escape(title)}</h1><div class="info"><span id="pubtime_baidu">{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}:08</span>'
        f'　<span id="source_baidu">来源：<a href="#">{rng.choice(OUTLETS)}</a></span></div>'
        f'<div id="text">{paras}<div class="author">作者：{author}（作者单位：某某大学新闻学院）</div></div>'
        '<div class="pages"><a href="#">上一篇：'
        + escape(others[1])
        + '</a><a href="#">下一篇：'
        + escape(others[2])
        + "</a></div></div>"
        '<div class="footer">Copyright © 2003-2019 某某网 版权所有 京ICP备00000000号</div></body></html>'
    )
    return _page(html, "gbk", author, [y, m, d, hh, mm], lines)


def relative_time(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)} | 某某号</title></head><body>'
        f'<h1 class="title">{escape(title)}</h1><div class="info"><a class="account" href="/u/1">{author}</a>'
        f'<time datetime="{y}-{m:02d}-{d:02d}T{hh:02d}:{mm:02d}:00+08:00">3天前</time><span>关注</span></div>'
        f'<div class="content">{paras}</div><div class="comments"><h3>评论</h3><div class="c"><b>网友甲</b> 1小时前 <p>说得好</p></div></div></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def itemprop_date(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}</title></head><body><div itemscope itemtype="http://schema.org/NewsArticle">'
        f'<h1 itemprop="headline">{escape(title)}</h1><div class="meta"><span itemprop="author" itemscope itemtype="http://schema.org/Person"><span itemprop="name">{author}</span></span>'
        f'<span itemprop="datePublished" content="{y}-{m:02d}-{d:02d}T{hh:02d}:{mm:02d}:00+08:00">{m}月{d}日</span></div>'
        f'<div itemprop="articleBody">{paras}</div></div></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def short_with_comments(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>", "</p>")
    comments = "".join(
        f'<div class="comment-item"><span class="user">网友{i}</span><span class="time">{y}-{m:02d}-{d:02d} {hh:02d}:{i:02d}</span>'
        f"<p>{escape(o)}，我觉得这件事情值得大家认真思考一下，希望有关部门能够尽快给出说法。</p></div>"
        for i, o in enumerate(others * 5)
    )
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}</title></head><body>'
        f'<h1>{escape(title)}</h1><div class="byline">{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d} 来源：某某网 作者：{author}</div>'
        f'<div class="article">{paras}</div><div class="comments"><h3>网友评论</h3>{comments}</div></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def summaries_list(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>", "</p>")
    related = "".join(
        f'<li><h4><a href="/n{i}.html">{escape(o)}</a></h4><p>{escape(o)}。据悉，该事件引发社会广泛关注，相关部门已经介入调查，具体情况有待进一步核实，本站将持续关注。</p></li>'
        for i, o in enumerate(others * 3)
    )
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}_某某新闻网</title></head><body>'
        f'<div class="main"><h1>{escape(title)}</h1><p class="info">作者：{author}　发布时间：{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}</p>'
        f'<div class="text">{paras}</div></div><div class="related"><h3>相关新闻</h3><ul>{related}</ul></div></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def br_div_ads(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    half = len(lines) // 2
    body = (
        "<br><br>".join(escape(x) for x in lines[:half])
        + '<div class="ad">广告</div>'
        + "<br><br>".join(escape(x) for x in lines[half:])
    )
    html = (
        f'<html><head><meta charset="gbk"><title>{escape(title)}</title></head><body>'
        f'<h1>{escape(title)}</h1><div class="t">{y}年{m}月{d}日 {hh}:{mm:02d}</div>'
        f'<div id="content">{body}<br><br>本文来源：{rng.choice(OUTLETS)}　作者：{author}<br>【延伸阅读】<a href="/x.html">{escape(others[0])}</a></div>'
        '<div class="foot">关于我们 | 联系我们 | 广告服务</div></body></html>'
    )
    return _page(html, "gbk", author, [y, m, d, hh, mm], lines)


MARKUP = {
    "jsonld_modern": jsonld_modern,
    "people_style": people_style,
    "xinhua_style": xinhua_style,
    "mobile_spans": mobile_spans,
    "footer_byline": footer_byline,
    "relative_time": relative_time,
    "itemprop_date": itemprop_date,
    "short_with_comments": short_with_comments,
    "summaries_list": summaries_list,
    "br_div_ads": br_div_ads,
}
ALL = {**EARLIER, **MARKUP}
