"""Pages that say their content was taken down: 该内容已被删除, 页面不存在, 文章已删除,
此内容因违规无法查看 and the other forms sites use.

A notice names what is gone (内容, 文章, 页面, 信息, 帖子, 稿件, 链接...) and what befell it
(删除, 移除, 撤下, 屏蔽, 下线, 不存在, 失效, 无法查看...), a few characters apart; or it is a
404 page that says so. The class is matched, not a list of sentences. A page that only
mentions such words is not a notice by this alone: ``rechecks`` asks too whether the article
it had is still on the page.
"""

from __future__ import annotations

import re

_WHAT = r"(?:内容|文章|页面|网页|信息|新闻|稿件|帖子|资讯|链接|作品|视频|动态|报道|博文|微博|消息|该条|此条|原文)"
_GONE = (
    r"(?:(?:已经?|已被|被)[^，。！!,.\s]{0,8}?(?:删除|移除|撤下|撤回|撤销|屏蔽|下线|下架|关闭|隐藏|清除|处理)"
    r"|(?:已经?)?(?:不存在|失效|过期|撤稿|删除)"
    r"|(?:暂时)?(?:无法|不能|不予|不可)(?:查看|访问|显示|浏览|打开|阅读)"
    r"|(?:找不到|未找到|走丢了|去火星了))"
)
NOTICE = re.compile(
    rf"{_WHAT}[^，。！!？?,.\n]{{0,12}}?{_GONE}"
    r"|(?:404|４０４)\s*(?:not\s*found|错误|页面|error)"
    r"|page\s+(?:not\s+found|(?:has\s+been\s+)?removed)|page[^.]{0,40}?(?:was\s+)?not\s+found|(?:content|article|post)\s+(?:has\s+been|was)\s+(?:removed|deleted)",
    re.I,
)


def removal_notice(*texts: str) -> str:
    """The first words of ``texts`` (a title, a page's text) that say its content is gone, or ""."""
    for text in texts:
        match = NOTICE.search(text or "")
        if match:
            return match.group(0)
    return ""
