"""Author, editor and source of an article page, from meta tags and page text (the
headline: ``title.py``; the time: ``published.py``)."""

from __future__ import annotations

import re

from lxml.html import HtmlElement

from news_crawler.extraction.chrome import CHROME_MAX_CHARS
from news_crawler.extraction.dates import DATETIME
from news_crawler.extraction.names import (
    NOT_NAMES,
    PADDED,
    SEP,
    clean_author,
    is_section,
    no_name,
    place_or_outlet,
    unglued,
    whole,
)
from news_crawler.extraction.structured import marked_author, marked_source
from news_crawler.lexicon import EDITOR, SOURCE, WRITER, any_of

_AUTHOR_META = ("author", "article:author", "og:article:author", "dc.creator", "byline")
_NAME = r"(?:[\u4e00-\u9fa5]{1,6}(?:·[\u4e00-\u9fa5]{1,6}){1,3}|[\u4e00-\u9fa5·]{2,4})"  # 努尔·白克力 too
_NAMES = rf"{_NAME}(?:{SEP}{_NAME}){{0,4}}"
_PADDED_NAME = r"[\u4e00-\u9fa5][ \u3000]{1,2}[\u4e00-\u9fa5](?![\u4e00-\u9fa5·])"  # 作者：王  芳 (old CMS pages)
# Runs of spaces are taken whole (``\s*+``) wherever what follows cannot be a space: a page's
# long run cannot make a pattern backtrack (the patterns run in time linear in the text).
_COLON = r"\s*+[:：丨|｜/]\s*+"
_ISSUER = re.compile(r"(?:发文机关|发布机关|发文单位)\s*+[:：]\s*+([\u4e00-\u9fa5]{2,20})")  # government notices
_HANDLE = r"[A-Za-z][A-Za-z0-9_.\-]{2,24}"  # a blogger's or a forum member's handle
_LATIN_NAME = r"[A-Z][a-z]+(?:[ .·-][A-Z][a-z]+){1,3}(?![A-Za-z])"  # 作者：Jack Ma, 作者：Anne-Marie Slaughter
_DATE_AHEAD = r"(?=\s*+(?:19|20)\d\d\s*+[-/.年])"


def _then_sep_or(after: str) -> str:
    """After a name, a byline's next part: a separator (SEP), a line's end, or (after any
    spaces) ``after``; ``(?=\\s*(?:after|\\n|SEP))`` written so that it cannot backtrack."""
    return rf"(?=[^\S \u3000\u2002\u2003\n]*+(?:[ \u3000\u2002\u2003\n、，,]|{after}))"


