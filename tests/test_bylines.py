"""A byline above the story names its writer, even where the story quotes its own reporter
and where the byline's parts are inline elements that touch."""

from html import escape

import pytest

from news_crawler.extraction import extract_article

STORY = [
    "新京报讯 （记者 刘玮）10月30日，据香港媒体报道，武侠小说泰斗金庸逝世，享年94岁。",
    "主演过《笑傲江湖》的李亚鹏接受采访时表示，自己刚刚得知这个消息感到很突然和难过。",
    "李亚鹏回忆，自己第一次见到金庸是在《笑傲江湖》剧组，当时金庸去探班，两人相谈甚欢。",
]


def page(byline: str, story: list[str] = STORY) -> str:
    paragraphs = "".join(f"<p>{escape(x)}</p>" for x in story * 3)
    return (
        "<html><head><meta charset='utf-8'><title>金庸逝世 李亚鹏回忆_手机某某网</title></head><body>"
        "<article><h1>金庸逝世 李亚鹏回忆</h1>"
        f"<div class='info'>{byline}</div><section>{paragraphs}</section></article></body></html>"
    )


@pytest.mark.parametrize(
    "byline,author",
    [
        ("<time>2019-12-21 08:38</time><cite>新华社</cite><span>文/欧阳晓东</span>", "欧阳晓东"),
        ("<span>2019年10月30日 12:51</span><a href='/s'>澎湃新闻</a><span>澎湃新闻记者 王小红</span>", "王小红"),
        ("<span>作者：</span><span>孙悦</span>", "孙悦"),
        ("<time>2019-12-21 08:38</time><cite>新华社</cite>", "刘玮"),  # no credit above: the story's own
        ("<span>2019-12-21 08:38</span><span>作者：本报记者 王小红</span>", "王小红"),
        ("<span>2019-12-21 08:38</span><span>作者：新华社记者 欧阳晓东</span>", "欧阳晓东"),
        ("<span>2019-12-21 08:38</span><span>王小红/文</span><span>来源：新华社</span>", "王小红"),
        ("<span>2019-12-21 08:38</span><span>文｜孙悦</span>", "孙悦"),
        ("<span>2019-12-21 08:38</span><span>文/图 孙悦</span>", "孙悦"),  # writer and photographer
        ("<span>2019-12-21 08:38</span><span>图文 孙悦</span>", "孙悦"),
        ("<span>2019-12-21 08:38</span><span>本报记者 王小红 李明 发自北京</span>", "王小红 李明"),
        ("来源：本站原创　作者：孙悦　更新时间：2019-12-21 08:38　点击：", "孙悦"),
        ("作者：孙悦 录入：李明 2019-12-21 08:38", "孙悦"),
        # the label in a table cell of its own, the name in the next
        ("<table><tr><td>作者</td><td>孙悦</td><td>发布时间</td><td>2019-12-21 08:38</td></tr></table>", "孙悦"),
    ],
)
def test_the_writer_credited_above_the_story_is_the_author(byline, author):
    article = extract_article(page(byline))
    assert article.author == author
    assert article.published_at.startswith(("2019-12-21T08:38", "2019-10-30T12:51", "")) and article.body.startswith(
        "新京报讯"
    )


def test_touching_inline_elements_read_as_separate_words():
    article = extract_article(page("<span>2019-03-01</span><span>10:20</span><span>来源：</span><span>新华社</span>"))
    assert article.published_at == "2019-03-01T10:20:00+08:00" and article.source == "新华社"


def test_a_padded_two_character_name_and_a_counter_word_that_runs_on():
    no_credit = [line.replace("（记者 刘玮）", "") for line in STORY]
    padded = page("<span>2019-03-01</span>", no_credit).replace(
        "<title>", "<meta name='author' content='赵  培'><title>"
    )
    assert extract_article(padded).author == "赵培"
    counter = page("<span>作者： 流泉 访问统计： 2005年08月30日</span>")
    assert extract_article(counter).author == "流泉"


