"""The headline of an article page."""

from __future__ import annotations

import re

from lxml.html import HtmlElement

from news_crawler.extraction.metadata import meta_content

# A separator and the spaces around it; a match starts where a run of spaces does.
_TITLE_SPLIT = re.compile(r"(?<!\s)\s*+(?:_|\||-{1,2}|–|—|丨|»|›)\s*+")
_BAR = re.compile(r"(?<!\s)\s*+[|丨｜]\s*+")
_WORD_HYPHEN = re.compile(r"[^\W_]-[^\W_]")  # letters or digits of any script on both sides: 卡迪-Ｂ, COVID-19


def find_title(root: HtmlElement, text: str = "") -> str:
    """The headline: an ``<h1>`` that the ``<title>`` contains, else og:title, else the
    ``<title>`` without its site suffix (``…_新浪网``); a hyphen inside a word (梅格-瑞恩)
    or a column's bar (直击|…) splits it only if the page's ``text`` does not show the
    longer headline as a line."""
    page_title = " ".join((root.findtext(".//title") or "").split())
    for h in root.iter("h1", "h2"):
        heading = " ".join(h.text_content().split())
        if 4 <= len(heading) <= 80 and (not page_title or heading[:8] in page_title):
            return heading
    og = meta_content(root, ("og:title",))
    if og:
        return og
    parts = [p for p in _TITLE_SPLIT.split(page_title) if p]
    best = max(parts[:2], key=len) if parts else page_title
    lines = {" ".join(line.split()) for line in text.splitlines()}
    if best in lines:
        return best
    column = _with_its_column(page_title, best, lines)
    if column or not _WORD_HYPHEN.search(page_title):
        return column or best
    # 梅格-瑞恩: a hyphen inside a name split the headline; the page shows it whole.
    first = _TITLE_SPLIT.search(page_title)
    if first and _WORD_HYPHEN.match(page_title, first.start() - 1):
        ends = [page_title] + [page_title[: m.start()] for m in reversed(list(_TITLE_SPLIT.finditer(page_title)))]
        return next((start for start in ends if start in lines), best)
    return best


def _with_its_column(page_title: str, best: str, lines: set[str]) -> str:
    """直击|…, 书记市长这一周 | …: ``best`` with the part of the ``<title>`` a bar joins to it
    on either side, where the page shows that as a line and not ``best`` alone."""
    shown = []
    for bar in _BAR.finditer(page_title):
        before, after = (
            _TITLE_SPLIT.split(page_title[: bar.start()])[-1],
            _TITLE_SPLIT.split(page_title[bar.end() :])[0],
        )
        if best in (before, after) and before and after:
            joined = page_title[bar.start() - len(before) : bar.end() + len(after)]
            shown += [joined] if " ".join(joined.split()) in lines else []
    return min(shown, key=len, default="")


# A headline's own line: short, no sentence ended in it (a question's mark may close it); the
# line of a credit under it (a name, "——副标题") shorter still; a forum's "主题：" above it.
_HEADLINE_LINE = re.compile(  # not a label's line ("测试：…"), a caption's (图为…, ▲), a menu's or a
    # numbered section's heading (一、培养目标, 1. 背景, （二）)
    r"(?![\u4e00-\u9fa5]{1,4}[:：]|图为|图片|[▲△↑●]|[一二三四五六七八九十\d]{1,3}(?:[、．]|\.(?!\d))|[(（][一二三四五六七八九十\d]{1,3}[)）])"
    r"[^。；;|｜丨>»/\n]{3,39}[^。；;，,：:\s]"
)
_CREDIT_LINE = re.compile(r"[^。！？!?；;，,：:]{2,12}")
_LABEL_LINE = re.compile(r"[\u4e00-\u9fa5]{1,4}\s*+[:：]")
_SENTENCE = re.compile(r"[，。；！？]")