# The editor's note after a writer's closing name: "（肉夹馍）(责编：大黑牛)".
_EDITOR_NOTE = r"(?:[(（](?:责任编辑|责编|编辑)[:：][^（）()\n]{1,12}[）)][^\S\n]*+)"
_TITLE = r"(?:[\u4e00-\u9fa5]{0,8}?记者[ \t\u3000]*+)?"  # "作者：本报记者 张三", "作者：新华社记者 张三"
# Reporters named in turn, a title between them: "张嘉 郭佳 实习记者 罗崇纬", "李卓 每经见习记者 陈克远"
# (clean_author leaves the titles out).
_REPORTERS = rf"{_NAME}(?:{SEP}(?:[\u4e00-\u9fa5]{{0,6}}?记者[ \t\u3000]*+)?{_NAME}){{0,6}}"
# Byline conventions in the order they are trusted: an explicit author, a reporter, 文/撰文,
# a post's poster, a name in brackets closing the story "（袁源）" or "（姚峰 上海报道）", the
# office issuing a government notice; then (find_author) the author meta tag, a name alone
# under the headline, the editor.
_AUTHOR_LABELS = [
    # (not the end of 创作者, 工作者, 合作者...: "提醒创作者：新的政策…")
    re.compile(
        rf"(?:(?<![创工写合著制操劳])作者|原作者|撰稿人?|执笔人?)(?:{_COLON}|[】\]〕]\s*+|[ \t\u3000]++){_TITLE}"
        rf"[\[【〔]?({_PADDED_NAME}|{_NAMES}|{_LATIN_NAME}|{_HANDLE})"
    ),
    # a line that is only "作者魏星", or 作者 in a table cell of its own and the name in the next
    re.compile(rf"(?:^|\n)[ \t]*+作者(?:[ \t]*+[:：]?+[ \t]*+\n[ \t]*+)?({_NAME})(?=[ \t]*+(?:\n|$))"),
    re.compile(
        rf"记者(?:{_COLON}|\s++)({_PADDED_NAME}|{_REPORTERS})(?![ \t\u3000]*+摄(?!影\s*+[:：]))"
        + _then_sep_or("/|／|[）)\\]】（(]|报[道导]")
    ),
    re.compile(rf"记者({_NAMES})(?![ \t\u3000]*+摄)(?=\s*+(?:/|／|[）)]|报[道导]|发自))"),  # "记者 X 摄": a photo
    # a line that is only an outlet's reporter, the name glued on: "新华社记者蔡拥军", "南都讯 记者丰臻"
    re.compile(
        rf"(?:^|\n)[ \t\u3000]*+(?:[\u4e00-\u9fa5]{{1,8}}讯[ \t\u3000]++)?[\u4e00-\u9fa5·、\-—]{{0,12}}?记者({_NAMES})"
        r"(?=[ \t\u3000]*+(?:\n|$))"
    ),
    re.compile(rf"(?:^|[(（\[【\s])(?:文|撰文|文字|文/图|图文){_COLON}({_NAMES})"),
    re.compile(
        rf"(?:^|[(（\[【\s])(?:文/图|文／图|图/文|图文)[ \t\u3000]++({_NAMES})"
    ),  # "文/图 张三": writer and photographer
    re.compile(rf"(?:^|[(（\[【\s])({_NAMES})\s*+[/／]\s*+文(?=$|[\s)）\]】])"),  # "张三/文"
    # Blog and forum posts: "张三 发表于 2005-9-15", "本帖由张三于2005年...", "由张三张贴 @ 2005-...",
    # "... 22:36:13 by zhang".
    re.compile(rf"(?:^|\s)({_NAMES}|{_HANDLE})\s*+发表于\s*+[:：]?{_DATE_AHEAD}"),
    re.compile(rf"由\s*+({_NAME}|{_HANDLE})\s*+(?:于{_DATE_AHEAD}|(?:张贴|发表|发布)\s*+(?:于|@)?{_DATE_AHEAD})"),
    re.compile(rf"\d:\d\d(?::\d\d)?\s++by\s++({_HANDLE}|{_NAMES})(?![\w.])"),
    # "08:19 [ 黄宇 ]", not a story's emoji codes "[作揖][作揖]@某某" (text or another code after)
    re.compile(rf"\d:\d\d(?::\d\d)?\s*+[\[【]\s*+({_NAMES})\s*+[\]】](?![\u4e00-\u9fa5@\[【A-Za-z0-9])"),
    # (not after a word: "来源：人民日报（北京）"; after 讯/电: "本报讯（张三）")
    re.compile(
        rf"(?:(?<![\u4e00-\u9fa5A-Za-z0-9])|(?<=[讯电]))[(（]\s*+({_NAMES})\s*+"
        rf"(?:[）)][^\S\n]*+{_EDITOR_NOTE}?(?:\n|$)|{SEP}?[\u4e00-\u9fa5]{{0,4}}报[道导])"
    ),
    _ISSUER,
]
_CREDITS = 8  # the labels above that credit a writer (作者, 记者, 文/, /文): above the story they come first
# Correspondents and interns: credited beside the reporters, never the author. The names are
# looked at, not taken: the next label's names ("实习生 何强 通讯员 李梅") are matched in turn.
_CONTRIBUTOR = re.compile(rf"(?:通讯员|实习生)(?:{_COLON}|[ \t\u3000]++)(?=({_NAMES})(?![ \t\u3000]*+摄))")
# The line under a headline that is only a name, an account or "name/outlet": "石佳/中国青年报",
# a self-media account "加拿大必读", "华夏人文 2020-03-09 18:14:21".
_ACCOUNT = r"[\u4e00-\u9fa5A-Za-z0-9·_]{2,12}"
# ... or with a relative time and a follow button: "加拿大必读 3天前 关注", "王小红 昨天 10:08".
_RELATIVE = r"(?:\d{1,2}\s*+(?:秒|分钟|小时|天)前|刚刚|今天|昨天|前天)(?:\s*+\d{1,2}:\d\d)?"
_UNDER_HEADLINE = re.compile(
    rf"({_ACCOUNT})(?:\s*+[/／]\s*+[^\s/／]{{2,12}}|\s++{DATETIME.pattern}|\s++{_RELATIVE})?"
    r"(?:\s*+(?:阅读|浏览|评论)\s*+[\d.,]{1,9}\s*+[万千]?)?"  # "王小红 2019-07-25 20:02 阅读 3.2万"
    r"(?:\s*+\+?关注)?"
)
# ... or "原创 王小红 某某观察 2019-01-25": a tag, the writer, the account, the date.
# Writers' names, a line of their own: people's names (two or three characters, or with ·),
# not a section's heading of four ("基本情况") or an outlet's mark ("本报讯", "新华社电").
_PERSON = r"(?:[\u4e00-\u9fa5]{1,6}(?:·[\u4e00-\u9fa5]{1,6}){1,3}|[\u4e00-\u9fa5]{2,3}(?<![讯电]))"
_NAMES_LINE = re.compile(rf"{_PERSON}(?:{SEP}{_PERSON}){{0,4}}")
# "原创 李华 城市观察 2024-05-06 08:30 北京": an account's line, the place it posted from after the time.
_TAGGED = re.compile(
    rf"(?:原创|转载|独家|首发)\s++({_ACCOUNT})(?:\s++{_ACCOUNT})?(?:\s++{DATETIME.pattern}(?:\s++(?:发表于)?[\u4e00-\u9fa5]{{2,4}})?)?"
)