def test_a_self_media_writer_after_its_original_tag_is_the_author():
    meta = "<span>原创</span><span>孙悦</span><span><a id='js_name'>某某观察</a></span><em>2019-01-25</em>"
    article = extract_article(page(meta))
    assert article.author == "孙悦" and article.published_at == "2019-01-25"
    no_credit = [line.replace("（记者 刘玮）", "") for line in STORY]
    channel = "<span>金融市场</span> <span>腾讯新闻</span> <span>2019-09-23 07:48</span>"
    assert extract_article(page(channel, no_credit)).author == ""  # a channel and a site: no writer


def test_a_byline_right_under_the_story_beats_a_credit_inside_it():
    story = (
        "原标题：完成了一次次谢幕后，金庸这次真的退出江湖了作者 | 李萌 贾雯帆香港媒体30日报道称，武侠"
        "小说泰斗金庸在香港逝世，"
        "享年94岁。消息传出后，各界人士纷纷表示哀悼。"
    )
    more = "金庸原名查良镛，1924年出生于浙江海宁，1948年移居香港，一生创作了十五部武侠小说，影响了几代读者。" * 2
    page = (
        "<html><head><title>金庸这次真的退出江湖了_某某市新闻网</title></head><body><div class='article'>"
        f"<h1>金庸这次真的退出江湖了</h1><div class='content'><p>{story}</p><p>{more}</p></div>"
        "<div class='info'>来源：县融媒体中心　作者：张建国　发布时间：2019-03-04 14:34</div>"
        "<div class='editor'>责任编辑：王小红</div></div>"
        "<div class='related'><h3>相关新闻</h3><ul><li><a href='/1.html'>记者 刘明 报道：某地发生交通"
        "事故</a></li></ul></div>"
        "</body></html>"
    )
    article = extract_article(page)
    assert (article.author, article.published_at, article.editor) == ("张建国", "2019-03-04T14:34:00+08:00", "王小红")


def test_a_word_ending_in_zuozhe_inside_the_story_is_no_byline():
    no_credit = [line.replace("（记者 刘玮）", "") for line in STORY]
    story = (
        no_credit[:1]
        + ["这一现象提醒创作者：新的政策不仅引导行业资金走向，更从源头遏制了不健康的创作倾向。"]
        + no_credit[1:]
    )
    assert extract_article(page("<span>2019-03-01 10:20</span>", story)).author == ""
    assert extract_article(page("<span>本文作者：王小红</span>", story)).author == "王小红"


def test_a_credit_whose_name_runs_into_the_story_s_first_words():
    story = ["封面新闻记者 杨帆近日，《福布斯》公布了2018年收入最高的电视男演员榜单，多位演员上榜。"] + STORY[1:]
    assert extract_article(page("<span>2019-12-21 08:38</span>", story)).author == "杨帆"


def test_a_correspondent_is_a_contributor_and_a_label_s_word_does_not_reach_the_story():
    no_credit = [line.replace("（记者 刘玮）", "") for line in STORY]
    alone = extract_article(page("<span>2019-03-01</span><span>通讯员 王小红</span>", no_credit))
    assert (alone.author, alone.contributors) == ("", "王小红")
    both = extract_article(page("<span>2019-03-01</span><span>记者 欧阳晓东 通讯员 王小红</span>", no_credit))
    assert (both.author, both.contributors) == ("欧阳晓东", "王小红")
    # "本站编辑" names no one, and its 编辑 does not take the story's first word on the next line
    story = ["市政府昨天召开新闻发布会，介绍今年城市更新工作的进展情况和下一步安排，会议由副市长主持。"] + no_credit[1:]
    assert extract_article(page("<span>2019-03-01</span><span>作者：本站编辑</span>", story)).author == ""


@pytest.mark.parametrize("label", ["作者：", "记者：", "文/", "责任编辑：", "来源："])
def test_a_label_left_empty_takes_nothing_from_the_next_line(label):
    """CMS templates print a byline's labels whether or not they were filled in: an empty
    label names no one, and the story's first words on the next line are not a name."""
    story = ["国家统计局今天发布数据显示，十月份全国规模以上工业增加值同比增长百分之五点三。"]
    story += [line.replace("（记者 刘玮）", "") for line in STORY[1:]]
    article = extract_article(page(f"<span>2019-03-01 10:20</span><span>{label}</span>", story))
    assert (article.author, article.editor, article.source) == ("", "", "")


