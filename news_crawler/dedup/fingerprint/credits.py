"""Reprint credits glued to a story's text, with no line break to tell them apart.

Portals add or change a dateline, a source, the original headline, an editor or a call to
action when they copy a story; corpora and some pages deliver text flat, so these sit at
the start or the end of the first or last paragraph rather than on lines of their own.
The lead weighting of the fingerprint magnifies whatever stands at the start, so they are
cut off here: at the start, ``新华社北京11月22日电（记者 XXX）``, ``本报讯``, ``来源：XX
2019-03-05 10:32``, ``新浪娱乐讯``, ``原标题：...`` followed by a source or a dateline,
``【转载】``, a reporter's credit (``澎湃新闻记者 陈宇曦 综合报道``); at the
end, ``责任编辑：XXX``, ``（完）``, and short sentences of portal boilerplate.

Input is normalised text (``text.normalize``: NFKC, lower case), so ``：（）`` are ``:()``.
"""

from __future__ import annotations

import re

from news_crawler.lexicon import EDITOR, ORIGINAL_TITLE, SOURCE, any_of

# Portal calls to action and rights notices: a line that holds one is boilerplate (``text.py``),
# and one glued to a paragraph's end is cut off here.
BOILERPLATE_PHRASE = re.compile(
    r"公众号|扫码|扫描二维码|二维码|客户端|下载app|点击进入|点击查看|点击阅读|阅读原文|"
    r"版权所有|未经授权|未经许可|不得转载|禁止转载|转载请注明|欢迎转发|分享到|"
    r"关注我们|本文系|本文为|投稿邮箱|举报电话|违法和不良信息|返回搜狐|查看更多"
)

_OUTLET = r"[\u4e00-\u9fffa-z0-9·]{1,12}?(?:新闻|网|报|社|台|刊|号)(?:客户端|app|网站|官网|网|频道)?"
# A source's date: numeric (2019-03-05, 2019/3/5), or 2019年3月5日 only with a time after it
# (a story may well open with a date of its own: "1986年3月28日，...").
_WHEN = (
    r"(?:\s*\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:\s*\d{1,2}:\d{2}(?::\d{2})?)?"
    r"|\s*\d{4}年\d{1,2}月\d{1,2}日\s*\d{1,2}:\d{2}(?::\d{2})?)?"
)
_SOURCE = any_of(SOURCE) + r"\s*[:|]\s*"
_DATELINE = r"[\u4e00-\u9fff]{0,10}?\d{1,2}月\d{1,2}日(?:电|讯)"
_LEAD = re.compile(
    r"^\s*(?:"
    r"【转载】|\[转载\]|" + _SOURCE + _OUTLET + _WHEN + r"|" + _DATELINE + r"(?:\s*\([^()]{0,30}\))?|"
    r"本报讯(?:\s*\([^()]{0,30}\))?|"
    r"[\u4e00-\u9fff]{2,8}讯(?=\s)|"
    r"\((?:记者|通讯员|实习生|作者|撰文|文字|文|图)[/:\s][^()]{0,30}\)|"
    # a reporter's credit, the names between spaces: "澎湃新闻记者 陈宇曦 综合报道", "本报记者 谷枫 北京报道"
    r"[\u4e00-\u9fff·、-]{0,12}?(?:记者|通讯员|实习生)(?:\s[\u4e00-\u9fff·]{2,4}){1,5}\s"
    r"(?:发自[\u4e00-\u9fff]{2}|[\u4e00-\u9fff]{0,6}?报道)?"
    r")[\s,，:]*"
)
# The original headline has no end mark of its own: it ends where a source or a dateline
# starts, or at the first space. (A headline with spaces in it, glued to the story with
# nothing after it but the story, cannot be told apart from the lead: it stays.)
_ORIGINAL_TITLE = re.compile(
    r"^\s*" + any_of(ORIGINAL_TITLE) + r"\s*:\s*(?:.{1,60}?(?=" + _SOURCE + "|" + _DATELINE + r")|\S{1,40}(?=\s))\s*"
)
_TAIL = re.compile(
    r"(?<!\s)\s*+(?:"
    + any_of(EDITOR, ("校对",))
    + r"\s*+:\s*+(?:[\u4e00-\u9fff·]{2,4}(?:\s*+[a-z]{1,4}\d{1,6})?)?|\(完\))\s*+$"
)
# Calls to action portals glue to a story's end start with one of these words.
_CALL = re.compile(r"关注|扫码|扫描|点击|下载|欢迎|返回|查看|版权|未经|举报|转载|更多|阅读原文|投稿")
_SENTENCE_END = re.compile(r"[。!?]")
TAIL_MAX = 40  # a call to action is short: a longer tail is the story, whatever it mentions


def _strip_lead(line: str) -> str:
    while True:
        cut = _ORIGINAL_TITLE.sub("", _LEAD.sub("", line, count=1), count=1)
        if cut == line:
            return line
        line = cut


def _call_to_action_at(line: str) -> int:
    """Where a call to action glued to the end of ``line`` starts, or -1."""
    start = max(0, len(line) - TAIL_MAX)
    for m in _CALL.finditer(line, start):
        rest = line[m.start() :]
        phrase = BOILERPLATE_PHRASE.search(rest)
        if phrase and not _SENTENCE_END.search(rest, 0, phrase.start()):  # the call's own sentence
            return m.start()
    return -1


def _strip_tail(line: str) -> str:
    while True:
        credit = _TAIL.search(line, max(0, len(line) - TAIL_MAX))  # only the end: a long line is not scanned
        cut = line[: credit.start()] if credit else line
        at = _call_to_action_at(cut)
        cut = (cut[:at] if at >= 0 else cut).rstrip()
        if cut == line:
            return line
        line = cut


def strip_glued_credits(line: str) -> str:
    """``line`` without the reprint credits glued to its start and end."""
    return _strip_tail(_strip_lead(line))
