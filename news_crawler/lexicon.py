"""The label words of Chinese news pages that both extraction (``extraction/``) and the
fingerprint's credit stripping (``fingerprint/``) read: one list of each, so that a label
learnt in one place is known in the other.

Each group is a tuple of words; ``any_of`` makes a regex alternation of groups, longest
word first, so that a label is never read as a shorter one (责任编辑, not 编辑).
"""

from __future__ import annotations

import re

# 责任编辑：王五 - the editor (the byline's, or the line closing the story).
EDITOR = ("责任编辑", "责编", "编辑")
# 来源：新华社 - the outlet a story comes from.
SOURCE = (
    "来源",
    "来源于",
    "稿件来源",
    "文章来源",
    "本文来源",
    "信息来源",
    "新闻来源",
    "消息来源",
    "稿源",
    "转自",
    "出处",
)
# 原标题：... - the headline the story had where it was first published.
ORIGINAL_TITLE = ("原标题", "原题", "原文标题")
# 作者：张三, 记者 李四 - the writer's labels.
WRITER = ("作者", "记者", "通讯员", "实习生", "撰文")
# 校对：赵六 - the other production credits a story closes with.
CHECKER = ("校对", "审核", "审校", "主编")

# "本报记者 王小红", "记者 李明 通讯员 赵培": a line that is only a writer's credit (above a
# story it leaves the body; a reprint adds or changes it, so the fingerprint leaves it out).
# Also after a mark or 文/ ("□本报记者 王小红", "文/本报记者 王小红", "摄影/本报记者 崔峻"), after
# an outlet or a dateline ("辽沈晚报、聊沈客户端记者 高鹏", "成都商报-红星新闻记者 欧鹏",
# "本报珠海专电 记者 褚鹏", "【本报讯】记者 陈大文", "香港01记者 陈大文"), with 作者 or 撰文
# ("本文作者：王小红"), a name padded ("本报记者 贾 丽"), the photographer's, the editor's and
# more reporters' credits after it ("实习记者 罗崇纬"), a note in brackets ("(责编：X)"); or
# "王小红 赵六 / 文"; or only labels and names ("文/张三 图/李四"); in brackets after a dateline or
# not ("本网讯 （通讯员 赵雅）", "（记者 周建国 通讯员 吴丽萍）").
_CREDIT_NAME = r"(?:[\u4e00-\u9fa5·]{2,4}|[\u4e00-\u9fa5][ \u3000]{1,2}[\u4e00-\u9fa5](?![\u4e00-\u9fa5]))"
CREDIT_LINE = re.compile(
    r"^[□■◎●○◆◇★☆※]?\s*+(?:(?:文|采写|专题采写|摄影|图|图文)\s*+[/／|｜:：]\s*+)?"
    r"[\u4e00-\u9fa5·、\-—/／ 【】\[\]0-9A-Za-z（(]{0,20}?(?:记者|通讯员|实习生|撰稿|撰文|作者)"
    rf"[\s\u3000:：]*+{_CREDIT_NAME}"
    r"(?:[\s\u3000、]++(?:(?:[\u4e00-\u9fa5/／]{0,8}?(?:记者|通讯员|实习生)|摄影|编辑|校对|文|图)[\s\u3000:：/／]*+)?"
    rf"{_CREDIT_NAME}){{0,4}}"
    # "记者 王小明／台北报导", "记者 刘闻超 发自广州"
    r"(?:[\s\u3000]*+[/／]?[\s\u3000]*+(?:[\u4e00-\u9fa5]{0,6}?(?:报道|报导)|发自[\u4e00-\u9fa5]{2,8}))?"
    r"(?:[\s\u3000]*+[（(][^（）()]{1,16}[）)])?[\s\u3000]*+[）)]?$"
    r"|^[\u4e00-\u9fa5·]{2,4}(?:[\s\u3000、]++[\u4e00-\u9fa5·]{2,4}){0,4}\s*+[/／]\s*+文$"
    # "文/张三 图/李四", "文｜张三", "撰文：张三 摄影：李四": the writer's and the photographer's labels
    r"|^(?:(?:文|图|文字|图片|撰文|摄影|图文)\s*+[/／|｜:：]\s*+"
    rf"{_CREDIT_NAME}(?:[\s\u3000、]++{_CREDIT_NAME}){{0,2}}[\s\u3000]*+){{1,3}}$"
)


def any_of(*groups: tuple[str, ...]) -> str:
    """A non-capturing regex alternation of the words of ``groups``, longest first."""
    words = sorted({w for group in groups for w in group}, key=lambda w: (-len(w), w))
    return "(?:" + "|".join(map(re.escape, words)) + ")"
