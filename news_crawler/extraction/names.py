"""What a byline's words name: the rules that tell a writer's name from the labels, counters,
tool words, places and outlets a byline runs into (``metadata.py`` finds the bylines)."""

from __future__ import annotations

import re

from news_crawler.lexicon import EDITOR, ORIGINAL_TITLE, SOURCE, WRITER

SEP = r"(?:[ \u3000\u2002\u2003、，,]++)"
NOT_NAMES = {
    *EDITOR,
    *SOURCE,
    *ORIGINAL_TITLE,
    *WRITER,
    "本报",
    "新华社",
    "中新网",
    "发布",
    "时间",
    "日期",
    "整合",
    "编译",
    "图片",
    "视频",
    "摄影",
    "报道",
    "报导",
    "综合",
    "整理",
    "新闻",
    "图文",
    "组图",
    "全文",
    "原创",
    "转载",
    "专题",
    "文章",
    "最新文章",
    "匿名",
    "佚名",
    "网友",
    "游客",
    "未知",
    "不详",
    "暂无",
    "无",
    "未署名",
    "不署名",
    "小编",
    "admin",
    "Admin",
    "ADMIN",
    "administrator",
    "Administrator",
    "作者：未知",
    "英文",  # a link's language: "（英文）", "（朝鲜文）"
    "中文",
    "日文",
    "韩文",
    "朝鲜文",
    "法文",
    "德文",
    "俄文",
    "英语",
    "日语",
    "韩语",
    "朝鲜语",
    "法语",
    "德语",
    "俄语",
    "简体",
    "繁体",
    "简体中文",
    "繁体中文",
    "首页",
    "正文",
    "返回",
    "登录",
    "注册",
    "搜索",
    "导航",
    "视觉中国",
    "东方IC",
    "图虫创意",  # photo agencies
    # an agency's or a paper's short name closing a story in brackets: "（新华）", "（中新）"
    "新华",
    "中新",
    "央视",
    "央广",
    "国新",
    "人民",
    "光明",
    "中青",
    "北青",
    "新京",
    "澎湃",
    "环球",
    "法制",
    # a time told relatively under the headline ("昨天", "刚刚"), where a byline may stand
    "今天",
    "昨天",
    "前天",
    "今日",
    "昨日",
    "刚刚",
    "刚才",
    "完",  # a wire story's end mark: "（全文完）"
    "全文完",
    # a section's heading standing alone under the headline
    "前言",
    "引言",
    "序言",
    "题记",
    "摘要",
    "提要",
    "导读",
    "导语",
    "按语",
    "编者按",
    "背景",
    "概述",
    "简介",
    "目录",
    "附件",
    "说明",
    "注释",
    "后记",
    # a button's or a tool's label beside a byline, never a writer: 播报文章 (text to speech), 阅读整篇文章
    "分享",
    "收藏",
    "打印",
    "关闭",
    "评论",
    "点赞",
    "关注",
    "举报",
    "纠错",
    "转发",
    "订阅",
    "下载",
    "播报",
    "播报文章",
    "朗读",
    "听新闻",
    "阅读全文",
    "阅读原文",
    "展开全文",
    "阅读整篇文章",
    "閱讀整篇文章",
    "閱讀全文",
}
# "转载请注明", "网络整理", "系统管理员", "刘通摄" (a photo credit), "视频截图", "发布于 2019-...", "著名评论家".
_NOT_NAME_STARTS = ("转载", "版权", "本文", "本站", "原文", "网络", "系统", "管理", "著名")
# A document's kind heading its text ("通知", "公告", "倡议书", "新闻稿") names no one either.
_DOCUMENT_KINDS = tuple(
    "通知 公告 通告 声明 倡议 倡议书 新闻稿 启事 公示 通报 决定 意见 办法 批复 报告 纪要 简报 须知 方案 规定 "
    "细则 章程 条例 告知书 公开信".split()
)
# A person's title is no name: "特约撰稿：暨南大学教授、著名评论家罗立群" (the name comes after it).
_TITLES = ("教授", "研究员", "评论家", "院士", "博士", "专家", "学者")
_NOT_NAME_ENDS = ("摄", "截图", "供图", "配图", "于", "管理员", *_DOCUMENT_KINDS, *_TITLES)
# 央视新闻, 新华社客户端, 第一财经, 中国经济在线: the words an outlet's name ends with, never a
# person's; and an institution's (北京大学, 社科院, 协和医院) after a writer's name: "（王五 北京大学）".
_PLACE_END = re.compile(
    r"(?:[县市省区镇村报网社台刊院校]|报[道导]|新闻|客户端|财经|在线|传媒|频道|杂志|大学|研究所|中心|公司|集团|银行|协会|学会"
    r"|委员会|政府|中学|小学)$"
)
# A desk, alone or after its outlet's name (编辑部, 本报编辑部, 区委宣传部): never a writer.
_DESK = re.compile(r"(?:编辑部|编辑室|编辑组|采编部|新闻部|总编室|办公室|宣传部|宣传科|宣传处|信息科|工作组)$")


# A place standing for a name ("北京 2024-10-15 10:20" under a headline, "（北京）" closing a story): the
# province-level regions.
REGIONS = frozenset(
    "北京 天津 上海 重庆 河北 山西 辽宁 吉林 黑龙江 江苏 浙江 安徽 福建 江西 山东 河南 湖北 湖南 广东 海南 四川 "
    "贵州 云南 陕西 甘肃 青海 台湾 内蒙古 广西 西藏 宁夏 新疆 香港 澳门 中国 全国".split()
)


