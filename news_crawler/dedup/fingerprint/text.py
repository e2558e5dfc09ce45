"""Text normalisation and reprint boilerplate, before segmentation."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

import numpy as np

from news_crawler.dedup.fingerprint.credits import BOILERPLATE_PHRASE, strip_glued_credits
from news_crawler.lexicon import CHECKER, CREDIT_LINE, EDITOR, ORIGINAL_TITLE, SOURCE, WRITER, any_of

# Zero-width and formatting characters survive NFKC; they split words for jieba.
_INVISIBLE = re.compile("[\u200b\u200c\u200d\u200e\u200f\u2060\ufeff\u00ad]")
_SPACES = re.compile(r"[^\S\n]+")
# Control characters, and lone surrogates (from bad decoding) that cannot be encoded as UTF-8.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")

# Lines portals add or change when they reprint a story. They say who reprinted it, not
# what the story is, so two copies of one story differ mostly here.
_BOILERPLATE_LINE = re.compile(
    r"^[\[【(（]?\s*"
    + any_of(
        SOURCE,
        ORIGINAL_TITLE,
        EDITOR,
        CHECKER,
        WRITER,
        ("文", "图", "摄影", "图片来源", "视频来源", "本文作者", "转载", "原文链接", "原文地址"),
        ("声明", "免责声明", "版权声明"),
    )
    + r"\s*[:：|丨/]"
)
_BOILERPLATE_MAX_CHARS = 80
# Photo captions and credit fragments: portals re-caption or drop pictures when they copy.
_CAPTION = re.compile(r"^(?:[▲△▼▽↑]|图为|图片来自|图片由|配图|视频截图|资料图)")
_TINY_LINE = 5  # a line this short is a name, a number or a caption, not the story
LONG_TEXT = 500  # characters: a text this long is a story, never only boilerplate
# Style sheets that leaked into the text: ".tech-con p{margin-bottom:20px;}", with the
# selector before the rule.
_CSS_RULE = re.compile(r"[#.a-z0-9_\s,>:-]{0,80}\{[^{}]*:[^{}]*;[^{}]*\}")
_CSS_SHARE = 0.5  # a line more than half style sheet is one; from a longer one only the rules go
_INLINE_EDITOR = re.compile(
    r"[(（\[【]\s*" + any_of(ORIGINAL_TITLE, EDITOR, SOURCE) + r"\s*[:：][^)）\]】\n]{0,60}[)）\]】]"
)
# Inline portal markup: sina's "[微博]" after every celebrity name, "[编者按]", "点击观看>>>…"
# with the video's title after it, or the call alone where a story runs on after it (a story
# delivered in one line).
_INLINE_MARK = re.compile(
    rf"\[[^\]\n]{{1,8}}\]|【[^】\n]{{1,8}}】|点击(?:观看|查看|进入)\s*>+(?:[^\n]{{0,{_BOILERPLATE_MAX_CHARS}}}$)?"
)
_END_MARK = re.compile(r"[(（]\s*完\s*[)）]\s*$")


def half_width(text: str) -> str:
    """Full-width ASCII (U+FF01-U+FF5E), the ideographic space and the no-break space as
    NFKC maps them, on the code points as a numpy array: four times faster than
    ``str.translate``."""
    points = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).copy()
    points[(points >= 0xFF01) & (points <= 0xFF5E)] -= 0xFEE0
    points[(points == 0x3000) | (points == 0xA0)] = 0x20
    return points.tobytes().decode("utf-32-le", "surrogatepass")


def nfkc(text: str) -> str:
    """``unicodedata.normalize("NFKC", text)``, faster for Chinese news: the compatibility
    characters most articles have (full-width ASCII, the ideographic and no-break spaces,
    the ellipsis: one in five sina articles) are mapped first, exactly as NFKC maps them;
    full NFKC runs only if anything else is left."""
    text = half_width(text).replace("\u2026", "...")
    return text if unicodedata.is_normalized("NFKC", text) else unicodedata.normalize("NFKC", text)


@functools.cache
def _opencc(config: str) -> Any:
    import opencc  # the native OpenCC: a 3,000-character article in 0.1 ms

    return opencc.OpenCC(config)


_NOT_HAN = re.compile("[^\u4e00-\u9fff]+")
# Han characters OpenCC's t2s changes: below 2% in nine of ten mainland articles (13% at most
# in 3,000 sina articles), over 21% in 99 of 100 of the same articles written in Taiwan's
# script (s2twp): a text past this share is traditional.
TRADITIONAL_SHARE = 0.15
SCRIPT_SAMPLE = 400  # characters read to tell the script


@functools.cache
def _traditional_only() -> re.Pattern[str]:
    """The Han characters t2s changes standing alone (3,563), as one character class.
    Counting them tells the script as t2s on the sample did (the same decision on 3,000 sina
    articles and their s2twp, s2hk and s2t versions) in a fifth of the time: the count is one
    C loop, where comparing t2s's output was a Python one."""
    chars = [chr(c) for c in range(0x4E00, 0xA000)]
    converted = str(_opencc("t2s").convert("\n".join(chars))).split("\n")
    return re.compile("[" + "".join(a for a, b in zip(chars, converted) if a != b) + "]")


