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


def any_of(*groups: tuple[str, ...]) -> str:
    """A non-capturing regex alternation of the words of ``groups``, longest first."""
    words = sorted({w for group in groups for w in group}, key=lambda w: (-len(w), w))
    return "(?:" + "|".join(map(re.escape, words)) + ")"