def test_a_label_and_its_value_in_elements_of_their_own_are_read():
    """Older CMS pages put a label and its value in cells of their own (<td>, <dt>/<dd>,
    <li>): the value on the next line, alone or with a date, is the label's."""
    story = [line.replace("（记者 刘玮）", "") for line in STORY]
    cells = (
        "<dl><dt>作者：</dt><dd>孙悦 2019-03-01 10:20</dd><dt>来源：</dt><dd>新华网</dd>"
        "<dt>责任编辑：</dt><dd>王五</dd></dl>"
    )
    article = extract_article(page(cells, story))
    assert (article.author, article.source, article.editor) == ("孙悦", "新华网", "王五")


@pytest.mark.parametrize(
    "closing,author",
    [
        ("（袁源）", "袁源"),
        ("（新华）", ""),
        ("（中新）", ""),
        ("（北京）", ""),
        ("（全文完）", ""),
        ("（袁源 北京大学）", "袁源"),  # the writer's institution after the name
        ("（作者：袁源，北京大学经济学院教授）", "袁源"),
    ],
)
def test_a_name_in_brackets_closing_the_story_is_its_writer_an_agency_s_or_a_place_s_is_not(closing, author):
    no_credit = [line.replace("（记者 刘玮）", "") for line in STORY]
    article = extract_article(page("<span>2019-03-01 10:20</span>", [*no_credit[:-1], no_credit[-1] + closing]))
    assert article.author == author


@pytest.mark.parametrize("placeholder", ["未知", "不详", "暂无", "未署名", "admin", "小编"])
def test_a_byline_that_names_no_one_gives_no_author(placeholder):
    """Older CMS pages fill the author field when nobody is credited: "作者：未知"."""
    no_credit = [line.replace("（记者 刘玮）", "") for line in STORY]
    article = extract_article(
        page(f"<span>发布时间：2019-03-01 10:20　作者：{placeholder}　点击数：</span>", no_credit)
    )
    assert article.author == "" and article.published_at == "2019-03-01T10:20:00+08:00"


def test_a_bare_name_above_a_story_opening_with_bracketed_emoji_codes_is_the_author():
    story = ["[作揖][作揖]@某某影业: 声明：", *STORY[1:]]  # a weibo post quoted: its emoji codes in brackets
    article = extract_article(page("<span>孙悦</span> <span>2019-12-21 08:38</span>", story))
    assert article.author == "孙悦"


def test_a_print_page_s_rules_end_lines_and_full_width_digits_are_read():
    story = "".join(STORY) * 2
    printed = (
        "<html><head><title>金庸逝世 李亚鹏回忆 - 打印本页</title></head><body><center><h3>金庸逝世 李"
        "亚鹏回忆</h3></center>"
        f"<hr>作者：孙悦&nbsp;&nbsp;日期：2019-12-21 08:38<hr>{story}<br><br>{story}<hr><center><a>打印"
        "</a></center></body></html>"
    )
    article = extract_article(printed)
    assert article.published_at == "2019-12-21T08:38:00+08:00" and article.body.startswith("新京报讯")
    wide = ("２０１９年１２月２１日 ０８：３８", "２０１９－１２－２１ ０８：３８", "２０１９／１２／２１ ０８：３８")
    for written in wide:
        assert extract_article(printed.replace("2019-12-21 08:38", written)).published_at == "2019-12-21T08:38:00+08:00"


