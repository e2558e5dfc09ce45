"""Pages in traditional characters (Taiwan, Hong Kong, overseas sites): their byline and
chrome labels (記者, 來源, 發佈時間, 責任編輯...) read as the simplified ones the rules are
written in. Each character maps to one, so what the rules find in the mapped text is taken
back from the same place in the page's own text."""

from __future__ import annotations

_LABELS = str.maketrans(
    "記編輯責來發佈時間閱讀覽瀏點擊數報導訊審關閉號體條頁評論網聞電視實習見員約寫圖攝轉載聲權歸錄總經連結稱後訂",
    "记编辑责来发布时间阅读览浏点击数报导讯审关闭号体条页评论网闻电视实习见员约写图摄转载声权归录总经连结称后订",
)
_SIGNS = ("這", "們", "個", "來", "時", "說", "為", "會", "發", "記", "與", "對", "從", "後", "國")
_SIGNS_MIN = 3  # occurrences of traditional-only characters that mark a page


def is_traditional(text: str) -> bool:
    """Whether ``text`` is written in traditional characters (a simplified page has none of
    the common ones in ``_SIGNS``)."""
    return sum(text.count(c) for c in _SIGNS) >= _SIGNS_MIN


def with_simplified_labels(text: str) -> str:
    return text.translate(_LABELS)


def as_written(found: str, mapped: str, original: str) -> str:
    """``found``, found in ``mapped`` (``original`` with simplified labels), in the page's own
    characters (as it is when it is not found there whole)."""
    at = mapped.find(found) if found else -1
    return original[at : at + len(found)] if at >= 0 else found
