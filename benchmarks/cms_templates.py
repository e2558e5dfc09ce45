"""Nineteen more page templates for ``cross_site.py``, written after the thirty-two of
``site_templates.py``, ``more_site_templates.py`` and ``markup_templates.py`` and run once
before any change they led to (in three rounds). The first eight: the default article pages of CMS products that many small
Chinese news sites still run, and pages that state more than one date or name. A DedeCMS
page (GB2312; ``时间:``/``来源:``/``作者:`` in ``<small>`` labels with no spaces, 佚名 or admin
for an unnamed writer, the summary box repeating the lead, previous/next and fav/print
links), an EmpireCMS page (one ``|``-separated byline with a click counter and font-size
links, a page bar), a WordPress theme in Chinese (``<time datetime>`` showing the date only,
"作者 <a>name</a>", share and like boxes, comments with their own ``<time>``), an ASP site of
2005 (GBK, the headline in ``<font>``, ``&nbsp;``-indented ``<br>`` lines, a date-only
``更新时间:2019-3-1``), a portal whose byline puts ``2019/3/1 10:08:00`` and the editor before
the writer, a site whose sidebar of latest comments with their times comes before the
article in the source, a GBK XHTML page whose charset is named only in its ``<?xml`` prolog,
and a government disclosure page whose table gives 成文日期 before 发布日期.

They found (100 stories): DedeCMS bodies 35% >= 0.95 similar, as its summary box (the lead's
first words, cut off) and its ``------分隔线------`` line stayed in the body; the disclosure
page's time 83% right, as its labelled 发布日期 stood above the headline, out of the byline's
reach, and a date the story tells of was taken instead. Both fixed; the other six were
right from the start. (The summary box then held the first paragraph's first 70 characters;
it now holds the body's first 120, across paragraphs, as DedeCMS fills its description.) The second four, written after those fixes, were right from
the start too: a word processor's paste (every paragraph cut into ``<span><font>`` runs,
``<o:p>``), a WeChat-like article with 文 | X and 编辑 | Y lines heading its content, bylines
dated with a weekday, 时/分 or 上午/下午, and a bracketed （来源：… 作者：…） under the story. At
200 stories the word processor's paste missed twice: span runs that each held a date and
100 characters were taken for a page of posts (the body cut to one run), and a byline was
missed where a run cut the story's first 20 characters (the page's text puts a space
between inline elements, so the body's first words were not found there). Both fixed.

The third seven: a byline whose labels and values stand in table cells of their own (作者 |
孙悦 | 发布时间 | …), GBK bytes under a UTF-8 declaration, a byline with a writer's role and
a 评论(12) link, a mobile page whose story's rest is folded in a hidden element behind
展开全文, a story with an ordered list of points, a date in full-width digits
(２０１９年３月１日 １０：２３) and a print page (``<center>``, ``<hr>`` rules, ``<br>`` lines).
They found (100 stories): the full-width date never read (time 0%); the print page's time
cut to the day on 7% (``<hr>`` did not end a line, so "10:23" ran into the story's first
digits); the label in a cell of its own not read (97%: a credit inside the story won); a
story opening with a weibo post's emoji codes ("[作揖][作揖]@…") under a "08:19" time read as
"[ 黄宇 ]", an old sohu byline's bracketed writer. All fixed. They also showed stories
keeping credits of their own (（文/X）, （X/文 Y/摄影）) on pages that name another writer:
``_uncredited`` now takes those out too, as it took （记者 X）. Left: the folded page's
hidden part (``display:none``) is dropped by readability-lxml 0.9 (0.8.1 keeps it); where
the shown part is under 200 characters, the hidden part alone is read instead (92% of
bodies >= 0.95 similar at 200 stories).

Each returns ``(bytes, truth)`` as the templates of ``site_templates.py`` do.
"""

from __future__ import annotations

import random
from html import escape

from markup_templates import ALL as EARLIER
from markup_templates import _uncredited
from site_templates import NAMES, OUTLETS, _links, _page, _paragraphs, _when


