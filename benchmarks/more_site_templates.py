"""Twelve more page templates for ``cross_site.py``, written after the ten of
``site_templates.py`` and run before any change they led to: a PHPCMS-style page (pipes
between byline parts, a click counter, 【责任编辑】 inside the story, a disclaimer), a school
site of nested tables (【作者】【来源】【发布时间：2019年3月1日 10时8分】 in brackets, the minute
unpadded; GB2312), a page whose time is only in its ``article:published_time`` meta tag, a
page of ``<div>`` paragraphs (a dotted date, 记者 byline, 编辑/审核 under the story), a
sohu-like page (原标题 line, 返回…查看更多, editor, platform statement), a provincial
office's page (a date-only byline among 信息来源/字体/打印), a byline in one of ten forms
(作者：本报记者 X, 文/X 图/Y, 撰稿：X, [作者:X], X/文, 文｜X ...), a story opening with
本报讯（记者 X）, and a Discuz-like portal post (GBK, 发布者: admin, a 摘要 line of the
story's own words, the story as ``<br>`` lines in a table cell, tool links, timed comments);
then a portal whose ``<h1>`` is its logo (the headline an ``<h2>``), a GBK page whose
headline is a ``<div>`` over ``<br>`` lines, and a paper's digital edition (a kicker, the
headline, a ——subtitle, 本报记者 X and 《某某日报》（date 第03版） above the story).

They found: an unpadded minute after 时 read as no time; 本报记者/新华社记者 kept in the
author or cutting it; X/文 and 文｜X not read as credits; the 摘要 line and a row of tool
links (收藏分享邀请) left in the body; the digital edition's subtitle, credit and issue
lines left above the story. Each returns ``(bytes, truth)`` as in
``site_templates.py``.
"""

from __future__ import annotations

import random
from html import escape

from site_templates import NAMES, OUTLETS, TEMPLATES, _links, _page, _paragraphs, _when


