"""Which page the mirror serves at which real URL, and on which day it appears."""

from __future__ import annotations

import hashlib
import html
import random
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from news_crawler.extraction import extract_article
from news_crawler.extraction.decode import decode_html
from news_crawler.spiders.sites import Site, load_sites
from news_mirror.data import SHIPPED_DATA, Data

BEIJING = timezone(timedelta(hours=8))

# Saved pages by portal: (data set, page id or manifest site).
BUILTIN_SITES = load_sites()  # the portals the mirror serves, as the product declares them
GNE_SITES = ["163", "sina", "thepaper", "ifeng", "qq", "people", "xinhuanet", "huanqiu"]
# GBK pages with human labels: sohu and sina pages of 2004-2005.
CWCED_PAGES = {"sohu": ["33a95b71", "7c6d2080", "8baa71e3", "ebe9df29", "93498c29"], "sina": ["0d931936", "8cb7b39d"]}
# Served without any declared charset (header or meta), to prove detection.
UNDECLARED_CHARSET = {"7c6d2080"}


def _n(key: str, digits: int) -> int:
    return int(hashlib.sha1(key.encode()).hexdigest(), 16) % 10**digits


def _code(key: str, n: int, alphabet: str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") -> str:
    h = int(hashlib.sha1(key.encode()).hexdigest(), 16)
    return "".join(alphabet[(h >> (6 * i)) % len(alphabet)] for i in range(n))


# A real-looking article URL per portal, for pages whose manifest has no URL.
URL_MAKERS = {
    "sina": lambda k: (
        f"https://news.sina.com.cn/c/2019-11-{_n(k, 1) + 10}/doc-ii"
        f"{_code(k, 13, 'abcdefghijklmnopqrstuvwxyz0123456789')}.shtml"
    ),
    "163": lambda k: f"https://www.163.com/news/article/{_code(k, 16)}.html",
    "sohu": lambda k: f"https://business.sohu.com/2005031{_n(k, 1)}/n{_n(k, 9)}.shtml",
    "qq": lambda k: f"https://new.qq.com/rain/a/2020{_n(k, 4):04d}A0{_code(k, 4)}00",
    "ifeng": lambda k: (
        f"https://news.ifeng.com/c/7{_code(k, 10, 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789')}"
    ),
    "people": lambda k: f"http://society.people.com.cn/n1/2020/0{_n(k, 1) + 1}1{_n(k, 1)}/c1008-{_n(k, 8)}.html",
    "xinhuanet": lambda k: f"http://www.xinhuanet.com/politics/2019-12/1{_n(k, 1)}/c_112{_n(k, 7):07d}.htm",
    "chinanews": lambda k: f"https://www.chinanews.com.cn/gn/2020/11-2{_n(k, 1)}/{_n(k, 7)}.shtml",
    "thepaper": lambda k: f"https://www.thepaper.cn/newsDetail_forward_{_n(k, 7) + 1000000}",
    "huanqiu": lambda k: (
        "https://world.huanqiu.com/article/4"
        f"{_code(k, 10, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789')}"
    ),
}

REPRINT_HEADLINES = ["独家：{}", "{}（附全文）", "刚刚！{}", "重磅｜{}"]
REPRINT_BOILERPLATE = [
    "关注我们的微信公众号，获取更多新闻资讯。",
    "版权所有，未经授权不得转载。",
    "下载客户端，随时随地看新闻",
]


@dataclass
class Page:
    url: str
    site: str
    day: int
    title: str
    story: str  # pages of one story (an original and its reprints) share this
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    reprint_of: str = ""
    encoding: str = "utf-8"


@dataclass
class Catalog:
    pages: dict[str, Page] = field(default_factory=dict)  # by URL

    def add(self, page: Page) -> None:
        self.pages[page.url] = page

    def visible(self, site: str, day: int) -> list[Page]:
        return [p for p in self.pages.values() if p.site == site and p.day <= day]

    def by_story(self) -> dict[str, list[Page]]:
        out: dict[str, list[Page]] = {}
        for p in self.pages.values():
            out.setdefault(p.story, []).append(p)
        return out


def _spider(site: str) -> Site:
    return BUILTIN_SITES[site]


def _matches(site: str, url: str) -> bool:
    return any(re.search(p, url) for p in _spider(site).allow)


def _strip_charset(raw: bytes) -> bytes:
    return re.sub(rb"<meta[^>]+charset[^>]*>", b"", raw, flags=re.I)


def _reprint_time(published: str, url: str) -> str:
    """When a reprint shows it was published: two to nine hours after its original (in +08:00,
    as a page without a zone is read); "" when the original names no time of day."""
    try:
        when = datetime.fromisoformat(published) if published else None
    except ValueError:
        when = None
    if when is None or len(published) == 10:
        return ""
    when = when if when.tzinfo else when.replace(tzinfo=BEIJING)
    hours = random.Random(url).randint(2, 9)
    return (when.astimezone(BEIJING) + timedelta(hours=hours)).strftime("%Y-%m-%d %H:%M")


def _reprint_html(title: str, body: str, site: str, source: str, rng: random.Random, shown: str) -> str:
    lines = [line for line in body.splitlines() if line.strip()]
    for _ in range(3):  # a few characters edited
        i = rng.randrange(len(lines))
        line = lines[i]
        cjk = [j for j, ch in enumerate(line) if "\u4e00" <= ch <= "\u9fff"]
        if cjk:
            j = rng.choice(cjk)
            lines[i] = line[:j] + rng.choice("的了和是在有") + line[j + 1 :]
    paragraphs = [
        f"来源：{source}",
        f"原标题：{title}",
        *lines,
        f"责任编辑：{rng.choice(['张明', '李静', '王磊'])}",
        rng.choice(REPRINT_BOILERPLATE),
    ]
    headline = rng.choice(REPRINT_HEADLINES).format(title)
    fallback = f"2020-11-2{rng.randrange(10)} 10:3{rng.randrange(10)}"  # drawn always: the sample stays the same
    ps = "\n".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{html.escape(headline)}_{site}</title></head>'
        f'<body><div class="nav"><a href="/">首页</a> <a href="/news/">新闻</a></div>'
        f'<h1>{html.escape(headline)}</h1><div class="info">{shown or fallback} '
        f'来源：{source}</div><div class="article">{ps}</div>'
        f'<div class="footer">关于我们 | 联系我们 | 版权声明</div></body></html>'
    )