def meta_content(root: HtmlElement, names: tuple[str, ...]) -> str:
    """The content of the first meta tag named (``name``, ``property`` or ``itemprop``) one of ``names``."""
    wanted = set(names)
    for el in root.iter("meta"):
        key = (el.get("property") or el.get("name") or el.get("itemprop") or "").strip().lower()
        if key in wanted and (el.get("content") or "").strip():
            return el.get("content").strip()
    return ""


_HEADLINE_AGAIN = 200  # characters: a second copy of the headline this close above the story


def _headline_at(text: str, title: str, end: int, earliest: bool = True) -> int:
    """Where the headline stands above the story: its last appearance before ``end`` that is
    not a "原标题：" note (a menu or a breadcrumb may hold it further up), or (``earliest``)
    a copy of it right above that one."""
    at = text.rfind(title[:12], 0, end) if title else -1
    while at > 0 and "".join(text[max(at - 8, 0) : at].split()).endswith(("原标题：", "原标题:", "原题：", "原题:")):
        at = text.rfind(title[:12], 0, at)
    # A blog's headline above its byline and again above the story: the byline is between them.
    earlier = text.rfind(title[:12], max(at - _HEADLINE_AGAIN, 0), at) if at > 0 and earliest else -1
    return earlier if earlier >= 0 else at


def _located(text: str, snippet: str, last: bool = False) -> tuple[int, int]:
    """Where ``snippet`` of the body stands in the page's ``text`` (its first, or ``last``,
    appearance), as (start, end): the page's text has a space between inline elements (a
    word processor's runs cut a paragraph anywhere), allowed between its characters; else (-1, -1)."""
    at = text.rfind(snippet) if last else text.find(snippet)
    if at >= 0:
        return at, at + len(snippet)
    matches = list(re.finditer(r"\s*".join(map(re.escape, "".join(snippet.split()))), text))
    if not matches:
        return -1, -1
    return (matches[-1] if last else matches[0]).span()


def _head(text: str, title: str, lines: list[str]) -> tuple[int, int]:
    """Where the headline (else the body) starts in ``text``, and where the body's first
    line does (-1: not found)."""
    first_at = -1
    if lines:
        first_at = _story_start(text, lines[0])
        first_at = first_at if first_at >= 0 else _located(text, lines[0][:20])[0]
    title_at = _headline_at(text, title, first_at if first_at >= 0 else len(text))
    return (title_at if title_at >= 0 else max(first_at, 0)), first_at


def _byline(text: str, title: str, body: str) -> str:
    """The text between the headline and the body's first line."""
    head_start, first_at = _head(text, title, body.splitlines())
    return text[head_start:first_at] if first_at > head_start else ""


_UNDER_STORY = 300  # characters under the story's last line where a byline stands
_EDITOR_UNDER = 600  # ... and an editor's line, which may follow a related block and share buttons


def _regions(text: str, title: str, body: str, under: int = _UNDER_STORY) -> list[str]:
    """Where bylines stand: from the headline to the body's first lines, and around the
    body's end (``under`` characters past it)."""
    lines = body.splitlines()
    head_start, first_at = _head(text, title, lines)
    last_at = _located(text, lines[-1][-20:])[0] if lines else -1
    head_end = max(first_at, head_start) + (len(lines[0]) if lines else 0) + 120
    regions = [text[head_start:head_end]]
    if last_at >= 0:
        regions.append(text[max(last_at - 200, 0) : last_at + under])
    elif lines:
        regions.append("\n".join(lines[-3:]))
    return regions


