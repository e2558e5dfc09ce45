r"""Page chrome that readability leaves in a body: the headline and byline repeated at the
top, "原标题" notes, editor and source lines, previous/next and related-story links,
print/close tools, page numbers, a comment box, a platform's disclaimer. Older CMS layouts
(the article as ``<br>`` lines in a table cell) carry all of it inside the article's own
container. Only whole lines go, and only lines that are nothing else; what closes a story
(a comment box, a related-stories block, page numbers, a disclaimer, the site's footer)
ends the body there.

A page is untrusted: every pattern here runs in time linear in the line it is given (a run
of spaces is taken whole, ``\s*+``, where what follows cannot be a space; a pattern that may
start inside a run starts only at its beginning, ``(?<!\s)``), which
``tests/test_hostile_web.py`` checks with crafted lines.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from news_crawler.lexicon import CHECKER, CREDIT_LINE, EDITOR, SOURCE, any_of

_BYLINE = re.compile(
    r"^[【\[(（]?\s*+(?:" + any_of(SOURCE, EDITOR, CHECKER) + r"|发布时间|发布日期|发表时间|更新时间|时间|日期|"
    r"作者|点击数|点击|浏览次数|浏览|阅读|字号|字体|【字体|供稿|"
    r"责任校对|编审|终审|监制|值班编辑|美编|策划|统筹|文章作者|原作者|"
    r"文章录入|录入者?|发布者|发布人|发稿人|撰稿人?|更新日期|添加时间|上传时间|录入时间|来自|本文来自|值班主任|监审|"
    r"签发|初审|复审|标签|关键词|关键字|原创|Tags?)\s*+[:：|｜丨/]",
    re.IGNORECASE,
)
_NAV = re.compile(
    r"^[【\[]?\s*+(?:上一篇|下一篇|上一条|下一条|上一页|下一页|相关新闻|相关阅读|相关文章|相关链接|相关报道|推荐阅读|"
    r"热点推荐|延伸阅读|延伸\s*[·・]\s*推荐|此前报道|点击进入|分享到|返回顶部|打印本页|关闭窗口|【打印】|【关闭】|"
    r"返回[^\s，,]{1,8}[，,]?\s*+查看更多)"
    # "<< 返回上一页", "返回腾讯网首页>>", "返目录", "第1页/共1页", "<< 上一页 | 下一页 >>": a whole line
    r"|^[<«\s]*+返回?[^\s，。,]{0,8}?(?:首页|上一页|目录|列表|顶部)(?:下一页)?[>»\s]*+$"
    r"|^第\s*+\d++\s*+页\s*+[/／]?\s*+共\s*+\d++\s*+页$|^[<«\s]*+上一页\s*+[|｜]?\s*+下一页[>»\s]*+$"
)
_TOOLS = re.compile(
    r"^(?:[【\[]?\s*+(?:打印(?:此文|本文|本页)?|关闭(?:窗口|本页)?|(?:加入)?收藏(?:本文)?|分享|(?:我要)?纠错|挑错|返回|顶部|"
    r"大|中|小|字号|邀请|举报|点赞|转发|(?:发表|我要)?评论|告诉好友|推荐(?:给好友)?|复制链接|打赏|"
    r"微信|微博|QQ空间|QQ好友|扫一扫|微信扫一扫|扫一扫分享|展开全文|打开APP阅读全文|阅读原文|举报/反馈|反馈|"
    r"关注公众号|关注我们|长按二维码关注|长按识别二维码|关注)\s*+[:：]?+\s*+[】\]]?+\s*+[|｜/]?+\s*+)++$"
)
# A tool link before a line's chrome: "【我要纠错】 责任编辑：王五".
_TOOL_FIRST = re.compile(r"^[【\[]\s*+(?:我要纠错|纠错|打印|关闭|收藏|分享)\s*+[】\]]\s*+(?=\S)")
# Counters, one or several in any spacing: "阅读(123)", "浏览 78386点赞 559", "阅读 3.2万 在看 28",
# "阅读原文 阅读 3456 在看 28", "本文已被浏览 123 次", a gallery's "1/10". They change on every
# fetch: left in a body, a recheck would report an edit that never happened.
_ONE_COUNT = (
    r"(?:阅读|浏览|点击|喜欢|点赞|赞|收藏|分享|转发|在看|评论|播放|观看|围观)(?:量|数|次数)?+\s*+[:：]?+\s*+"
    r"[（(]?+\s*+\d++(?:\.\d++)?+\s*+(?:万|亿|[wWkK]\b)?+\+?+\s*+[）)]?+\s*+(?:次|人|条)?+"
)
_COUNTER = re.compile(
    r"^(?:(?:阅读原文\s*+)?+(?:" + _ONE_COUNT + r"\s*+)++"
    r"|本文已被(?:浏览|阅读|点击)\s*+\d++\s*+次|\d{1,3}\s*+/\s*+\d{1,3})$"
)
# ... or glued after the story's last sentence: "…持续向好。浏览 78386点赞 559".
_TRAILING_COUNTER = re.compile(r"(?<=[。！？!?”」])\s*+(?:" + _ONE_COUNT + r"\s*+)++$")
# A pager under a story that runs over pages: "1 2 下一页", "上一页 1 2 3 尾页", "[1] [2] [3]".
_PAGER = re.compile(
    r"^(?=.*\d)(?:(?:首页|上一页|下一页|尾页|末页|[<«»>]++|[【\[]?\d{1,3}(?!\d)[】\]]?)[ \t\u3000]*+){2,}+$"
)
# A video player's controls and messages inside the story's container, alone or run together:
# "00:00 / 02:35", "倍速 0.5x 1.0x 1.5x 2.0x", "高清 标清", "视频播放失败，请刷新重试",
# "您的浏览器不支持 video 标签".
_PLAYER = re.compile(
    r"^(?=.*[^\d:/|｜\s])(?:(?:倍速|倍数|(?:自动|继续|重新|小窗)?播放|暂停|重播|(?:退出|网页)?全屏|(?:取消)?静音|画中画|"
    r"清晰度|标清|高清|超清|蓝光|流畅|字幕|弹幕|音量|下一集|连播|\d(?:\.\d{1,2})?+[xX×倍]|\d{1,2}:\d\d(?::\d\d)?+|[/|｜])"
    r"[ \t\u3000]*+)++$"
    r"|^\d{1,2}:\d\d(?::\d\d)?+[ \t\u3000]*+/[ \t\u3000]*+\d{1,2}:\d\d(?::\d\d)?+$"
    r"|^(?:视频)?(?:播放|加载)失败[^。！？]{0,16}$|^视频(?:无法播放|不存在|已失效)[^。！？]{0,16}$"
    r"|^(?:您的|你的|当前)?浏览器(?:版本过低|暂?不支持)[^。！？]{0,40}$"
)
# Notices that are no part of the story: the original's link, a picture's credit, a video's
# placeholder, a wire story's end mark ((完), END), "see more", a gallery's "next picture", an
# account's name, a reprint's takedown notice, a divider (------分隔线------), an app's or an
# account's promotion (下载客户端…, 扫描二维码关注我们, 欢迎转发分享, 扫一扫，手机阅读), a blog's
# like box (赞过：, 正在加载……), an empty related block (没有相关文章), the page's own link
# (本文链接：), "转载请注明出处", an attachments' label with nothing after it, a line of
# topic tags only (#天文航天 #月球), a text-message service's ad (发送GP到6666 随时随地查行情).
_NOTICE = re.compile(
    r"^(?:原文链接\s*+[:：]|图片来源\s*+[:：]|图源\s*+[:：]|[（(【\[]?\s*+图片(?:均|皆)?来(?:源|自)于?网络\s*+[）)】\]]?$|"
    r"视频加载中|[（(【\[]\s*+完\s*+[）)】\]]$|(?:点击)?查看更多[^，,。！？]{0,8}$|(?:更多精彩(?:内容)?|(?:相关|更多)资讯)(?:请|敬请)?关注\s*+[:：]?[^，,。！？]{0,12}$|(?:分享|转发)让更多人看到$|发送[A-Za-z0-9]{1,8}到\d{3,8}[^。！？]{0,20}$|"
    r"本文来(?:源|自)于?网络.{0,20}侵权|(?:广告|广告位|推广|AD|Advertisement)$|[-—\s]*+(?:THE\s++)?END[-—\s]*+$|(?:#[^#\s]{1,20}+\s*+){2,}+$|"
    r"点击(?:图片|查看)?(?:进入下一页|查看大图|看大图)$|(?:微信号|公众号|微信公众号)\s*+[:：]\s*+\S{2,30}$|"
    r".{0,30}(?:如有|若有|如涉及|若涉及)侵权.{0,16}(?:联系|删除).{0,12}$|"
    r"(?=.*[-—─=_~*]{3})[-—─=_~*\s]*+(?:分隔线|分割线)?[-—─=_~*\s]*+$|"
    r"(?:下载|打开)\S{0,8}(?:客户端|APP|App|app)[，,]?.{0,12}$|"
    r"(?:长按|扫描|扫码|扫一扫)\S{0,6}关注.{0,10}$|欢迎(?:转发|分享|关注|转载)\S{0,6}$|"
    r"(?:赞过|喜欢此文的人)\s*+[:：]?$|\S{0,4}\s*+(?:正在加载|加载中)[.…。]*+$|(?:没有|暂无)相关\S{0,4}$|"
    r"本文(?:链接|地址|网址)\s*+[:：]|转载请注明(?:出处|来源)\S{0,10}$|(?:扫描|扫码|长按)\S{0,6}\s*+分享\S{0,6}$|"
    r"(?:用?手机)?(?:扫描|扫码|扫一扫)\S{0,6}?[，,\s]*+(?:用?手机|在手机上)\s*+(?:阅读|浏览|打开|查看|观看)\S{0,6}$|"
    r"(?:相关)?附件(?:下载)?\s*+[:：]$)"
)
_SIGNED = re.compile(r"(?:19|20)\d\d\s*+年\s*+\d{1,2}\s*+月\s*+\d{1,2}\s*+日$")
# "《某某日报》（2019年08月28日 第03版）": a paper's issue and page.
_EDITION = re.compile(
    r"^《[^》]{2,16}》\s*+[（(]?\s*+\d{4}\s*+年\s*+\d{1,2}\s*+月\s*+\d{1,2}\s*+日\s*+(?:第?\s*+\d{1,3}\s*+版)?\s*+[）)]?$"
)
# "——记某某市的一年": a subtitle under the headline, above the story; "【新春走基层】": a column's tag.
_SUBTITLE = re.compile(r"^(?:——|--|—)\s*[^。！？!?]{2,40}$|^【[^】]{2,12}】$")
# "摘要: 美国男星……", "【导读】……": a lead the page labels above the story: it stays, as the story's.
_SUMMARY = re.compile(r"^[【\[]?\s*+(?:摘要|内容摘要|内容提要|导读|核心提示|导语)\s*+[】\]]?+\s*+[:：]?+\s*+(.{8,})$")
# "（原标题：……）", "（原题为《……》）", a short "原标题：……" line: the portal's note of the headline
# it replaced (a longer unbracketed one may run into the story's first sentence).
_ORIGINAL_TITLE = re.compile(r"^[（(]\s*+原(?:标)?题(?:为)?\s*+[:：《].{0,110}[）)]$|^原(?:标)?题\s*+[:：].{0,45}$")
# "2005-04-05 06:40更新 来源：新闻晨报", "2019-03-01 10:00:00": a byline that starts with its date.
# "2019-12-21 08:38 新华社 文/王小红": a time of day, then an outlet and a credit, no sentence;
# "孙悦2019-12-21 22:20阅读 3.2万": a writer or an account before it.
_DATED_BYLINE = re.compile(
    r"^[\d\s:./年月日-]{8,}+(?:更新|发布|发表)?+\s*+(?:$|"
    + any_of(SOURCE, EDITOR, ("作者", "点击", "浏览", "阅读"))
    + r"\s*+[:：])"
    r"|^(?:[\u4e00-\u9fa5A-Za-z·_]{2,12}\s*+)?\d{4}[-/.年]\d{1,2}[-/.月]\d{1,2}日?\s*+\d{1,2}:\d\d(?::\d\d)?"
    r"[^，。！？；,;!?]{0,40}$"
    r"|^(?:发布于|发表于|更新于)\s*+\d{4}[-/.年][^，。！？；,;!?]{0,60}$"
)  # a blog's "发布于 2019年3月1日 作者 X"
# "（来源：现代快报）“爸爸妈妈……": a credit glued before the story's first sentence; it goes, the
# sentence stays.
_LEADING_CREDIT = re.compile(r"^\s*+[（(]\s*+(?:来源|作者|记者|编辑|图|摄影)\s*+[:：][^（）()\n]{1,20}[）)]\s*+(?=\S)")
# "（编辑 李明）": an editor's credit in brackets, a line of its own.
_EDITOR_BRACKETED = re.compile(
    r"^[（(\[【]\s*+(?:责任编辑|责编|编辑)[\s:：]++[\u4e00-\u9fa5·]{2,4}(?:[\s、][\u4e00-\u9fa5·]{2,4}){0,2}\s*+[）)\]】]$"
)
_TRAILING_EDITOR = re.compile(
    r"(?<!\s)\s*+[（(\[【]\s*+(?:(?:责任编辑|责编)(?:\s*+[:：]|\s++)|编辑\s*+[:：])[^）)\]】\n]{1,30}[）)\]】]\s*+$"
)
# "责任编辑 王五", "编辑 刘晓阳 校对 李铭": the desk's credits, labels and names only, no colon.
_EDITOR_LINE = re.compile(
    r"^(?:(?:责任编辑|责编|" + any_of(CHECKER, ("美编", "监制")) + r")[ \t\u3000]++[\u4e00-\u9fa5·]{2,8}"
    r"(?:[ \t\u3000]++[\u4e00-\u9fa5·]{2,4}){0,2}+[ \t\u3000]*+"
    r"|编辑[ \t\u3000]++[\u4e00-\u9fa5·]{2,4}[ \t\u3000]++(?=" + any_of(CHECKER, ("美编", "监制")) + r"))++$"
)
# Lines after which nothing is the story's, when they stand in the body's second half: a
# comment box, the article's page numbers (【1】【2】【3】), a platform's disclaimer.
_CLOSERS = re.compile(
    r"^(?:(?:网友评论|发表评论|我要评论|相关评论|全部评论|最新评论|热门评论|评论|评论区|网友留言)\s*+[:：]?+\s*+"
    # 发表评论 共有2条评论, 评论(15)
    r"(?:(?:共有?|已有)\s*+\d++\s*+条(?:评论)?)?+\s*+(?:[（(][^（）()]{0,60}[）)])?+\s*+$"
    r"|(?:共有?|已有)\s*+\d++\s*+(?:条评论|人参与(?:评论)?|人评论)\s*+$"
    r"|(?:[【\[]\s*+\d{1,2}\s*+[】\]]\s*+){2,}+$"
    r"|(?:特别声明|免责声明|版权声明)\s*+(?:[:：]|$)|Notice: The content above|图片来自网络"
    r"|本文为\S{1,8}号作者或机构在\S{1,8}上传并发布"  # a platform's disclaimer (澎湃号, 网易号)
    r"|声明\s*+[:：]\s*+\S{0,12}?(?:本文|该文|本站|本网|以上|此文|文章|稿件|转载|力求|不构成))"
)
# A site's footer (copyright, ICP licence, site code, "Powered by" its CMS, 技术支持): what a
# whole-table body ends with.
# A sentence that names a licence number is the story's.
_FOOTER = re.compile(
    r"^(?:版权所有|Copyright\b|©\s*+\d{4}|Powered\s++by\b|技术支持\s*+[:：]|(?:联系|关于)我们(?:\s|$|[|｜]))"
    r"|©\s*+(?:19|20)\d\d"
    r"|(?:ICP[备证]\s*+\d|公网安备\s*+\d|网站标识码|版权所有|(?:违法和?不良信息|有害信息)?举报(?:电话|邮箱|中心|专区)"
    r"|(?:新闻|信息服务|视听节目)\S{0,8}许可证|许可证编号|互联网宗教信息服务)(?!.*[。！？][”」』）)]*$)",
    re.IGNORECASE,
)
# A related-stories block (or a sidebar's list): the end of the body when no paragraph of the story follows it
# (sina puts such blocks mid-story too); else only its header line goes (see _NAV).
_RELATED = re.compile(
    r"^[【\[]?\s*+(?:延伸阅读|相关阅读|相关新闻|相关文章|相关报道|推荐阅读|热点推荐|猜你喜欢|延伸\s*+[·・]\s*+推荐|"
    r"点击进入专题|点击排行|热门文章|最新文章|推荐文章|精彩推荐|热点新闻|热门推荐|图片新闻|相关推荐|为你推荐|更多推荐)\s*+[】\]]?+\s*+[:：]?+\s*+$"
)
# ... or its label and headlines run into one line (<b>相关文章</b><a>…</a><a>…</a>): no sentence ends in it.
_RELATED_RUN = re.compile(
    r"^[【\[]?\s*+(?:延伸阅读|相关阅读|相关新闻|相关文章|相关报道|推荐阅读|热点推荐|猜你喜欢)\s*+[】\]]?+\s*+[:：]?+"
    r"[^。！？]{8,}$"
)
# A line after a related block that ends a sentence is the story going on. Related
# headlines and their cut-off summaries do not end with 。, and one that asks (…好看吗？)
# is short and has no pause inside; a paragraph has a comma or runs longer. One that asks
# with a pause inside (…两个故事，赖声川咋做的？) is a headline still under 40 characters.
_PARAGRAPH_END = re.compile(r"(?:(?P<stop>[。！!])|[？?])[”」』）)]?$")
_PAUSE = re.compile(r"[，,；;。]")
_SPACE = re.compile(r"\s+")
# A picture's caption, 图为表彰大会现场。 (the image's ``caption``; a longer line is the story's).
_CAPTION = re.compile(r"^(?:图为|[（(]图[)）]|上图[：:为]|下图[：:为])\S")
# A wiki's maintenance banner (本条目需要补充更多来源) and its sections' [编辑] links.
_WIKI_BANNER = re.compile(
    r"^(?:本条目|此条目|本條目|此條目|这篇文章|這篇文章)(?:需要|可能|存在|缺少|没有|沒有|包含|中的|的).{0,80}$"
)
_WIKI_EDIT = re.compile(r"(?<=\S)\s*+\[\s*+(?:编辑|編輯|编辑源代码|編輯原始碼|edit)\s*+\]$", re.IGNORECASE)
_BRACKETED = re.compile(r"^[（(].*[）)]$")
CHROME_MAX_CHARS = 80  # a longer line is text, whatever it starts with
FOOTER_MAX_CHARS = 200  # a site's footer runs its licence numbers and rights into one line
HEADLINE_WITHIN = 6  # lines: a headline this near the top of a body starts the story


_BADGES = ("原创", "独家", "首发")  # a platform's badge before a headline: "原创最不愁吃肉的国家…"


def same_headline(line: str, title: str) -> bool:
    """``line`` is the headline ``title``, however its spaces were written (an ideographic
    space, a no-break space, none), maybe after a platform's badge (原创)."""
    line, title = _SPACE.sub("", line), _SPACE.sub("", title)
    return bool(title) and (line == title or line.startswith(_BADGES) and line[2:] == title)