def build_catalog(data: Data = SHIPPED_DATA, reprints: int = 8, seed: int = 7) -> Catalog:
    """Every portal's saved pages under real-looking URLs, plus ``reprints`` edited copies
    of stories on other portals. Two thirds of each portal's pages appear on day 1, the
    rest (and half the reprints) on day 2."""
    catalog = Catalog()
    rng = random.Random(seed)
    sources: list[tuple[str, str, bytes, str]] = []  # (site, key, raw bytes, given url)

    for m in data.gne_manifest():
        if m["site"] in GNE_SITES:
            sources.append((m["site"], m["path"], data.page(data.gne, m["path"]), m.get("url") or ""))
    labels = {x["id"][:8]: x for x in data.cwced_labels()}
    for site, ids in CWCED_PAGES.items():
        for i in ids:
            sources.append((site, i, data.page(data.cwced, labels[i]["html"]), ""))

    per_site: dict[str, int] = {}
    originals: list[Page] = []
    articles = {}
    seen_urls: set[str] = set()
    for site, key, raw, given in sources:
        url = given if given and _matches(site, given) and given not in seen_urls else URL_MAKERS[site](key)
        seen_urls.add(url)
        content_type = "text/html"
        if key in UNDECLARED_CHARSET:
            raw = _strip_charset(raw)
        text, encoding = decode_html(raw)
        if key not in UNDECLARED_CHARSET:
            content_type = f"text/html; charset={encoding}"
        article = articles[url] = extract_article(text, url)
        n = per_site.get(site, 0)
        per_site[site] = n + 1
        page = Page(
            url, site, 1, article.title or key, story=url, body=raw, content_type=content_type, encoding=encoding
        )
        originals.append(page)
        catalog.add(page)
    for site, total in per_site.items():
        pages = [p for p in originals if p.site == site]
        for p in pages[max(1, (2 * total + 2) // 3) :]:
            p.day = 2

    candidates = [p for p in originals if len(articles[p.url].body) > 300]
    sites = list(URL_MAKERS)
    for k, original in enumerate(rng.sample(candidates, min(reprints, len(candidates)))):
        # A portal with no saved pages of its own (chinanews) gets the first reprint, so every
        # portal has pages whatever the sample.
        bare = [s for s in sites if s not in per_site and not catalog.visible(s, 1) and not catalog.visible(s, 2)]
        site = bare[0] if bare else rng.choice([s for s in sites if s != original.site])
        article = articles[original.url]
        url = URL_MAKERS[site](f"reprint-{k}-{original.url}")
        shown = _reprint_time(article.published_at, url)
        body = _reprint_html(article.title, article.body, site, original.site, rng, shown).encode("utf-8")
        catalog.add(
            Page(
                url,
                site,
                1 + k % 2,
                rng.choice(REPRINT_HEADLINES).format(article.title),
                story=original.story,
                body=body,
                reprint_of=original.url,
            )
        )
    return catalog


def add_bad_pages(catalog: Catalog) -> list[str]:
    """Pages a crawler meets in the wild: a PDF behind an article URL, an empty page, a
    page with no article text. Each must end as a counted invalid item, not a crash."""
    bad = [
        Page(
            URL_MAKERS["qq"]("bad-pdf"),
            "qq",
            1,
            "年度报告（PDF）",
            story="bad-pdf",
            body=b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\n" * 50,
            content_type="application/pdf",
        ),
        Page(URL_MAKERS["qq"]("bad-empty"), "qq", 1, "空白页面", story="bad-empty", body=b""),
        Page(
            URL_MAKERS["ifeng"]("bad-nav"),
            "ifeng",
            1,
            "只有导航的页面",
            story="bad-nav",
            body="<html><body><div><a href='/'>首页</a> | <a href='/a'>新闻</a></div></body></html>".encode(),
        ),
    ]
    for page in bad:
        catalog.add(page)
    return [p.url for p in bad]