def _trailer(text: str, body: str) -> str:
    """The first lines under the body, where some sites put their byline (来源… 作者… 发布时间…):
    short ones only (a related headline or a comment runs longer), none of the story's."""
    lines = body.splitlines()
    tail = lines[-1][-20:] if lines else ""
    at, end = _located(text, tail, last=True) if tail.strip() else (-1, -1)
    if at < 0:
        return ""
    under = text[end:].splitlines()[1:4]
    return "\n".join(line for line in under if len(line.strip()) <= CHROME_MAX_CHARS and line.strip() not in body)


# A photographer's credit, the last label before a name on its line: "摄影/本报记者 崔峻",
# "图/新华社记者 李明" (not "摄影/本报记者 崔峻 文/本报记者 宋翔": 宋翔 is the writer).
_PHOTOGRAPHER = re.compile(r"(?:摄影|摄|图片?)\s*+[/／|｜:：][^/／|｜:：\n]*+$")


def _first_name(pattern: re.Pattern, regions: list[str]) -> str:
    for region in regions:
        for m in pattern.finditer(region):
            if region[m.end(1) : m.end(1) + 1] in ("=", '"', "'", "<") or _into_the_next_line(region, m):
                continue  # markup that leaked into the text: "作者：size="20""; a label left empty
            if _PHOTOGRAPHER.search(region, region.rfind("\n", 0, m.start(1)) + 1, m.start(1)):
                continue
            name = clean_author(_glued_or_whole(m.group(1), region[m.end(1) : m.end(1) + 8]), reporters=True)
            if name:
                return name
    return ""


# What runs on after a value that is a line's first words, not a name or an outlet.
_RUNS_ON_TEXT = re.compile(r"[\u4e00-\u9fa5，。；！？]")


def _into_the_next_line(region: str, m: re.Match) -> bool:
    """A label left empty at its line's end, and the next line's first words caught as its
    value: they run on into a sentence ("作者：\n国家统计局今天发布…"). A value in a cell of
    its own ("作者：\n张三 2024-10-15", "来源：\n新华网") ends there and stands."""
    return "\n" in region[m.start() : m.start(1)] and _RUNS_ON_TEXT.match(region, m.end(1)) is not None


_SEPARATORS = " \u3000\u2002\u2003、，,"  # SEP's characters


def _glued_or_whole(names: str, after: str) -> str:
    """The names a byline pattern caught, padded ones closed up, without a next label caught
    as the last ("编辑：王二 设计：张三": 设计 is no name, whatever the label), cut at a glued
    tool word or taken on to the end of a long one (``names.py``)."""
    names = PADDED.sub(r"\1\2", names)
    last = re.split(SEP, names)[-1]
    if after.lstrip(" \t\u3000")[:1] in (":", "：") and last != names:
        return names[: len(names) - len(last)].rstrip(_SEPARATORS)
    cut = unglued(names, after)
    return cut if cut != names else whole(names, after)


_HEAD_LINES = 5  # the body's first lines, where a page may repeat its headline


def _is_headline(line: str, title: str) -> bool:
    """The line is the headline: the title, or its start without a page's suffix ("(页 1)")."""
    return bool(line) and (line == title or (len(line) >= 8 and title.startswith(line)))


def _under_headline(text: str, title: str, body: str) -> str:
    """A name standing alone on the first line under the headline (tags such as 原创 skipped)."""
    lines = body.splitlines()
    heads = [i for i, line in enumerate(lines[:_HEAD_LINES]) if _is_headline(line.strip(), title)]
    if heads:  # the body holds the headline (a forum archive's post): the writers stand under it
        return _names_line(lines, heads[-1] + 1)
    first_at = _story_start(text, lines[0]) if lines else len(text)
    at = _headline_at(text, title, first_at if first_at >= 0 else len(text), earliest=False)
    if at < 0:
        return ""
    above = text[at:first_at].splitlines()[1:4]
    for line in above:
        line = line.strip()
        if line == title or line in NOT_NAMES:
            continue
        m = _UNDER_HEADLINE.fullmatch(line) or _TAGGED.fullmatch(line)
        name = m.group(1) if m else ""
        if name and not (no_name(name) or place_or_outlet(name) or is_section(name) or name.isdigit()):
            return name
        return ""
    # Nothing between the headline and the story: the story's first line may be its writers' names.
    return _names_line(lines, 0) if not above else ""