def test_an_original_headline_note_cut_by_inline_runs_is_not_taken_for_the_headline():
    note = "<p><span>原标</span><span>题：金庸逝世 李亚鹏回忆</span></p>"  # a word processor's runs
    story = "".join(f"<p>{escape(line[:-1])}（{n}）。</p>" for n in range(8) for line in STORY)  # no line ends twice
    html = (
        "<html><head><title>金庸逝世 李亚鹏回忆_某网</title></head><body><h1>金庸逝世 李亚鹏回忆</h1>"
        f"<div class='info'><span>2019-12-21 08:38</span><span>作者：孙悦</span></div><div>{note}{story}"
        "</div></body></html>"
    )
    article = extract_article(html)
    assert article.author == "孙悦" and article.body.startswith("新京报讯")


ESSAY = [
    "人心不会熄灭，但它可能蒙上灰烬而不再燃烧。灰烬本来是燃烧的产物，但它反过来又抑制了燃烧。",
    "拨开灰烬，你会看到重新燃烧的人心。当今中国最流行的是什么主义？答：犬儒主义。",
    "犬儒主义是个外来词，中文里本来没有现成的对应词汇，通常将它理解为讥诮嘲讽，愤世嫉俗。",
]


def bare_page(title: str, lines: list[str]) -> str:
    """An older site's page: a placeholder <title>, no headline markup, the headline and
    its writer as the first lines of the text."""
    paragraphs = "".join(f"<p>{escape(x)}</p>" for x in lines)
    return f"<html><head><meta charset='utf-8'><title>{title}</title></head><body>{paragraphs}</body></html>"


@pytest.mark.parametrize("placeholder", ["显示", "谢谢您访问本站"])
@pytest.mark.parametrize("wrapped", [False, True])
def test_a_headline_and_a_name_atop_the_text_of_a_page_titled_by_a_placeholder(placeholder, wrapped):
    html = bare_page(placeholder, ["犬儒病(上)", "胡平", *ESSAY])
    if wrapped:  # markup inside an element of its own: it parses with no <body>, the <title> in it
        html = f"<text id='saved'>{html}</text>"
    article = extract_article(html)
    assert (article.title, article.author) == ("犬儒病(上)", "胡平")
    assert article.body.startswith("人心不会熄灭")
    forum = extract_article(bare_page(placeholder, ["主题：", "你知道导游为什么热衷于购物吗？", *ESSAY]))
    assert forum.title == "你知道导游为什么热衷于购物吗？" and forum.author == ""


@pytest.mark.parametrize(
    "first",
    [
        "网站首页 | 新闻动态 | 通知公告",  # a menu
        "图为会议现场",  # a caption
        "测试：蔡战 冯建华 王维辉",  # a label's line
        "一、培养目标",  # a numbered section's heading
        "（二）报考条件",
        "1. 工作背景",
    ],
)
def test_a_page_showing_no_headline_keeps_its_title_over_a_line_that_is_no_headline(first):
    article = extract_article(bare_page("县里召开秋粮收购工作会议-某县人民政府网", [first, *ESSAY]))
    assert article.title == "县里召开秋粮收购工作会议" and article.author == ""


def test_writers_names_alone_on_the_story_s_first_line_right_under_the_headline():
    paragraphs = "".join(f"<p>{escape(x)}</p>" for x in ["赵延东、风笑天", *ESSAY])
    html = (
        f"<html><head><title>社会资本与再就业</title></head><body><h1>社会资本与再就业</h1>{paragraphs}</body></html>"
    )
    assert extract_article(html).author == "赵延东 风笑天"
    # a section's heading, an outlet's mark, a document's kind: no one
    for heading in ("前言", "基本情况", "本报讯", "通知", "公告", "倡议书", "新闻稿"):
        assert extract_article(html.replace("赵延东、风笑天", heading)).author == "", heading


def test_writers_names_under_the_headline_a_forum_archive_repeats_inside_the_post():
    headline = "社会资本与再就业"
    lines = [f"学术论坛 » 学术前沿 » {headline}", "2003-5-29 09:07", "高山流水", headline, headline]
    post = "".join(f"{escape(x)}<br>" for x in [*lines, "赵延东、风笑天", *ESSAY])
    html = f"<html><head><title>社会资本与再就业(页 1) - 学术论坛</title></head><body><div>{post}</div></body></html>"
    assert extract_article(html).author == "赵延东 风笑天"
    for heading in ("前言", "本报讯"):  # a section's heading, an outlet's mark: no one
        assert extract_article(html.replace("赵延东、风笑天", heading)).author == ""


