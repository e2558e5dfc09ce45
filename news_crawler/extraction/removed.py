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

_WHAT = r"(?:内容|文章|页面|网页|信息|新闻|稿件|帖子|主题|资讯|链接|作品|视频|动态|报道|博文|微博|消息|该条|此条|原文)"
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


# An error a site shows in place of a page: 错误的版面参数, 参数错误, 系统繁忙, 无权访问. Not a
# removal (a recheck must not take a busy server for a deleted story), but no article either.
ERROR = re.compile(
    r"(?:错误|无效|非法)的?[^，。！!\s]{0,6}?(?:参数|请求|地址|链接|网址)|参数(?:错误|有误|不正确|不合法)"
    r"|(?:系统|服务器|网站)(?:繁忙|错误|出错|维护中?)|(?:访问|请求)(?:出错|失败|受限|被拒绝)|(?:无权|没有权限)(?:访问|查看)"
    r"|^\s*+(?:40[034]|50[0234])\s*+(?:$|错误|页面|error|not|forbidden|bad|internal|service)|\b(?:Not\s+Found|Forbidden|Bad\s+Request|Internal\s+Server\s+Error|Access\s+Denied)\b",
    re.I,
)
NOTICE_PAGE_MAX_CHARS = 300  # a page with a longer text is an article, whatever its first words say
NOTICE_LINES = 2  # a notice says so in the title or the first lines of what the page shows
NOTICE_WITHIN = 12  # characters: ... at their start (抱歉，您访问的页面不存在), not in a story's sentence


def notice_page(title: str, body: str) -> str:
    """The words by which a page with a short text (an error page, a removal notice: 页面不存在,
    错误的版面参数, 404) says it holds no article, in its ``title`` or the first lines of its
    ``body``, at their start; "" for an article, however short, that only mentions such words
    further on (网曝动画被下架 页面显示无法观看 is a headline about a notice)."""
    if len(body.strip()) > NOTICE_PAGE_MAX_CHARS:
        return ""
    for text in (title, *[line for line in body.splitlines() if line.strip()][:NOTICE_LINES]):
        for pattern in (NOTICE, ERROR):
            match = pattern.search(text, 0, NOTICE_WITHIN + 40)
            if match and match.start() <= NOTICE_WITHIN:
                return match.group(0)
    return ""