def place_or_outlet(name: str) -> bool:
    """``name`` names a place, an outlet or a desk (…市, …日报, …报道, a province: 北京,
    编辑部), not a person: one line, a character or more before such an ending."""
    if name in REGIONS or _DESK.search(name):
        return True
    end = _PLACE_END.search(name)
    return end is not None and end.start() >= 1 and "\n" not in name[: end.start()]


# A site's section or column standing under a headline with the date ("国内要闻 2024-10-15",
# "热点关注", "时政", "独家"): one or two of the words sections are named with, and nothing
# else (an account named "爱否科技" is its writer).
_SECTION = re.compile(
    r"(?:要闻|新闻|资讯|动态|时政|国内|国际|社会|财经|经济|科技|体育|娱乐|教育|健康|军事|文化|旅游|汽车|房产"
    r"|评论|观察|关注|聚焦|视点|热点|头条|独家|专题|专栏|快讯|本地|图片|视频|直播|推荐|精选|滚动|深度|综合"
    r"|民生|法治|公告|通知){1,2}"
)


def is_section(name: str) -> bool:
    """``name`` is a site's section ("国内要闻", "时政"), not a writer."""
    return _SECTION.fullmatch(name) is not None


# Words a byline runs into on older CMS pages ("作者：张三　点击数：" "阅读 字号 打印 关闭"):
# the name ends there.
_BYLINE_END = (
    "点击",
    "阅读",
    "浏览",
    "字号",
    "打印",
    "关闭",
    "评论",
    "分享",
    "收藏",
    "人次",
    "次数",
    "发布",
    "来源",
    "责任编辑",
    "编辑",
    "审核",
    "时间",
    "日期",
    "访问",
    "热度",
    "人气",
    "我要",
    "纠错",  # and words they start
    "校对",
    "审校",
    "编审",
    "终审",
    "监制",
    "审稿",
    "签发",
    "值班",
    "主编",
    "美编",
    "策划",
    "统筹",  # credits
    "更新",
    "录入",
    "添加",
    "上传",
    "修改",
    "发自",
    "通讯员",
    "实习生",
    "摄影",
    "见习",
    "记者",
    "本报",
)  # 更新时间, 录入：X, 发自北京, "记者 孙丽 通讯员 何强": a correspondent is credited, not the author
# "作者：张三返回搜狐": a link's text glued to the name; "记者 杨帆近日，…": the story's first words.
_GLUED_END = ("返回", "查看", "近日", "日前", "今日", "昨日", "今天", "昨天", "近期", *_BYLINE_END)
_WIDE_GAP = re.compile(r"　|\s{2,}| ")
PADDED = re.compile(r"^([\u4e00-\u9fa5])[\s\u3000]+([\u4e00-\u9fa5])$")  # "赵  培": a two-character name padded


def no_name(word: str) -> bool:
    """Words a byline pattern catches that name no one: tags, notices, credits."""
    return word in NOT_NAMES or word.startswith(_NOT_NAME_STARTS) or word.endswith(_NOT_NAME_ENDS)


def clean_author(raw: str, reporters: bool = False) -> str:
    """The names a byline's label caught, without what is no one's name. A reporter's title
    between them ("张嘉 实习记者 罗崇纬") is passed over when they are the ``reporters``, and
    ends them otherwise (a correspondent's or an editor's names stop where the reporters'
    begin: "通讯员 刘国栋 本报记者 王燕平")."""
    raw = _WIDE_GAP.split(raw.strip(), maxsplit=1)[0]  # a wide gap ends the byline
    names: list[str] = []
    for name in re.split(SEP, raw):
        if name.endswith("记者"):
            if reporters:
                continue
            break
        if name.endswith(("摄影", "摄像")):
            break  # a photographer's credit follows: "记者 白云 专题摄影 陆明杰"
        if name.startswith(_BYLINE_END):
            break  # a counter or a tool word (访问统计): the names came before it
        if name and not no_name(name):
            names.append(name)
    # "彭冲 山东冠县" - a place or an outlet after the names ends the byline.
    while len(names) > 1 and place_or_outlet(names[-1]):
        names.pop()
    return " ".join(names) if names and not place_or_outlet(names[0]) else ""


def unglued(names: str, after: str) -> str:
    """``names`` without a tool word glued to the last ("张三返" + "回搜狐": 张三; labels: clean_author)."""
    last = re.split(SEP, names)[-1]
    cut = min((i for i in ((last + after).find(w, 2) for w in _GLUED_END) if 0 <= i < len(last)), default=-1)
    return names if cut < 0 or last.startswith(_GLUED_END) else names[: len(names) - len(last) + cut]


_RUNS_ON = re.compile(r"[\u4e00-\u9fa5]{1,4}(?![\u4e00-\u9fa5])")
_RUN_STOPS = (*_GLUED_END, "发自", "报道", "报导", "摄", "整理", "编译", "综合", "记者", "通讯员", "实习生")


def whole(names: str, after: str) -> str:
    """``names`` with a last name caught at four characters taken on to its end when it runs
    on for up to four more (a pen name or an office: 棒棒不是糖), not into a label or a tool word."""
    last, more = re.split(SEP, names)[-1], _RUNS_ON.match(after)
    if len(last) != 4 or not more or any(w in last + more.group() for w in _RUN_STOPS):
        return names
    return names + more.group()