@pytest.mark.parametrize(
    "meta",
    [
        "<meta name='generator' content='Discuz! X3.4'><meta name='author' content='Discuz! Team and Comsenz UI Team'>",
        "<meta name='author' content='参考消息'>",  # the outlet the page marks as the source
    ],
)
def test_an_author_meta_tag_naming_the_software_s_makers_or_the_outlet_names_no_writer(meta):
    no_credit = [line.replace("（记者 刘玮）", "") for line in STORY]
    html = page("<span>2019-12-21 08:38</span><a class='source' href='/s'>参考消息</a>", no_credit)
    assert extract_article(html).author == ""  # neither meta tag yet
    article = extract_article(html.replace("<title>", meta + "<title>"))
    assert article.author == "" and article.source == "参考消息"
    writer = html.replace("<title>", "<meta name='author' content='王小红'><title>")
    assert extract_article(writer).author == "王小红"  # a person's name in the tag is the writer


@pytest.mark.parametrize(
    "marked,source",
    [
        ("<span class='source'>新京报</span>", "新京报"),
        ("<span class='media-name'>来源：澎湃新闻</span>", "澎湃新闻"),
        ("<span class='source'>发布时间：01-14 17:58</span>", ""),  # the element holds the time
        ("<span class='source'>昨天</span>", ""),
        ("<span class='source'>原创</span>", ""),  # a tag, no outlet
    ],
)
def test_the_outlet_the_markup_marks_as_the_source_under_the_headline(marked, source):
    no_credit = [line.replace("（记者 刘玮）", "") for line in STORY]
    assert extract_article(page(f"<span>2019-12-21 08:38</span>{marked}", no_credit)).source == source


@pytest.mark.parametrize(
    "byline", ["作者：张三 编辑 李四", "作者：张三 责任编辑 李四", "作者：张三 点击数 128", "作者：张三 点击 128"]
)
def test_an_editor_or_a_counter_after_the_writer_ends_the_byline(byline):
    """The names before 编辑 or 点击 are the writers; nothing after them is."""
    from news_crawler.extraction.names import clean_author

    assert clean_author(byline.split("：", 1)[1]) == "张三"


@pytest.mark.parametrize(
    "credits,author,editor",
    [
        ("记者：王小红 摄影：李明", "王小红", ""),  # 摄影： is the next label, not "记者 X 摄" (a photo)
        ("编辑：王小红 设计：李明", "", "王小红"),  # a label we do not know still ends the names
        ("执行编辑：王小红 视觉：李明", "", "王小红"),
        ("作者：王小红 统筹：李明", "王小红", ""),
    ],
)
def test_a_label_of_any_kind_after_the_names_ends_them(credits, author, editor):
    no_credit = [line.replace("（记者 刘玮）", "") for line in STORY]
    article = extract_article(page("<span>2019-12-21 08:38</span>", no_credit + [credits]))
    assert (article.author, article.editor) == (author, editor)


@pytest.mark.parametrize(
    "credit,author",
    [
        ("本报记者 张嘉 郭佳 实习记者 罗崇纬", "张嘉 郭佳 罗崇纬"),  # a title between the names is no name
        ("每经记者 李卓 每经实习记者 陈克远", "李卓 陈克远"),
        ("记者 张三 见习记者 李四", "张三 李四"),
    ],
)
def test_reporters_named_in_turn_with_their_titles_are_the_authors_and_leave_the_body(credit, author):
    no_credit = [line.replace("（记者 刘玮）", "") for line in STORY]
    article = extract_article(page("<span>2019-12-21 08:38</span>", [credit, *no_credit]))
    assert article.author == author and not article.body.startswith(credit[:4])


