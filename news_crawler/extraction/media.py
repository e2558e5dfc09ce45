"""What a page says about its article beside the text: its own images (with their
captions), its description, its tags and keywords, and when it was last modified.

Each is read from what the page states, or left empty: the meta tags and JSON-LD a page
writes for search engines, the labels a Chinese page prints (标签：, 关键词：, 更新时间：),
and for images the article's own container, found by where the body's first and last
lines stand in the page.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from itertools import islice

from lxml.html import HtmlElement

from news_crawler.defaults import IMAGES_MAX
from news_crawler.extraction.chrome import same_headline
from news_crawler.extraction.dates import DATETIME, iso_from_match, parse_datetime
from news_crawler.extraction.markup import join_url
from news_crawler.extraction.metadata import meta_content

_DESCRIPTION_META = ("description", "og:description", "twitter:description", "dc.description")
_KEYWORDS_META = ("keywords", "news_keywords", "article:tag", "og:article:tag")
_MODIFIED_META = ("article:modified_time", "og:updated_time", "last-modified", "dc.date.modified", "datemodified")
_TAGS_LABEL = re.compile(r"(?:标签|关键词|关键字|Tags?)\s*+[:：]\s*+([^\n]{1,120})", re.I)
_TAG_SPLIT = re.compile(r"[,，、;；|｜/\s]+")
_UPDATED_LABEL = re.compile(r"(?:更新时间|修改时间|更新日期|最后更新|最后修改|(?:更新|修改|修订|编辑)于)\s*+[:：]?\s*+")
_SPACES = re.compile(r"\s+")
DESCRIPTION_MAX = 500  # characters
SHARED_WITHIN = 200  # characters of a summary looked for in its article
TAGS_MAX = 20  # tags, each of 2 to 30 characters
TAGS_READ = 4000  # characters of each keywords tag or label line read (a page may give megabytes)

# What an image that is no part of the story says about itself in its URL, class, id or alt.
_NOT_CONTENT = re.compile(
    r"logo|icon|avatar|head_?img|headpic|portrait|sprite|banner|\bads?\b|advert|guanggao|qr_?code|qrcode|二维码"
    r"|pixel|spacer|blank|loading|lazy\.(?:gif|png)|share|weixin|wechat|weibo|emoji|smiley|button|btn|arrow|\.svg"
    r"|(?:next|prev|pre)_?page",
    re.I,
)
_LAZY = ("data-src", "data-original", "data-lazy-src", "data-url", "original", "data-actualsrc", "src")
_SMALL = 100  # pixels: a stated width or height below this is an icon, a bullet or a tracking pixel
_CAPTION_CLASS = re.compile(r"caption|pictext|img_?desc|imgtxt|pic_?txt|pic_?info|photo_?desc|figcaption|tuzhu", re.I)
_CAPTION_TEXT = re.compile(r"^(?:[（(]?图[)）]?|图为|图片|上图|下图|左图|右图|▲|△|↑)")
_PHOTO_CREDIT = re.compile(r"^(?:图\s*+[/／|｜]|图片来源|图源|图片来自|图片由)")  # "图/视觉中国": whose, not what
CAPTION_MAX = 120
_NOT_XPATH = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")  # no XPath string holds them
_HAN = re.compile(r"[\u4e00-\u9fff]")


def find_description(
    root: HtmlElement, linked_description: str = "", lead: str = "", article: str = "", title: str = ""
) -> str:
    """The summary the page gives of its article: its description meta tag (description,
    og:, twitter:, dc.), else JSON-LD's, else ``lead``, the lead the page labels atop the
    story (导读, 摘要, 核心提示). A summary that shares no words with the ``article`` (its
    headline and body) is the site's, the same on every page ("某某网是本地最大的新闻门户…"),
    and is passed over; one that is the headline ``title`` again is taken only when the page
    gives no other."""
    metas = [meta_content(root, (name,)) for name in _DESCRIPTION_META]
    headline = ""
    for text in (*metas, linked_description, lead):
        # a page may state a description of megabytes: what is kept of it, and room for its entities
        text = _SPACES.sub(" ", html.unescape(text[: DESCRIPTION_MAX * 8])).strip()  # "&nbsp;" a CMS escaped twice
        if not text or article and not _shares_words(text, article):
            continue
        if not same_headline(text, title):
            return text[:DESCRIPTION_MAX]
        headline = headline or text[:DESCRIPTION_MAX]
    return headline


_HAN_RUN = re.compile(r"[\u4e00-\u9fff]{4}")


def _shares_words(summary: str, article: str) -> bool:
    """``summary`` holds a run of four Chinese characters that ``article`` holds too; a
    summary without such runs (in English) is given the benefit."""
    summary = summary[:SHARED_WITHIN]
    runs = [summary[i : i + 4] for i in range(len(summary) - 3) if _HAN_RUN.fullmatch(summary, i, i + 4)]
    return not runs or any(run in article for run in runs)


def find_tags(
    root: HtmlElement, byline_and_trailer: str = "", linked_keywords: list[str] | None = None, article: str = ""
) -> list[str]:
    """The page's own keywords and tags, in order, each once: the keywords meta tags (and
    JSON-LD's), then a 标签：/关键词： line near the article. Keywords none of which the
    ``article`` (its headline and body) holds are the site's, the same on every page
    ("河南日报,河南新闻,河南时政"), and none of the article's: then there are none."""
    found: dict[str, None] = {}  # in order, each once
    sources = [el.get("content") or "" for el in root.iter("meta") if _meta_key(el) in _KEYWORDS_META]
    sources += linked_keywords or []
    sources += [m.group(1) for m in _TAGS_LABEL.finditer(byline_and_trailer)]
    for source in sources:
        for tag in _TAG_SPLIT.split(source[:TAGS_READ]):
            tag = tag.strip(" .。:：#")
            if 1 < len(tag) <= 30 and not _MARKUP.search(tag):
                found.setdefault(tag)
    lowered = article.lower()
    if article and not any(tag.lower() in lowered for tag in found):
        return []
    return list(found)[:TAGS_MAX]