def _shown(title: str, text: str) -> bool:
    """The page shows ``title`` as a line, or a line much like it (spaced, punctuated or
    worded a little otherwise: most of the characters of either are the other's)."""
    if f"\n{title}\n" in f"\n{text}\n":  # a line as written (most pages): none needs looking at
        return True
    chars = set("".join(title.split()))
    for line in text.splitlines():
        line = "".join(line.split())
        if line and len(line) <= 2 * len(chars) + 8:
            common = chars & set(line)
            if len(common) >= 0.6 * len(chars | set(line)):
                return True
    return False


def headline_in_body(title: str, text: str, body: str) -> tuple[str, str]:
    """The headline the page shows and the body under it. ``title`` and ``body`` unchanged,
    unless the page shows no line of ``title`` (a ``<title>`` that is the site's name or a
    placeholder: "显示", "谢谢您访问…") and the body opens with a line that reads as a
    headline (short, no sentence in it, not a menu) above the story: then that line, and
    the body from under it and the short credit line that may follow it (the writer's name:
    a page without headline markup has it there)."""
    if not title or _shown(title, text):
        return title, body
    lines = [line for line in body.splitlines() if line.strip()]
    while lines and (" ".join(lines[0].split()) == title or _LABEL_LINE.fullmatch(lines[0].strip())):
        lines.pop(0)  # readability's copy of the <title>, a label of the headline
    first = " ".join(lines[0].split()) if len(lines) > 2 else ""
    story = any(len(line) >= 20 and _SENTENCE.search(line) for line in lines[1:6])  # not a table's cells
    if not (story and _HEADLINE_LINE.fullmatch(first) and re.search(r"[\u4e00-\u9fa5]", first)):
        return title, body
    credit = 2 if _CREDIT_LINE.fullmatch(" ".join(lines[1].split())) else 1
    return first, "\n".join(lines[credit:])


HEADLINE_ABOVE = 8  # lines: how far above the story's first line its headline stands


def headline_over_story(root: HtmlElement, title: str, text: str, body: str) -> str:
    """The ``<h1>`` that stands over the story, when ``title`` (a ``<title>`` or og:title that
    is the site's or the channel's name: 某某县融媒体中心, 新浪财经) is no heading of the page
    and stands farther from the story than that ``<h1>``, or not over it at all: the headline
    is the line tied to the story, not the longest or the first. ``title`` unchanged
    otherwise (a site's logo in an ``<h1>`` far above the story loses to a ``<title>`` shown
    nearer it)."""
    headings = [" ".join(h.text_content().split()) for h in root.iter("h1")]
    if not title or title in headings:
        return title
    lines = [" ".join(line.split()) for line in text.splitlines()]
    lines = [line for line in lines if line]
    first = next((" ".join(line.split()) for line in body.splitlines() if line.strip()), "")
    try:
        story = lines.index(first)
    except ValueError:
        return title
    over = lines[max(0, story - HEADLINE_ABOVE) : story + 1]
    # the nearest over the story: a site's name in a bar above its headline is not it
    nearest = {line: i for i, line in enumerate(over)}
    heading = max((h for h in headings if 4 <= len(h) <= 80 and h in nearest), key=nearest.__getitem__, default="")
    return heading if heading and nearest[heading] > nearest.get(title, -1) else title


_OUTLET_META = ("og:site_name", "application-name", "apple-mobile-web-app-title")


def find_outlet(root: HtmlElement, headline: str) -> str:
    """The outlet whose page this is (how another copy's 来源 line would name it): the site's
    name its markup states (og:site_name, application-name), else the last part of a
    ``<title>`` that opens with the ``headline`` (…_某某县融媒体中心); "" when neither says."""
    stated = " ".join(meta_content(root, _OUTLET_META).split())
    if stated:
        return stated[:80]
    page_title = " ".join((root.findtext(".//title") or "").split())
    parts = [p for p in _TITLE_SPLIT.split(page_title) if p]
    if len(parts) >= 2 and headline and parts[0][:8] == headline[:8] and parts[-1] != headline:
        return parts[-1][:80]
    return ""