def dedecms(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm) = _when(rng)
    author = rng.choice(NAMES + ["", ""])
    shown = author or rng.choice(["佚名", "admin"])
    summary = "".join(lines)[:120]  # DedeCMS fills the description from the body's first characters
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        '<html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312" />'
        f'<title>{escape(title)}_新闻中心_某某网</title><meta name="keywords" content="新闻,动态" />'
        f'<meta name="description" content="{escape(summary)}" /></head><body>'
        '<div class="header"><a href="/">主页</a> <a href="/news/">新闻中心</a> <a href="/about/">关于我们</a></div>'
        '<div class="w960 center clear mt1"><div class="pleft"><div class="place"><strong>当前位置:</strong> '
        "<a href='/'>主页</a> > <a href='/news/'>新闻中心</a> > </div><div class=\"viewbox\">"
        f'<div class="title"><h2>{escape(title)}</h2></div>'
        f'<div class="info"><small>时间:</small>{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}<small>来源:</small>'
        f"{rng.choice(OUTLETS + ['未知'])} <small>作者:</small>{shown} <small>点击:</small>"
        '<script src="/plus/count.php?view=yes&aid=1234&mid=1" type="text/javascript"></script>次</div>'
        f'<div class="intro">{escape(summary)}</div>'
        '<div class="content"><table width="100%"><tr><td><div id="contentMidPicAD" style="float:right;"></div>'
        f'{paras}</td></tr></table></div><div class="boxoff"><strong>------分隔线----------------------------</strong></div>'
        f'<div class="handle"><div class="context"><ul><li>上一篇：<a href=\'/news/122.html\'>{escape(others[0])}</a> </li>'
        f"<li>下一篇：<a href='/news/124.html'>{escape(others[1])}</a> </li></ul></div>"
        '<div class="actbox"><ul><li><a href="/plus/stow.php?aid=1234">收藏</a></li><li><a href="/plus/erraddsave.php?aid=1234">挑错</a></li>'
        '<li><a href="/plus/recommend.php?aid=1234">推荐</a></li><li><a href="#" onclick="window.print();">打印</a></li></ul></div></div>'
        '</div></div><div class="pright"><div class="commend"><dl class="tbox"><dt><strong>推荐内容</strong></dt><dd><ul class="d4">'
        + _links(others[2:], "<li><a href='/news/{n}.html'>{t}</a><p>{t}</p></li>")
        + '</ul></dd></dl></div></div></div><div class="footer">Copyright &copy; 2002-2019 DEDECMS. 织梦科技 版权所有</div></body></html>'
    )
    return _page(html, "gbk", author, [y, m, d, hh, mm], lines)