_MARKUP = re.compile(r"[<>=]")  # a keywords tag broken by its page's markup: "<meta", "name="


def _meta_key(el: HtmlElement) -> str:
    return (el.get("property") or el.get("name") or el.get("itemprop") or "").strip().lower()


def find_updated_at(root: HtmlElement, text: str, linked_modified: str = "") -> str:
    """When the page says the article was last modified (ISO 8601), or ""."""
    for stated in (meta_content(root, _MODIFIED_META), linked_modified, _marked_modified(root)):
        iso = parse_datetime(stated) if stated else ""
        if iso:
            return iso
    for label in _UPDATED_LABEL.finditer(text):
        m = DATETIME.match(text, label.end())
        if m:
            return iso_from_match(m)
    return ""


def _marked_modified(root: HtmlElement) -> str:
    for el in root.xpath('.//*[@itemprop="dateModified"]'):
        return str(el.get("datetime") or el.get("content") or el.text_content() or "").strip()
    return ""


def find_images(
    root: HtmlElement, body: str, url: str = "", title: str = "", limit: int = IMAGES_MAX
) -> list[dict[str, str]]:
    """The article's first ``limit`` images in order, absolute URLs, each with its caption where the
    page gives one (a figcaption, a caption element or line under it, its alt text): the
    images inside the element that holds the body's first and last lines, without logos,
    icons, avatars, ads, QR codes and tracking pixels. A caption that is the headline (an
    alt text many CMSs fill with it) or the site's name is no caption."""
    container = _container(root, body)
    if container is None:
        return []
    images: list[dict[str, str]] = []
    seen: set[str] = set()
    base = _base(root, url)
    # "…|游民星空": the site's name beside the headline in <title>, an alt text some sites give every image
    site_names = {part.strip() for part in _TITLE_PARTS.split(root.findtext(".//title") or "")} - {"", title}
    for img in container.iter("img"):
        if len(images) >= limit:
            break
        src = next((img.get(a) for a in _LAZY if (img.get(a) or "").strip()), "")
        src = (join_url(base, src.strip()) or "") if base else src.strip()
        if not src.startswith(("http://", "https://")) or src in seen or _not_content(img, src):
            continue
        seen.add(src)
        caption = _caption(img)
        no_caption = caption in title or caption.strip() in site_names  # the headline, the site's name
        images.append({"url": src, "caption": "" if caption and no_caption else caption})
    return images