@pytest.mark.parametrize(
    "credit,author",
    [
        ("新华社记者王浩明、丁文娴", "王浩明 丁文娴"),  # the name glued on, alone on its line
        ("辽沈晚报、聊沈客户端记者 高鹏", "高鹏"),  # an outlet before the title
        ("成都商报-红星新闻记者 欧鹏", "欧鹏"),
        ("■广州日报全媒体记者 杨敏", "杨敏"),
        ("■本报记者 贾 丽", "贾丽"),  # a padded name
        ("本报珠海专电 记者 褚鹏", "褚鹏"),  # a dateline before it
        ("中国青年报·中青在线记者 杨屾(责编：大黑牛)", "杨屾"),  # the editor in brackets after
        ("记者 陶凤 文 汤艺甜", "陶凤"),
        ("摄影/本报记者 崔峻", ""),  # a photographer is no writer
        ("摄影/本报记者 崔峻 文/本报记者 宋翔", "宋翔"),
        ("南都讯 记者丰臻", "丰臻"),
        ("【本报讯】记者 陈大文", "陈大文"),
        ("香港01记者 陈大文", "陈大文"),
        ("文/王小红 图/李明", "王小红"),  # only the labels and the names
        ("图/李明 文/王小红", "王小红"),  # the photographer's first
        ("文｜王小红", "王小红"),
        ("专题撰文 信息时报记者 白云 专题摄影 信息时报记者 陆明杰", "白云"),  # the photographer's after
    ],
)
def test_a_credit_above_the_story_in_the_shapes_papers_write_it(credit, author):
    no_credit = [line.replace("（记者 刘玮）", "") for line in STORY]
    article = extract_article(page("<span>2019-12-21 08:38</span>", [credit, *no_credit]))
    assert article.author == author and article.body.startswith(no_credit[0][:8])


def test_a_writer_closing_the_story_in_brackets_with_the_editors_note_after():
    no_credit = [line.replace("（记者 刘玮）", "") for line in STORY]
    article = extract_article(page("<span>2019-12-21 08:38</span>", [*no_credit, "（肉夹馍）(责编：大黑牛)"]))
    assert (article.author, article.editor) == ("肉夹馍", "大黑牛")


def test_taiwans_report_word_after_the_names_ends_them():
    """報導 (Taiwan's 报导) ends a byline as 报道 does: 本報記者 王小明 台北報導 names 王小明."""
    story = [line.replace("（记者 刘玮）", "") for line in STORY]
    for credit in ("本报记者 王小明 台北报导", "本報記者 王小明 台北報導"):
        assert extract_article(page("<span>2019-12-21 08:38</span>", [credit, *story])).author == "王小明", credit


NAME_40 = "Alexandra Catherine Montgomery-Whitfield"  # 40 characters, the longest a tag's name may be


@pytest.mark.parametrize(
    "head,after,author",
    [
        ("<meta name='author' content='王小红'>", "", "王小红"),
        ("<meta name='author' content='王小红,李明'>", "", ""),  # a list, not a writer
        (f"<meta name='author' content='{NAME_40}'>", "", NAME_40),
        (f"<meta name='author' content='{NAME_40}x'>", "", ""),  # longer: a sentence, not a name
        # one of the editors the page credits
        ("<meta name='author' content='李明'>", "<p>（责任编辑：王小红 李明）</p>", ""),
        # in the page's title and in the headline too: a name, not the site's
        ("<meta name='author' content='李亚鹏'>", "", "李亚鹏"),
        # the makers of the software that made the page (a generator's name of three letters)
        ("<meta name='generator' content='Zbp 1.7'><meta name='author' content='Zbp Team'>", "", ""),
        # the outlet an element marks as the source, below the story
        ("<meta name='author' content='参考消息'>", "<div class='foot'><span class='source'>参考消息</span></div>", ""),
    ],
)
def test_an_author_meta_tag_is_believed_only_when_it_names_one_writer(head, after, author):
    no_credit = [line.replace("（记者 刘玮）", "") for line in STORY]
    html = page("<span>2019-12-21 08:38</span>", no_credit).replace("<title>", head + "<title>")
    html = html.replace("</article>", "</article>" + after)
    assert extract_article(html).author == author