def phpcms(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"><title>{escape(title)} - 新闻中心 - 某某在线</title></head><body>'
        '<div class="nav"><a href="/">首页</a><a href="/news/">新闻中心</a><a href="/bbs/">论坛</a></div>'
        '<div class="crumbs">您现在的位置：<a href="/">首页</a> &gt; <a href="/news/">新闻中心</a> &gt; 本地新闻</div>'
        f'<div class="content_box"><h1 class="content_title">{escape(title)}</h1>'
        f'<div class="infos">时间：{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}:{rng.randint(0, 59):02d}&nbsp;|&nbsp;来源：{rng.choice(OUTLETS)}&nbsp;|&nbsp;'
        f'作者：{author}&nbsp;|&nbsp;点击：<span id="hits">0</span>次</div>'
        f'<div id="endText">{paras}<p>【责任编辑：{rng.choice(NAMES)}】</p></div>'
        '<div class="statement">声明：本网转载此文出于传递更多信息之目的，并不意味着赞同其观点或证实其描述。</div>'
        f'<div class="prenext"><p>上一篇：<a href="/news/1.html">{escape(others[0])}</a></p><p>下一篇：<a href="/news/2.html">{escape(others[1])}</a></p></div>'
        '<div class="hot"><h3>本周热点</h3><ul>'
        + _links(others, '<li><a href="/news/h{n}.html">{t}</a> <span>02-2{n}</span></li>')
        + '</ul></div></div><div class="foot">Powered by PHPCMS</div></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def bracket_table(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, '<p style="line-height:200%"><font size="3">\u3000\u3000', "</font></p>")
    html = (
        f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"><title>{escape(title)}</title></head><body>'
        '<table width="960"><tr><td><img src="/images/banner.jpg"></td></tr><tr><td><a href="/">首页</a> <a href="/xw/">新闻</a></td></tr></table>'
        '<table width="960"><tr><td width="240" valign="top"><table><tr><td>最新文章</td></tr>'
        + _links(others[:4], '<tr><td><a href="/xw/{n}.htm">{t}</a></td></tr>')
        + f'</table></td><td valign="top"><table width="100%"><tr><td align="center"><h3>{escape(title)}</h3></td></tr>'
        f'<tr><td align="center">【作者：{author}】【来源：{rng.choice(OUTLETS)}】【发布时间：{y}年{m}月{d}日 {hh}时{mm}分】【阅读：<span>312</span>次】</td></tr>'
        f'<tr><td class="news_content">{paras}</td></tr>'
        '<tr><td align="right">【<a href="javascript:window.print()">打印此文</a>】【<a href="javascript:window.close()">关闭窗口</a>】</td></tr>'
        '</table></td></tr></table><table><tr><td align="center">版权所有：某某学院 地址：某某路88号</td></tr></table></body></html>'
    )
    return _page(html, "gb18030", author, [y, m, d, hh, mm], lines)


def meta_date(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{escape(title)}</title>'
        f'<meta property="article:published_time" content="{y}-{m:02d}-{d:02d}T{hh:02d}:{mm:02d}:00+08:00">'
        f'<meta name="author" content="{author}"></head><body><div class="topbar"><a href="/">首页</a></div>'
        f'<main><h1>{escape(title)}</h1><div class="meta">来源：{rng.choice(OUTLETS)}　作者：{author}</div>'
        f'<div class="rich-text">{paras}</div></main><aside><h3>最新</h3><ul>'
        + _links(others, '<li><a href="/a/{n}">{t}</a><em>2019-12-2{n} 08:1{n}</em></li>')
        + "</ul></aside></body></html>"
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def div_lines(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<div>\u3000\u3000", "</div>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}_某某新闻网</title></head><body>'
        '<div id="header"><a href="/">首页</a><a href="/local/">本地</a></div><div id="main">'
        f'<div class="title">{escape(title)}</div>'
        f'<div class="sub">{y}.{m:02d}.{d:02d} {hh:02d}:{mm:02d}　{rng.choice(OUTLETS)}　记者 {author}　'
        '<a href="#">[我要纠错]</a></div>'
        f'<div class="txt">{paras}</div><div class="sub2">编辑：{rng.choice(NAMES)}　审核：{rng.choice(NAMES)}</div>'
        '<div class="more"><span>更多新闻</span>'
        + _links(others[:5], '<div><a href="/local/{n}.html">{t}</a></div>')
        + "</div></div></body></html>"
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def sohu_like(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    y, m, d, hh, mm = _when(rng)
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{escape(title)}_某狐</title></head><body>'
        '<div class="head"><a href="/">某狐首页</a></div><div class="text">'
        f'<div class="text-title"><h1>{escape(title)}</h1><div class="article-info">'
        f'<span class="time" id="news-time">{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}</span>'
        f'<span data-role="original-link">来源: <a href="#">{rng.choice(OUTLETS)}</a></span></div></div>'
        f'<article class="article" id="mp-editor"><p>原标题：{escape(title)}</p>{paras}'
        '<a href="/">返回某狐，查看更多</a>'
        f'<p data-role="editor-name">责任编辑：<span>{rng.choice(NAMES)}</span></p></article>'
        '<div class="statement">平台声明：该文观点仅代表作者本人，某狐号系信息发布平台，某狐仅提供信息存储空间服务。</div>'
        '<div class="bottom-relate"><h3>推荐阅读</h3>'
        + _links(others, '<a href="/a/{n}">{t}</a>')
        + "</div></div></body></html>"
    )
    return _page(html, "utf-8", "", [y, m, d, hh, mm], lines)


def dotted_gov(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    y, m, d, hh, mm = _when(rng)
    paras = _paragraphs(lines, '<p align="justify">', "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}</title></head><body>'
        '<div class="head">某某省教育厅</div><div class="position">首页 &gt;&gt; 教育要闻</div>'
        f'<div class="detail"><div class="detail-title">{escape(title)}</div>'
        f'<div class="detail-info"><span>信息来源：{rng.choice(OUTLETS)}</span><span>发布日期：{y}年{m:02d}月{d:02d}日</span>'
        "<span>字体：[<a>大</a><a>中</a><a>小</a>]</span><span>打印</span></div>"
        f'<div class="detail-content">{paras}</div>'
        '<div class="share">分享到：</div><div class="pn">上一条：<a href="/1.html">'
        + escape(others[0])
        + '</a> 下一条：<a href="/2.html">'
        + escape(others[1])
        + '</a></div></div><div class="foot">版权所有 某某省教育厅 技术支持：某某公司 联系电话：0571-88888888</div></body></html>'
    )
    return _page(html, "utf-8", "", [y, m, d], lines)


def byline_variants(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    out = rng.choice(OUTLETS)
    forms = [
        f"作者：本报记者 {author}",
        f"文/{author} 图/{rng.choice(NAMES)}",
        f"撰稿：{author}",
        f"作者：{author} | 来源：{out}",
        f"[作者:{author}]",
        f"{author}/文",
        f"文字：{author}",
        f"记者：{author}",
        f"作者： {author}",
        f"本报记者　{author}",
    ]
    k = rng.randrange(len(forms))
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}</title></head><body><div class="nav"><a href="/">首页</a></div>'
        f'<div class="art"><h1>{escape(title)}</h1><div class="info"><span>{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}</span> '
        f'<span>{forms[k]}</span> <span>来源：{out}</span></div><div class="body">{paras}</div></div></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def body_first_credit(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs([f"本报讯（记者 {author}）" + lines[0]] + lines[1:], "<p>", "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}</title></head><body><div class="nav"><a href="/">首页</a></div>'
        f'<div class="art"><h1>{escape(title)}</h1><div class="info">{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}　来源：某某日报</div>'
        f'<div class="body">{paras}</div></div></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], [f"本报讯（记者 {author}）" + lines[0]] + lines[1:])


def forum_style(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), _author = _when(rng), rng.choice(NAMES)
    paras = "<br />\n".join(escape(x) for x in lines)
    html = (
        f'<html><head><meta charset="gbk"><title>{escape(title)} - 新闻资讯 - 某某社区</title></head><body>'
        '<div id="hd"><a href="/">社区首页</a> <a href="/forum.php">论坛</a> <a href="/portal.php">门户</a></div>'
        f'<div class="bm vw"><div class="h hm"><h1 class="ph">{escape(title)}</h1>'
        f'<p class="xg1">{y}-{m}-{d} {hh:02d}:{mm:02d}<span class="pipe">|</span> 发布者: <a href="/space-uid-1.html">admin</a>'
        '<span class="pipe">|</span> 查看: 2345<span class="pipe">|</span> 评论: 3</p></div>'
        f'<div class="s"><div><strong>摘要</strong>: {escape(lines[0][:40])}</div></div>'
        f'<div class="d"><table cellpadding="0" cellspacing="0" class="vwtb"><tr><td id="article_content">{paras}</td></tr></table></div>'
        f'<div class="o cl ptm pbm"><a>收藏</a><a>分享</a><a>邀请</a></div>'
        f'<div class="pren pbm cl"><em>上一篇：<a href="/a1.html">{escape(others[0])}</a></em><em>下一篇：<a href="/a2.html">{escape(others[1])}</a></em></div>'
        f'<div class="bm"><h3>相关阅读</h3><ul>'
        + _links(others[2:6], '<li><a href="/a{n}.html">{t}</a></li>')
        + f'</ul></div><div id="comment"><h3>最新评论</h3><dl><dt>游客 {y}-{m}-{min(d + 1, 28)} 08:12</dt><dd>好文章</dd></dl></div></div></body></html>'
    )
    return _page(html, "gbk", "", [y, m, d, hh, mm], lines)


def logo_h1(title, lines, others, rng):
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}_国内新闻_某某网</title></head><body>'
        '<h1 class="logo"><a href="/"><img src="/logo.png" alt="某某网"></a></h1><div class="nav"><a>首页</a><a>国内</a></div>'
        f'<div class="article"><h2 class="art-title">{escape(title)}</h2>'
        f'<p class="art-info"><span>{y}/{m:02d}/{d:02d} {hh:02d}:{mm:02d}</span><span>作者：{author}</span></p>'
        f'<div class="art-con">{paras}</div></div><div class="side"><h2>排行</h2>'
        + _links(others, '<a href="/{n}">{t}</a>')
        + "</div></body></html>"
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def div_title(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    gap = "&nbsp;" * 4
    body = "<br>".join(f"{gap}{escape(x)}" for x in lines)
    html = (
        f'<html><head><meta charset="gbk"><title>{escape(title)}--某某市新闻网</title></head><body>'
        '<div class="top"><a>首页</a> | <a>本地</a></div><div class="wrap">'
        f'<div class="biaoti">{escape(title)}</div>'
        f'<div class="xinxi"><font color="#999999">日期：{y}-{m}-{d} {hh}:{mm:02d}&nbsp;&nbsp;来源：{rng.choice(OUTLETS)}&nbsp;&nbsp;作者：{author}</font></div>'
        f'<div class="zhengwen">{body}</div>'
        f'<div class="fenye">上一篇：<a>{escape(others[0])}</a><br>下一篇：<a>{escape(others[1])}</a></div></div></body></html>'
    )
    return _page(html, "gbk", author, [y, m, d, hh, mm], lines)


def paper_edition(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, _hh, _mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)} - 某某日报数字报</title></head><body>'
        '<div class="paper">第03版：要闻</div>'
        f'<div class="article"><h3 class="yinti">本报专访</h3><h1>{escape(title)}</h1><h2 class="futi">——记某某市的一年</h2>'
        f'<div class="byline">本报记者 {author}</div><div class="date">《某某日报》（{y}年{m:02d}月{d:02d}日 第03版）</div>'
        f'<div id="ozoom">{paras}</div></div></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d], lines)


MORE = {
    "phpcms": phpcms,
    "bracket_table": bracket_table,
    "meta_date": meta_date,
    "div_lines": div_lines,
    "sohu_like": sohu_like,
    "dotted_gov": dotted_gov,
    "byline_variants": byline_variants,
    "body_first_credit": body_first_credit,
    "forum_style": forum_style,
    "logo_h1": logo_h1,
    "div_title": div_title,
    "paper_edition": paper_edition,
}
ALL = {**TEMPLATES, **MORE}