_TITLE_PARTS = re.compile(r"[_|｜—–-]++")


def _base(root: HtmlElement, url: str) -> str:
    """What the page's relative URLs are relative to: its ``<base href>`` (an http(s) one),
    else ``url``."""
    base = root.find(".//base[@href]")
    if base is None or not url:
        return url
    joined = join_url(url, base.get("href", "").strip()) or ""
    return joined if joined.startswith(("http://", "https://")) else url


def _not_content(img: HtmlElement, src: str) -> bool:
    marks = " ".join(filter(None, (src, img.get("class"), img.get("id"), img.get("alt"))))
    for size in (img.get("width"), img.get("height")):
        digits = re.match(r"\s*(\d+)", size or "")
        if digits and int(digits.group(1)) < _SMALL:
            return True
    return bool(_NOT_CONTENT.search(marks))


def _caption(img: HtmlElement) -> str:
    figure = next((a for a in img.iterancestors("figure")), None)
    if figure is not None:
        caption = figure.find(".//figcaption")
        if caption is not None:
            return _short(caption.text_content())
    for el in _after(img):
        text = _short(el.text_content())
        if not text:
            continue
        if _PHOTO_CREDIT.match(text):
            break
        if _CAPTION_CLASS.search(" ".join(filter(None, (el.get("class"), el.get("id"))))) or _CAPTION_TEXT.match(text):
            return text
        break
    alt = _short(img.get("alt") or img.get("title") or "")
    return alt if len(_HAN.findall(alt)) >= 2 and alt not in ("图片", "配图", "插图") else ""  # not a file's name


def _after(img: HtmlElement) -> Iterator[HtmlElement]:
    """The elements right after an image: its paragraph's next sibling, then its own."""
    holder = img
    for _ in range(3):  # up from the <img> to the block that holds it (a <p>, a <div>, a <center>)
        parent = holder.getparent()
        if parent is None or len(list(islice(parent.iter("img"), 2))) > 1 or _text(parent) != _text(holder):
            break  # the parent holds more than the image: the story's text, another image
        holder = parent
    nxt = holder.getnext()
    while nxt is not None and not isinstance(nxt.tag, str):  # a comment, a processing instruction
        nxt = nxt.getnext()
    if nxt is not None:
        yield nxt


def _text(el: HtmlElement) -> str:
    return "".join(el.text_content().split())


def _short(text: str) -> str:
    text = _SPACES.sub(" ", text).strip()
    return text if len(text) <= CAPTION_MAX else ""


def _container(root: HtmlElement, body: str) -> HtmlElement | None:
    """The lowest element that holds the body's first and last lines (of the first and
    last three, those found whole in one of the page's texts: a label in bold before its
    text is two)."""
    lines = [line.strip() for line in body.splitlines() if len(line.strip()) >= 6]
    first = next((el for el in (_holder(root, line[:12]) for line in lines[:3]) if el is not None), None)
    last = next((el for el in (_holder(root, line[-12:]) for line in reversed(lines[-3:])) if el is not None), None)
    if first is None or last is None:
        return None
    above = set(first.iterancestors()) | {first}
    return next((el for el in [last, *last.iterancestors()] if el in above), None)


def _holder(root: HtmlElement, snippet: str) -> HtmlElement | None:
    snippet = _NOT_XPATH.sub(" ", snippet).strip()
    if not snippet:
        return None
    for node in root.xpath("//text()[contains(., $s)]", s=snippet):
        parent = node.getparent()
        if parent is not None:
            return parent if not node.is_tail else parent.getparent()
    return None