_START = 40  # characters of the story's first line that place it in the page, past a headline it opens with


def _story_start(text: str, first: str) -> int:
    """Where the story's ``first`` line starts in the page's ``text``: a line of its own that
    begins with its first 40 characters, or is it whole when it is shorter ("周琦", not the
    "周琦" inside the headline above it), else those 40 characters anywhere (after a credit
    the body left out), else its first 20; -1 when not found."""
    first = first.strip()
    snippet = "\n" + first[:_START] + ("" if len(first) > _START else "\n")
    at = f"\n{text}\n".find(snippet)
    if at < 0 and len(first) > _START:
        at = text.find(first[:_START])
    return at if at >= 0 else text.find(first[:20])


def _names_line(lines: list[str], at: int) -> str:
    """Writers' names standing alone on line ``at`` of the body, above the rest of it
    ("赵延东、风笑天", a paper's or an essay's)."""
    names = _NAMES_LINE.fullmatch(lines[at].strip()) if at + 1 < len(lines) else None
    found = re.split(SEP, names.group()) if names else []
    if found and not any(no_name(n) or place_or_outlet(n) for n in found):
        return " ".join(found)
    return ""


def _meta_author(meta: str, page_title: str, headline: str, editor: str = "") -> bool:
    """Whether an author meta tag names an author: not a URL or a list, not a site's name
    ("新浪网", or "网易" on a page titled "…_网易新闻"), a desk (编辑部), a section (财经) or
    a button (分享), not a number, not the page's ``editor`` (a CMS fills the tag with the
    editor who published the page)."""
    return (
        bool(meta)
        and meta not in editor.split()
        and not is_section(meta)
        and len(meta) <= 40
        and "://" not in meta
        and "," not in meta
        and any(c.isalpha() for c in meta)
        and not no_name(meta)
        and not place_or_outlet(meta)
        and not (meta in page_title and meta not in headline)
    )


def _makers_of_software(root: HtmlElement, meta: str) -> bool:
    """The author meta tag credits the software that made the page ("Discuz! Team and
    Comsenz UI Team" beside a generator tag "Discuz! X3.4"), not the article's writer."""
    generator = meta_content(root, ("generator",)).split()
    return bool(generator) and len(generator[0]) >= 3 and generator[0].lower() in meta.lower()


def find_author(
    root: HtmlElement, text: str, title: str, body: str, linked: str = "", source: str = "", editor: str = ""
) -> str:
    """The byline without its label (作者：/记者/编辑): a writer's credit above the story, then
    one in the short lines right under it; the writer the markup states (``linked``,
    JSON-LD's; an element in the byline marked as the author's, ``structured.py``); a credit
    in the story's first lines or around its end; else the author meta tag. What the markup
    or the meta tag states is believed only when it names a writer: never the ``editor``
    the page credits, a site, a desk, a section or a button."""
    byline, regions = _byline(text, title, body), _regions(text, title, body)
    for credits in ([byline], [_trailer(text, body)]):  # a credit above or right under the story before one inside it
        for pattern in _AUTHOR_LABELS[:_CREDITS]:
            name = _first_name(pattern, credits)
            if name:
                return name
    tagged = [m.group(1) for m in map(_TAGGED.fullmatch, map(str.strip, byline.splitlines())) if m]
    if tagged and not no_name(tagged[0]):  # "原创 王小红 …" names the writer as plainly
        return tagged[0]
    page_title = root.findtext(".//title") or ""
    for stated in (linked, marked_author(root, byline)):
        stated = PADDED.sub(r"\1\2", stated.strip())
        if _meta_author(stated, page_title, title, editor):
            return stated
    for pattern in _AUTHOR_LABELS:
        name = _first_name(pattern, regions)
        if name:
            return name
    meta = PADDED.sub(r"\1\2", meta_content(root, _AUTHOR_META))
    # (not the software's makers, not the outlet the page names as its ``source``: 参考消息)
    if _meta_author(meta, page_title, title, editor) and not _makers_of_software(root, meta):
        if meta not in (source, marked_source(root, text)):
            return meta
    issuer = _ISSUER.search(text)  # a notice's metadata table stands above its headline
    return _under_headline(text, title, body) or (issuer.group(1) if issuer else "")


