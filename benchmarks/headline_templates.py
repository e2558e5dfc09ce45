"""Six more page templates for ``cross_site.py``, written after the fifty-one of
``cms_templates.py`` and the files it builds on, and run once before any change they led
to: pages that make the headline or the writer harder to find. A government page with no
``<h1>`` (the headline in a ``<div>``, a breadcrumb ending in its first words cut off, the
``<title>`` with two suffixes), a page whose ``<title>`` puts the site first
(``某某网_headline``) over an ``<h2>`` headline, a ``<title>`` cutting the headline short
("…"), a byline whose source and writer are links, a story with pictures and captions
crediting a photographer (（李四 摄）), and a sidebar of other stories' bylines (作者, date)
standing before the article in the source.

Each returns ``(bytes, truth)`` as the templates of ``site_templates.py`` do; ``cross_site.py``
now checks the headline too (right on all fifty-one earlier sites at 100 stories).

They found (100 stories): the page without ``<h1>`` kept its related block in the body on 5%
(its label and headlines, ``<b>相关文章</b><a>…</a><a>…</a>``, ran into one line too long to
be taken for a label): such a line ends the body now. The other five were right from the
start, headlines included.
"""

from __future__ import annotations

import random
from html import escape

from cms_templates import ALL as EARLIER
from markup_templates import _uncredited
from site_templates import NAMES, OUTLETS, _links, _page, _paragraphs, _when


def no_h1_breadcrumb(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    y, m, d, _, _ = _when(rng)
    paras = _paragraphs(lines, '<p style="text-indent:2em">', "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}-工作动态-某某市人民政府网站</title></head><body>'
        f'<div class="crumb">当前位置：<a>首页</a> &gt; <a>工作动态</a> &gt; {escape(title[:10])}...</div>'
        f'<div class="detail"><div class="tit">{escape(title)}</div><div class="info">发布日期：{y}-{m:02d}-{d:02d}　信息来源：市政府办公室'
        f'　浏览次数：{rng.randint(10, 999)}</div><div class="con">{paras}</div></div>'
        '<div class="rel"><b>相关文章</b>' + _links(others[:3], '<a href="/{n}.html">{t}</a>') + "</div></body></html>"
    )
    return _page(html, "utf-8", "", [y, m, d], lines)


def site_first_title(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<html><head><meta charset="gbk"><title>某某在线_{escape(title)}</title></head><body><div class="top">某某在线</div>'
        f'<div class="main"><h2>{escape(title)}</h2><p class="by">{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}　作者：{author}</p>'
        f'<div class="txt">{paras}</div></div><div class="side"><h3>推荐</h3>'
        + _links(others, '<a href="/{n}.html">{t}</a>')
        + "</div></body></html>"
    )
    return _page(html, "gbk", author, [y, m, d, hh, mm], lines)


def truncated_title_tag(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title[:10])}..._某某网</title></head><body>'
        f'<h1 class="art-title">{escape(title)}</h1><div class="art-info">{y}年{m}月{d}日 {hh:02d}:{mm:02d} 作者：{author}</div>'
        f'<div class="art-content">{paras}</div></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def linked_author(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}_某某网</title></head><body><h1>{escape(title)}</h1>'
        f'<div class="meta">来源：<a href="http://www.xinhuanet.com/">{rng.choice(OUTLETS)}</a>　作者：<a href="/author/12.html">{author}</a>'
        f'　{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}</div><div class="article">{paras}</div></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def photo_captions(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    photographer = rng.choice([n for n in NAMES if n != author])
    parts = []
    for i, line in enumerate(lines):
        parts.append(f"<p>{escape(line)}</p>")
        if i % 3 == 0:
            parts.append(
                f'<p class="pic"><img src="/img/{i}.jpg" alt=""></p><p class="pic-info">图为活动现场。（{photographer} 摄）</p>'
            )
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}-某某日报</title></head><body><h1>{escape(title)}</h1>'
        f'<div class="byline">{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}　来源：{rng.choice(OUTLETS)}　记者 {author}</div>'
        f'<div class="content">{"".join(parts)}</div></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


def sidebar_bylines_first(title: str, lines: list[str], others: list[str], rng: random.Random) -> tuple[bytes, dict]:
    lines = _uncredited(lines)
    (y, m, d, hh, mm), author = _when(rng), rng.choice(NAMES)
    side = "".join(
        f'<li><a href="/s{i}.html">{escape(t)}</a><p>作者：{rng.choice(NAMES)}　{y}-{m:02d}-{max(d - 1, 1):02d} 0{i}:30</p></li>'
        for i, t in enumerate(others[:4])
    )
    paras = _paragraphs(lines, "<p>", "</p>")
    html = (
        f'<html><head><meta charset="utf-8"><title>{escape(title)}</title></head><body><div class="side"><h3>最新文章</h3><ul>{side}</ul></div>'
        f'<div class="main"><h1>{escape(title)}</h1><div class="info">发布时间：{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}　作者：{author}</div>'
        f'<div class="text">{paras}</div></div></body></html>'
    )
    return _page(html, "utf-8", author, [y, m, d, hh, mm], lines)


HEADLINE = {
    "no_h1_breadcrumb": no_h1_breadcrumb,
    "site_first_title": site_first_title,
    "truncated_title_tag": truncated_title_tag,
    "linked_author": linked_author,
    "photo_captions": photo_captions,
    "sidebar_bylines_first": sidebar_bylines_first,
}
ALL = {**EARLIER, **HEADLINE}