def empire_cms(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>'
        + escape(title)
        + " - 某某新闻网</title></head><body>"
        '<div class="nav"><a href="/">网站首页</a><a href="/news/">新闻资讯</a><a href="/e/member/login/">会员登录</a></div>'
        '<div class="position">您当前的位置：<a href="/">首页</a>&nbsp;>&nbsp;<a href="/news/">新闻资讯</a></div>'
        f'<div class="title_info"><h1>{escape(title)}</h1><p class="info">发布时间：{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}:{rng.randint(0, 59):02d}'
        f' | 作者：{author} | 来源：{rng.choice(OUTLETS)} | 点击数：<script src="/e/public/ViewClick/?classid=2&id=20&addclick=1"></script>次'
        ' | 【<a href="javascript:doZoom(16)">大</a> <a href="javascript:doZoom(14)">中</a> <a href="javascript:doZoom(12)">小</a>】</p></div>'
        f'<div id="text" class="text">{paras}</div><div class="page">分页：[<b>1</b>]</div>'
        '<div class="share">分享到：<a>新浪微博</a> <a>QQ空间</a> <a>微信</a></div>'
        f'<div class="prenext"><p>上一篇：<a href="/news/19.html">{escape(others[0])}</a></p><p>下一篇：<a href="/news/21.html">{escape(others[1])}</a></p></div>'
        '<div class="related"><h3>相关文章</h3><ul>'
        + _links(others[2:], '<li><span>02-2{n}</span><a href="/news/1{n}.html">{t}</a></li>')
        + '</ul></div><div class="footer">Powered by EmpireCMS 7.5 &copy; 2002-2019 EmpireSoft Inc.</div></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def wordpress_cn(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>", "</p>")
    later = min(d + 2, 28)
    comments = "".join(
        f'<li class="comment"><article class="comment-body"><footer class="comment-meta"><b class="fn">读者{i}</b>'
        f'<time datetime="{y}-{m:02d}-{later:02d}T0{i}:1{i}:00+08:00">{y}年{m}月{later}日 上午{i}:1{i}</time></footer>'
        f'<div class="comment-content"><p>谢谢分享。</p></div></article></li>'
        for i in range(1, 4)
    )
    html = (
        f'<!DOCTYPE html><html lang="zh-CN"><head><meta charset="UTF-8"><title>{escape(title)} &#8211; 某某观察</title></head>'
        '<body class="post-template-default single single-post"><header class="site-header"><p class="site-title"><a href="/">某某观察</a></p>'
        '<nav><a href="/category/news/">新闻</a><a href="/about/">关于</a></nav></header><main id="main"><article class="post type-post">'
        f'<header class="entry-header"><h1 class="entry-title">{escape(title)}</h1><div class="entry-meta"><span class="posted-on">发布于 '
        f'<a href="/{y}/{m:02d}/{d:02d}/p/" rel="bookmark"><time class="entry-date published" datetime="{y}-{m:02d}-{d:02d}T{hh:02d}:{mm:02d}:00+08:00">'
        f'{y}年{m}月{d}日</time><time class="updated" datetime="{y}-{m:02d}-{later:02d}T09:00:00+08:00">{y}年{m}月{later}日</time></a></span>'
        f'<span class="byline"> 作者 <span class="author vcard"><a class="url fn n" href="/author/u1/">{author}</a></span></span></div></header>'
        f'<div class="entry-content">{paras}<div class="sharedaddy"><h3>分享此文：</h3><ul><li>微博</li><li>微信</li></ul></div>'
        '<div class="jp-likes"><h3>赞过：</h3><span>赞 正在加载……</span></div></div>'
        '<footer class="entry-footer"><span class="cat-links">分类：<a href="/category/news/">新闻</a></span></footer></article>'
        f'<nav class="post-navigation"><div class="nav-previous"><a href="/p1/">上一篇 {escape(others[0])}</a></div>'
        f'<div class="nav-next"><a href="/p2/">下一篇 {escape(others[1])}</a></div></nav>'
        f'<div id="comments"><h2 class="comments-title">《{escape(title)}》上有3条评论</h2><ol class="comment-list">{comments}</ol></div>'
        '</main><aside class="widget-area"><h2>近期文章</h2><ul>'
        + _links(others[2:], '<li><a href="/r{n}/">{t}</a></li>')
        + '</ul></aside><footer class="site-footer">自豪地采用WordPress</footer></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def asp_2005(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, _, _), author = _when(rng), rng.choice(NAMES)
    gap = "&nbsp;" * 4
    body = "<br>".join(f"{gap}{escape(x)}" for x in lines)
    html = (
        '<html><head><meta http-equiv=Content-Type content="text/html; charset=gb2312">'
        f"<title>{escape(title)}</title><link href=/style.css rel=stylesheet></head><body topmargin=0 leftmargin=0>"
        "<table width=778 align=center cellpadding=0 cellspacing=0><tr><td><img src=/images/top.jpg width=778 height=120></td></tr></table>"
        "<table width=778 align=center><tr><td width=180 valign=top bgcolor=#f0f0f0><b>栏目导航</b><br><a href=/news/>新闻动态</a><br>"
        "<a href=/notice/>通知公告</a><br><a href=/down/>下载中心</a></td><td valign=top><table width=100%>"
        f"<tr><td align=center height=40><font color=#ff0000 size=4><b>{escape(title)}</b></font></td></tr>"
        f"<tr><td align=center>作者：{author}{gap}文章来源：{rng.choice(OUTLETS)}{gap}点击数：<font color=red>356</font>{gap}"
        f'更新时间：{y}-{m}-{d}</td></tr><tr><td class=content style="font-size:14px;line-height:180%">{body}</td></tr>'
        "<tr><td align=right>【<a href=#>发表评论</a>】【<a href=#>加入收藏</a>】【<a href=#>告诉好友</a>】"
        '【<a href="javascript:window.print()">打印此文</a>】【<a href="javascript:window.close()">关闭窗口</a>】</td></tr>'
        f"<tr><td>上一篇文章： <a href=/news/11.asp>{escape(others[0])}</a><br>下一篇文章： <a href=/news/13.asp>{escape(others[1])}</a></td></tr>"
        "</table><table width=100%><tr><td><b>相关文章</b><br>"
        + _links(others[2:], f"<a href=/news/2{{n}}.asp>{{t}}</a>（{y}-{max(m - 1, 1)}-2{{n}}）<br>")
        + "</td></tr></table></td></tr></table><table width=778 align=center><tr><td align=center>版权所有 某某县教育局 "
        "技术支持：某某网络</td></tr></table></body></html>"
    )
    return _page(html, "gbk", author, [y, m, d], lines)


def editor_first(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    editor = rng.choice([n for n in NAMES if n != author])
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}-某某新闻网</title></head><body>'
        '<div class="nav"><a>首页</a><a>要闻</a><a>社会</a></div><div class="article-wrap">'
        f'<h1>{escape(title)}</h1><div class="article-info"><span>{y}/{m}/{d} {hh}:{mm:02d}:{rng.randint(0, 59):02d}</span>'
        f"<span>编辑：{editor}</span><span>作者：{author}</span><span>来源：{rng.choice(OUTLETS)}</span></div>"
        f'<div class="article-content">{paras}</div><div class="article-tags">标签：<a>民生</a></div>'
        '<div class="hot"><h3>热门新闻</h3><ul>'
        + _links(others, '<li><a href="/n{n}.html">{t}</a></li>')
        + "</ul></div></div></body></html>"
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def comments_first(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>\u3000\u3000", "</p>")
    side = "".join(
        f'<li><a href="/c{i}.html">网友{i}：{escape(t[:12])}</a><span>{y}-{m:02d}-{min(d + 1, 28):02d} {i + 8:02d}:2{i}</span></li>'
        for i, t in enumerate(others[:4])
    )
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}_某某在线</title></head><body>'
        f'<div class="left"><h3>最新评论</h3><ul>{side}</ul><h3>最新文章</h3><ul>'
        + _links(others[4:], f'<li><a href="/a{{n}}.html">{{t}}</a><span>{y}-{m:02d}-{min(d + 1, 28):02d}</span></li>')
        + f'</ul></div><div class="right"><h1>{escape(title)}</h1>'
        f'<p class="source">{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}\u3000来源：{rng.choice(OUTLETS)}\u3000记者\u3000{author}</p>'
        f'<div class="text">{paras}</div></div></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def xml_prolog_gbk(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        '<?xml version="1.0" encoding="gbk"?>\n<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
        '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n<html xmlns="http://www.w3.org/1999/xhtml"><head>'
        f'<title>{escape(title)}</title></head><body><div id="top"><a href="/">首页</a> | <a href="/xw/">新闻</a></div>'
        f'<div id="main"><h1>{escape(title)}</h1><div class="byline">{y}年{m}月{d}日 {hh:02d}:{mm:02d}&#160;&#160;作者：{author}'
        f'&#160;&#160;来源：{rng.choice(OUTLETS)}</div><div class="body">{paras}</div>'
        f'<div class="pn">上一篇：<a href="/xw/1.html">{escape(others[0])}</a><br />下一篇：<a href="/xw/2.html">{escape(others[1])}</a></div>'
        '</div><div id="foot">版权所有</div></body></html>'
    )
    return _page(html, "gbk", author, [y, m, d, hh, mm], lines)


def gov_disclosure(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    y, m, d, _, _ = _when(rng)
    written = max(d - 3, 1)
    paras = _paragraphs(lines, '<p style="text-indent:2em">', "</p>")
    html = (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{escape(title)}_政府信息公开_某某市人民政府</title>'
        f'<meta name="ArticleTitle" content="{escape(title)}"><meta name="ContentSource" content="市政府办公室"></head><body>'
        '<div class="head"><a>首页</a><a>政府信息公开</a><a>政务服务</a></div><table class="xxgk_table"><tbody>'
        f"<tr><th>索引号：</th><td>11330100002{rng.randint(100000, 999999)}/{y}-{rng.randint(10000, 99999)}</td><th>主题分类：</th><td>综合政务</td></tr>"
        f"<tr><th>发布机构：</th><td>市政府办公室</td><th>成文日期：</th><td>{y}-{m:02d}-{written:02d}</td></tr>"
        f"<tr><th>文号：</th><td>某政办发〔{y}〕{rng.randint(1, 60)}号</td><th>发布日期：</th><td>{y}-{m:02d}-{d:02d}</td></tr>"
        f'<tr><th>名称：</th><td colspan="3">{escape(title)}</td></tr></tbody></table>'
        f'<div class="article"><h1>{escape(title)}</h1><div class="zw">{paras}</div>'
        '<div class="fj">附件：<a href="/f/1.doc">1.相关表格.doc</a></div>'
        '<div class="tools"><a>【打印本页】</a><a>【关闭窗口】</a></div></div>'
        '<div class="footer">主办单位：某某市人民政府办公室 网站标识码：3301000002</div></body></html>'
    )
    return _page(html, "utf-8", "", [y, m, d], lines)


def word_pasted(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = []
    for line in lines:  # each paragraph cut into runs of a word processor's spans
        cuts = sorted(rng.sample(range(1, len(line)), min(3, len(line) - 1))) if len(line) > 4 else []
        runs = [line[a:b] for a, b in zip([0, *cuts], [*cuts, len(line)])]
        spans = "".join(
            f'<span style="font-family:仿宋_GB2312;font-size:16pt"><font face="仿宋">{escape(r)}</font></span>'
            for r in runs
        )
        paras.append(f'<p class="MsoNormal" style="text-indent:32pt;line-height:28pt">{spans}<o:p></o:p></p>')
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}-某某区人民政府</title></head><body>'
        '<div class="crumb">首页 > 工作动态</div><div class="detail">'
        f'<div class="detail-title">{escape(title)}</div><div class="detail-info">发布时间：{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}'
        f"&nbsp;&nbsp;作者：{author}&nbsp;&nbsp;来源：区融媒体中心&nbsp;&nbsp;【字体：<a>大</a> <a>中</a> <a>小</a>】</div>"
        f'<div class="detail-con"><div class="WordSection1">{"".join(paras)}<p class="MsoNormal"><o:p>&nbsp;</o:p></p></div></div>'
        '<div class="detail-tools"><a>打印</a><a>关闭</a></div></div></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def pipe_credit(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    editor = rng.choice([n for n in NAMES if n != author])
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}</title></head><body><div class="rich_media">'
        f'<h1 class="rich_media_title">{escape(title)}</h1><div class="rich_media_meta_list"><span class="account">某某观察</span>'
        f'<em id="publish_time">{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}</em></div><div class="rich_media_content">'
        f"<section><p>文 | {author}</p><p>编辑 | {editor}</p></section><section>{paras}</section>"
        "<section><p>— THE END —</p><p>点击“阅读原文”了解更多</p></section></div></div></body></html>"
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def weekday_date(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    week = "星期" + "一二三四五六日"[rng.randrange(7)]
    noon = "下午" if hh >= 12 else "上午"
    shown = rng.choice(
        [
            f"{y}年{m:02d}月{d:02d}日 {week} {hh:02d}:{mm:02d}",
            f"{y}年{m}月{d}日 {hh:02d}时{mm:02d}分",
            f"{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d} {week}",
            f"{y}年{m}月{d}日 {noon}{hh % 12 or 12}:{mm:02d}",
        ]
    )
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<html><head><meta charset="gbk"><title>{escape(title)}_某某新闻网</title></head><body>'
        f'<div class="nav"><a>首页</a><a>本地</a><span class="today">今天是{y}年{m}月{min(d + 2, 28)}日</span></div>'
        f'<h1>{escape(title)}</h1><div class="info">{shown}　　来源：{rng.choice(OUTLETS)}　　作者：{author}</div>'
        f'<div class="content">{paras}</div><div class="prev">上一篇：<a>{escape(others[0])}</a></div></body></html>'
    )
    return _page(html, "gbk", author, [y, m, d, hh, mm], lines)


def bracketed_credit_end(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>　　", "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}--理论频道</title></head><body>'
        f'<div class="art"><h1>{escape(title)}</h1><div class="time">{y}年{m:02d}月{d:02d}日{hh:02d}:{mm:02d}</div>'
        f'<div class="art-body">{paras}<p>　　（来源：{rng.choice(OUTLETS)}　作者：{author}）</p></div>'
        '<div class="share">分享到：<a>微信</a><a>微博</a></div></div><div class="rel"><h3>相关新闻</h3>'
        + _links(others, '<a href="/{n}.html">{t}</a>')
        + "</div></body></html>"
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def table_byline_cells(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}</title></head><body><div class="wrap">'
        f'<h2 class="tit">{escape(title)}</h2><table class="attr"><tr><td class="k">作者</td><td class="v">{author}</td>'
        f'<td class="k">来源</td><td class="v">{rng.choice(OUTLETS)}</td><td class="k">发布时间</td>'
        f'<td class="v">{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}</td><td class="k">浏览</td><td class="v">{rng.randint(100, 9999)}</td></tr></table>'
        f'<div class="con">{paras}</div><div class="pn"><p>上一篇：<a>{escape(others[0])}</a></p><p>下一篇：<a>{escape(others[1])}</a></p></div>'
        "</div></body></html>"
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def misdeclared_charset(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"><title>{escape(title)}</title></head><body>'
        f'<div class="nav"><a>首页</a> <a>新闻</a></div><h1>{escape(title)}</h1>'
        f'<div class="info">发布时间：{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}　作者：{author}　来源：{rng.choice(OUTLETS)}</div>'
        f'<div class="content">{paras}</div><div class="foot">版权所有 某某网</div></body></html>'
    )
    return _page(html, "gbk", author, [y, m, d, hh, mm], lines)  # GBK bytes under a UTF-8 declaration


def counted_byline(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    role = rng.choice(["（特约撰稿人）", "（某某大学教授）", "", ""])
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}_评论频道</title></head><body>'
        f'<h1>{escape(title)}</h1><div class="meta">{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}&nbsp;&nbsp;来源：{rng.choice(OUTLETS)}'
        f'&nbsp;&nbsp;作者：{author}{role}&nbsp;&nbsp;<a href="#cmt">评论({rng.randint(0, 99)})</a>&nbsp;&nbsp;<a>分享</a></div>'
        f'<div class="text">{paras}</div><div id="cmt"><h3>网友评论</h3><p>暂无评论</p></div></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def folded_body(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    half = max(1, len(lines) // 3)
    shown, folded = _paragraphs(lines[:half], "<p>", "</p>"), _paragraphs(lines[half:], "<p>", "</p>")
    html = (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">'
        f"<title>{escape(title)}</title></head><body><header>某某新闻 <a>打开APP</a></header><article>"
        f'<h1>{escape(title)}</h1><p class="art-meta"><span>{author}</span> <span>{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}</span></p>'
        f'<div class="art-body"><div class="show">{shown}</div><div class="fold" style="display:none">{folded}</div></div>'
        '<div class="unfold"><a>展开全文</a></div></article><section class="rec"><h3>相关推荐</h3>'
        + _links(others, '<a href="/m/{n}"><p>{t}</p><span>评论 {n}</span></a>')
        + "</section></body></html>"
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def list_points(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    head, points, rest = lines[:1], lines[1:4], lines[4:]
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}-某某网</title></head><body><h1>{escape(title)}</h1>'
        f'<div class="info">{y}年{m:02d}月{d:02d}日 {hh:02d}:{mm:02d} 来源：{rng.choice(OUTLETS)} 作者：{author}</div>'
        f'<div class="article">{_paragraphs(head, "<p>", "</p>")}<ol>{_paragraphs(points, "<li>", "</li>")}</ol>'
        f'{_paragraphs(rest, "<p>", "</p>")}</div><div class="tags">标签：<a>要闻</a></div></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def fullwidth_date(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    wide = str.maketrans("0123456789:", "０１２３４５６７８９：")
    shown = f"{y}年{m}月{d}日 {hh:02d}:{mm:02d}".translate(wide)
    paras = _paragraphs(lines, "<p>\u3000\u3000", "</p>")
    html = (
        f'<html><head><meta charset="gb2312"><title>{escape(title)}</title></head><body><table width="760"><tr><td>'
        f'<p align="center"><b>{escape(title)}</b></p><p align="center">作者：{author}\u3000\u3000发布时间：{shown}</p>'
        f'{paras}<p align="right">【<a>打印</a>】【<a>关闭</a>】</p></td></tr></table></body></html>'
    )
    return _page(html, "gb2312", author, [y, m, d, hh, mm], lines)


def print_version(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    body = "<br><br>".join(escape(x) for x in lines)
    html = (
        f'<html><head><meta charset="gbk"><title>{escape(title)} - 打印本页</title></head><body>'
        f"<center><h3>{escape(title)}</h3></center><hr>作者：{author}&nbsp;&nbsp;日期：{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}<hr>"
        f'{body}<hr><center><a href="javascript:window.print()">打印</a>&nbsp;<a href="javascript:window.close()">关闭</a></center></body></html>'
    )
    return _page(html, "gbk", author, [y, m, d, hh, mm], lines)


CMS = {
    "dedecms": dedecms,
    "empire_cms": empire_cms,
    "wordpress_cn": wordpress_cn,
    "asp_2005": asp_2005,
    "editor_first": editor_first,
    "comments_first": comments_first,
    "xml_prolog_gbk": xml_prolog_gbk,
    "gov_disclosure": gov_disclosure,
    "word_pasted": word_pasted,
    "pipe_credit": pipe_credit,
    "weekday_date": weekday_date,
    "bracketed_credit_end": bracketed_credit_end,
    "table_byline_cells": table_byline_cells,
    "misdeclared_charset": misdeclared_charset,
    "counted_byline": counted_byline,
    "folded_body": folded_body,
    "list_points": list_points,
    "fullwidth_date": fullwidth_date,
    "print_version": print_version,
}
ALL = {**EARLIER, **CMS}