def near_article(text: str, title: str, body: str) -> str:
    """The page's text where a byline or a tag line stands: above the story and right under it."""
    return _byline(text, title, body) + "\n" + _trailer(text, body)


def find_contributors(text: str, title: str, body: str) -> str:
    """The correspondents and interns a byline credits beside the reporters (通讯员 X, 实习生
    Y), space-separated; never the author. Where bylines stand: above the story, closing it
    ("（记者 孙丽 通讯员 何强）"), under it."""
    found: list[str] = []
    for region in [*_regions(text, title, body), _trailer(text, body)]:
        for m in _CONTRIBUTOR.finditer(region):
            if _into_the_next_line(region, m):
                continue
            for name in clean_author(_glued_or_whole(m.group(1), region[m.end(1) : m.end(1) + 8])).split():
                if name not in found:
                    found.append(name)
    return " ".join(found)


# 责任编辑 X too, and 编辑 X signing the story in brackets: "（编辑 李强）"
_EDITOR = re.compile(
    rf"(?:(?:责任编辑|责编)(?:{_COLON}|[ \t\u3000]++)|编辑{_COLON}|(?<=[（(])编辑[ \t\u3000]++)({_NAMES})"
)
_CHIEF_EDITOR = re.compile(rf"(?:责任编辑|责编)(?:{_COLON}|[ \t\u3000]++)({_NAMES})")
_SOURCE = re.compile(
    r"(?:"
    + any_of(SOURCE)
    + r"\s*+[:：|｜丨】\]〕]|来自\s*+[:：])\s*+[\[【〔]?([^\s\u3000|丨/（）()\[\]【】=\"'<>]{2,30})"
)
# What a source runs into: a credit, a counter, a date's label ("新闻晨报发布时间：", not "临江教育发布").
_SOURCE_END = re.compile(
    any_of(WRITER[:2], EDITOR, ("点击", "阅读", "浏览", "时间", "日期", "发布时间", "发布日期", "发布于"))
    + r"[:：]?.*$"
)


def find_editor(text: str, title: str, body: str) -> str:
    """The editor (责任编辑/责编/编辑), from around the body's end, else from the byline; of a
    line of desk credits (编辑：刘洋　责任编辑：陈静　审核：赵刚) the 责任编辑, the one in charge."""
    for region in reversed(_regions(text, title, body, _EDITOR_UNDER)):
        for pattern in (_CHIEF_EDITOR, _EDITOR):
            for m in pattern.finditer(region):
                if _into_the_next_line(region, m):
                    continue
                name = clean_author(_glued_or_whole(m.group(1), region[m.end(1) : m.end(1) + 8]))
                if name:
                    return name
    return ""


_NOT_OUTLETS = ("转载", "原创", "本站", "网络", "互联网")  # "来源：转载文章" names no outlet
_NOT_SOURCES = NOT_NAMES - {"新华社", "中新网"}  # agencies: no author's name, but outlets


def find_source(root: HtmlElement, text: str, title: str, body: str) -> str:
    """The outlet the story comes from (来源：...), from the byline, else from around the
    body's end, without a date, a label or a counter glued after it; else the one the
    markup marks as the source in the byline (``structured.py``)."""
    for region in _regions(text, title, body):
        for m in _SOURCE.finditer(region):
            if region[m.end(1) : m.end(1) + 1] in ("=", '"', "'", "<") or _into_the_next_line(region, m):
                continue  # markup that leaked into the text, not an outlet; a label left empty
            link = _LINKED_SOURCE.match(region, m.start(1))
            source = link.group(1) if link else _SOURCE_END.sub("", DATETIME.sub("", m.group(1))).strip(" :：,，")
            if _an_outlet(source):
                return source
    marked = marked_source(root, _byline(text, title, body))
    # (the element may hold the time or a tag: "发布时间：01-14 17:58", "昨天", "原创", "© FMM")
    return marked if _an_outlet(marked) and not _NOT_MARKED_SOURCE.search(marked) else ""


# "来源：https://www.gov.cn/…": the source is given as its link; its host names it.
_LINKED_SOURCE = re.compile(r"https?://([A-Za-z0-9.-]{3,253})", re.I)
_NOT_MARKED_SOURCE = re.compile(rf"\d|[:：©]|^{_RELATIVE}$")


def _an_outlet(source: str) -> bool:
    return len(source) >= 2 and source not in _NOT_SOURCES and not source.startswith(_NOT_OUTLETS)