def simplified(text: str) -> str:
    """A traditional-script text (Hong Kong, Taiwan, overseas outlets reprint mainland
    stories so) as mainland simplified Chinese: Taiwan's vocabulary (軟體 -> 软件, 網路 ->
    网络) by OpenCC's tw2sp, then Hong Kong's variant characters (衞 -> 卫) by hk2s, so that a
    reprint in either script has the original's words. A simplified text is left as it is
    (tw2sp would turn mainland phrases too)."""
    sample = text[:SCRIPT_SAMPLE]  # the script shows in its first lines: the rest is not read twice
    han = len(_NOT_HAN.sub("", sample))
    if not han:
        return text
    if len(_traditional_only().findall(sample)) < TRADITIONAL_SHARE * han:
        return text
    return str(_opencc("hk2s").convert(_opencc("tw2sp").convert(text)))


def normalize(text: str) -> str:
    """NFKC (full-width letters, digits and punctuation become half-width), traditional
    script as simplified, lower-case, invisible and control characters removed, runs of
    spaces collapsed, blank lines dropped."""
    text = _INVISIBLE.sub("", nfkc(text))
    text = _CONTROL.sub(" ", text.replace("\r\n", "\n").replace("\r", "\n"))  # no surrogate reaches OpenCC
    text = simplified(text).lower()
    lines = (_SPACES.sub(" ", line).strip() for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def is_boilerplate(line: str) -> bool:
    """True for a short line of reprint credits, editor names, photo captions or portal calls
    to action, for lines of five characters or fewer, and for a line of CSS (a short one with a
    rule in it, a longer one more than half rules)."""
    if len(line) <= _TINY_LINE or _css_share(line) > _CSS_SHARE:
        return True
    if "{" in line and len(line) <= _BOILERPLATE_MAX_CHARS and _CSS_RULE.search(line):
        return True  # a short line with a rule in it is page code
    if len(line) > _BOILERPLATE_MAX_CHARS:
        return False  # a caption that runs on is a story told in one line ("图为……，近日……")
    return bool(
        _CAPTION.match(line)
        or _BOILERPLATE_LINE.match(line)
        or CREDIT_LINE.match(line)
        or BOILERPLATE_PHRASE.search(line)
        or _END_MARK.fullmatch(line)
    )


def _css_share(line: str) -> float:
    """How much of ``line`` is style sheet rules."""
    if "{" not in line:
        return 0.0
    return sum(m.end() - m.start() for m in _CSS_RULE.finditer(line)) / max(len(line), 1)


def strip_boilerplate(normalized: str) -> str:
    """Drop boilerplate lines, style sheet rules, inline 原标题/责任编辑 notes, portal markers and
    reprint credits glued to a line's start or end (``credits.py``) from normalised text. A
    text of ``LONG_TEXT`` characters or more is never left empty: it is a story, whatever its
    lines look like (then it is kept as it is)."""
    lines = normalized.split("\n")
    kept = [line for line in lines if not is_boilerplate(line)]
    if not kept:  # every line went: a story told in a line that opens with a caption or a call to action
        kept = [rest for rest in map(_after_opening, lines) if rest]
    cleaned = (
        strip_glued_credits(
            _END_MARK.sub(
                "", _INLINE_MARK.sub("", _INLINE_EDITOR.sub("", _CSS_RULE.sub(" ", x) if "{" in x else x))
            ).strip()
        )
        for x in kept
    )
    out = "\n".join(line for line in cleaned if line)
    return out if out or len(normalized) < LONG_TEXT else normalized


_OPENING_MARK = re.compile(r"^[▲△▼▽↑]\s*")
# A caption's word or a call to action standing before the story, up to a space: "资料图 ",
# "点击上方“某某日报”关注我们 " (not a label's: "原标题：… " is a line of its own).
_FIRST_WORDS = re.compile(r"^\S+\s+")
_FIRST_SENTENCE = re.compile(r"^[^。！？!?]*[。！？!?]\s*")
# A credit before the story, its name ended by a space or its bracket: "来源：新华网 ", "【来源：新华网】".
_CREDIT_OPENING = re.compile(
    r"^[\[【(（]?\s*"
    + any_of(SOURCE, EDITOR, CHECKER, WRITER)
    + r"\s*[:：|丨/]\s*[^\s\]】)）]{1,16}(?:[\]】)）]\s*|\s+)"
)
_OPENINGS = 3  # a mark, a caption's word, a call to action: "▲资料图 …", "↑点击上方…关注我们 …"


def _openings_cut(text: str) -> Iterator[str]:
    """``text`` without one opening: its mark, its first words when they are a caption or a
    call to action, a credit, its first sentence."""
    yield _OPENING_MARK.sub("", text, count=1)
    words = _FIRST_WORDS.match(text)
    if words and (_CAPTION.match(words.group()) or BOILERPLATE_PHRASE.search(words.group())):
        yield text[words.end() :]
    yield _CREDIT_OPENING.sub("", text, count=1)
    yield _FIRST_SENTENCE.sub("", text, count=1)


def _after_opening(line: str) -> str:
    """``line`` without its opening (up to three: "▲ 资料图 市政府…" -> "市政府…", "↑ 点击上方
    蓝字关注我们。市政府…" -> "市政府…") once what follows is no boilerplate itself; else ""."""
    openings = [line]
    for _ in range(_OPENINGS):
        shorter = []
        for text in openings:
            for rest in _openings_cut(text):
                if rest and rest != text:
                    if not is_boilerplate(rest):
                        return rest
                    shorter.append(rest)
        openings = shorter
    return ""