def is_chrome(line: str, title: str = "") -> bool:
    if _ORIGINAL_TITLE.match(line):
        return True
    if len(line) > CHROME_MAX_CHARS:
        return False
    if _TOOL_FIRST.match(line):
        return is_chrome(_TOOL_FIRST.sub("", line), title)
    return bool(
        same_headline(line, title)
        or _BYLINE.match(line)
        or _DATED_BYLINE.match(line)
        or _NAV.match(line)
        or _TOOLS.match(line)
        or _NOTICE.match(line)
        or _EDITOR_LINE.match(line)
        or _EDITOR_BRACKETED.match(line)
        or _COUNTER.match(line)
        or _PAGER.match(line)
        or _PLAYER.match(line)
        or _CAPTION.match(line)
        or _WIKI_BANNER.match(line)
    )


def strip_chrome(body: str, title: str = "", summary: str = "", links: frozenset[str] = frozenset()) -> str:
    """``body`` without chrome lines and trailing （责任编辑：...） notes, from after the headline
    when it stands in the first lines, cut where a comment box, related stories, page
    numbers, a disclaimer or the site's footer begin in its second half (of its lines, or of
    its text). ``summary``: the page's description meta tag, which a CMS's summary box above
    the story shows again; ``links``: the texts of the page's links, spaces removed (a related
    block's headlines)."""
    lines = body.split("\n")
    if title:  # menu or breadcrumb lines above the headline are not the story's
        head = next((i for i, line in enumerate(lines[:HEADLINE_WITHIN]) if same_headline(line, title)), -1)
        lines = lines[head + 1 :]
    total, before = sum(len(line.strip()) for line in lines), 0
    for i, line in enumerate(lines):
        line = line.strip()
        # In the second half: of the lines, or of the text (a story of a few long lines).
        second_half = i > 0 and (i >= len(lines) // 2 or 2 * before >= total)
        before += len(line)
        if not second_half:
            continue
        if (
            _CLOSERS.match(line)
            or (len(line) <= FOOTER_MAX_CHARS and _FOOTER.search(line))
            or ((_RELATED.match(line) or _RELATED_RUN.match(line)) and not _story_goes_on(lines[i + 1 :], title, links))
        ):
            lines = lines[:i]
            break
    lines = [_LEADING_CREDIT.sub("", line) for line in lines]
    kept, story = [], False
    for line in _without_head_notes(lines, title, summary, links):
        text = line.strip()
        # A date in 年月日 alone under the story's paragraphs is a notice's signature (落款);
        # above them it is a byline's.
        if text and (not is_chrome(text, title) or story and _SIGNED.match(text)):
            kept.append(_WIKI_EDIT.sub("", _TRAILING_COUNTER.sub("", _TRAILING_EDITOR.sub("", line))))
            story = story or is_paragraph(text)
    # a credit in brackets closing the story, a line of its own: （记者 周建国 通讯员 吴丽萍）
    while kept and _BRACKETED.match(kept[-1].strip()) and CREDIT_LINE.match(kept[-1].strip()):
        kept.pop()
    return "\n".join(_without_linked_tail(kept, links))


LINK_TAIL_MAX_CHARS = 10  # beside a linked headline: its column's name, its date, a count


def _without_linked_tail(lines: list[str], links: frozenset[str]) -> list[str]:
    """``lines`` without the run of two or more lines that ends them when each is another
    story's listing: one of the page's ``links`` with at most a column's name or a date
    after it, or a headline whose column's name after it is the link (an unlabelled block of
    other stories under the story: 【深度】越南拒用中国5G…大参考)."""
    end = len(lines)
    while end > 0 and _listing(lines[end - 1], links):
        end -= 1
    return lines[:end] if len(lines) - end >= 2 else lines


def _listing(line: str, links: frozenset[str]) -> bool:
    text = "".join(line.split())
    if not links or len(text) > CHROME_MAX_CHARS or is_paragraph(line.strip()):
        return False
    linked_headline = any(text[:k] in links for k in range(len(text), max(5, len(text) - LINK_TAIL_MAX_CHARS - 1), -1))
    linked_column = any(text[-k:] in links for k in range(2, min(LINK_TAIL_MAX_CHARS, len(text) - 6) + 1))
    return linked_headline or linked_column


def _story_goes_on(lines: list[str], title: str, links: frozenset[str] = frozenset()) -> bool:
    """A paragraph of the story stands in ``lines`` (after a related block), before a
    comment box or the like closes the page. A paragraph right under a line that is one of
    the page's ``links`` is a related headline's summary, not the story."""
    under_link = False
    for line in (x.strip() for x in lines):
        if _CLOSERS.match(line):
            return False
        if is_paragraph(line) and not is_chrome(line, title) and not under_link:
            return True
        if line:
            under_link = "".join(line.split()) in links
    return False


def is_paragraph(line: str) -> bool:
    """A line that ends a sentence as a paragraph does: with a full stop after a pause, or
    after 40 characters; with a question mark after 40 (one line, 20 characters or more)."""
    end = _PARAGRAPH_END.search(line) if len(line) >= 20 and "\n" not in line else None
    if end is None:
        return False
    return end.start() >= 40 or bool(end.group("stop")) and _PAUSE.search(line, 0, end.start() - 1) is not None


def _without_head_notes(
    lines: list[str], title: str, summary: str = "", links: frozenset[str] = frozenset()
) -> list[str]:
    """``lines`` without a subtitle (——…), a column's tag, a writer's credit, a paper's issue
    line, a line that is one of the page's ``links`` (a video's, another story's) or an
    unlabelled summary box of the story's own words (its lead's first words, cut off; or the
    page's ``summary`` whole, over a first paragraph it is all of) standing above the story,
    under the headline and its byline; a labelled lead (导读, 摘要, 核心提示) stays. (Under the
    story, labelled pages count credits and issue lines as the story's.)"""
    stated = "".join(summary.split())
    start = 0  # lines before it are notes taken off (an index: a page of many costs one pass)
    while True:
        first = next(
            (i for i in range(start, len(lines)) if lines[i].strip() and not is_chrome(lines[i].strip(), title)),
            len(lines),
        )
        line = lines[first].strip() if first < len(lines) else ""
        after = (lines[i] for i in range(first + 1, len(lines)))
        following = next((lines[i] for i in range(first + 1, len(lines)) if lines[i].strip()), "")
        described = bool(stated) and "".join(line.split()) == stated == "".join(following.split())
        if (
            _SUBTITLE.match(line)
            or CREDIT_LINE.match(line)
            or _EDITION.match(line)
            or _summary_box(line, after)
            or described
            or "".join(line.split()) in links
        ):
            start = first + 1
        else:
            return lines[start:]


LEAD_ABOVE_WITHIN = 20  # lines: how far above the story a headline and its labelled lead may stand


def with_lead_above(body: str, text: str, title: str) -> str:
    """``body`` with the lead the page labels (摘要, 导读, 核心提示) in a box of its own between
    the headline and the story (a journal's abstract, a portal's summary box outside the
    story's element) put back at its top: it is the story's, as it is when the box stands
    inside. A box that repeats the story's first words, cut off, is no lead; one that stands
    anywhere but under the headline (a sidebar's) is not looked at."""
    first = next((line.strip() for line in body.split("\n") if line.strip()), "")
    lines = [line.strip() for line in text.split("\n")]
    try:
        start = lines.index(first) if first and title else -1
    except ValueError:
        return body
    lead = ""
    for line in reversed(lines[max(0, start - LEAD_ABOVE_WITHIN) : max(0, start)]):
        if same_headline(line, title):
            return f"{lead}\n{body}" if lead else body
        found = _SUMMARY.match(line)
        if not lead and found is not None and not _summary_box(line, body.split("\n")):
            lead = line if found.group(1).strip() not in body else ""
    return body


def labelled_lead(body: str) -> str:
    """The lead the page labels at the story's top ("【导读】……", "核心提示：……"), without
    its label: the article's summary where the page's markup gives none ("" when none)."""
    for line in [x.strip() for x in body.split("\n") if x.strip()][:3]:
        lead = _SUMMARY.match(line)
        if lead is not None:
            return lead.group(1).strip()
    return ""


def _summary_box(line: str, after: Iterable[str]) -> bool:
    """A CMS's summary box: the story's first words again, cut off (labelled 摘要 or not). A
    labelled lead (导读, 摘要, 核心提示) that ends its sentence is the story's and stays."""
    lead = _SUMMARY.match(line)
    if lead is None:
        return _repeats_lead(line, after)
    text = lead.group(1).strip()
    cut = text.endswith(("…", "...", "。。")) or not text.endswith(("。", "！", "？", "”", "!", "?"))
    return cut and _repeats_lead(text, after)


def _repeats_lead(line: str, after: Iterable[str]) -> bool:
    """``line`` is the story's first words again (a CMS's summary box, cut off at some length,
    "……" and all, maybe past the first paragraph): the lines after it begin with it (read
    only as far as needed). A line the same as the next one is not taken for one (a
    paragraph may be repeated)."""
    cut = "".join(line.split()).rstrip(".…。")
    story, next_line = "", None
    for x in after:
        if not x.strip():
            continue
        if next_line is None:
            next_line = "".join(x.split()).rstrip(".…。")
        if len(story) > len(cut):
            break
        story += "".join(x.split())
    return len(cut) >= 8 and len(story) > len(cut) and story.startswith(cut) and next_line != cut
