from news_crawler.dedup.fingerprint.text import is_boilerplate, normalize, strip_boilerplate


def test_normalize_width_case_spaces_and_invisibles():
    assert normalize("ＡＢＣ　１２３") == "abc 123"
    assert normalize("新\u200b闻\ufeff") == "新闻"
    assert normalize("  一行  \r\n\r\n\t二行\x07 ") == "一行\n二行"


def test_normalize_drops_lone_surrogates():
    assert normalize("好\ud800消息") == "好 消息"


def test_boilerplate_lines_are_recognised():
    for line in [
        "来源：新华网",
        "责任编辑：张三 sn123",
        "原标题：金庸逝世",
        "(完)",
        "关注微信公众号xxx获取更多",
        "【编辑：李四】",
        "本文来源:人民日报",
    ]:
        assert is_boilerplate(normalize(line)), line
    assert is_boilerplate(".tech-quotation{padding:20px 20px 0px;background:url(//n.sinaimg.cn/q.png) no-repeat;}" * 2)
    for line in ["北京时间10月30日，金庸在香港逝世。", "记者会上，发言人表示将继续推进改革开放" * 3]:
        assert not is_boilerplate(normalize(line)), line


def test_strip_boilerplate_keeps_the_story():
    text = normalize("原标题：旧标题\n正文第一段。\n正文第二段（原标题：旧标题）。\n责任编辑：王五")
    assert strip_boilerplate(text) == "正文第一段。\n正文第二段。"


def test_fast_nfkc_equals_unicodedata_nfkc(sina_articles):
    import unicodedata

    from news_crawler.dedup.fingerprint.text import nfkc

    samples = [a["body"] for a in sina_articles[:300]] + [
        "ＡＢＣ　１２３，．！",
        "Ａ\u0301 full-width then combining",
        "㍿ ① ﬁ ｶﾞ ℌ",
        "",
        "\u3000\u3000段落",
        "省略……号\xa0与不换行空格",
        "…\u0301 an ellipsis then a combining mark, \xa0\u0308 a no-break space then one",
    ]
    for text in samples:
        assert nfkc(text) == unicodedata.normalize("NFKC", text)


PREFIXES = [
    "新华社北京11月22日电（记者 王小明）",
    "中新网11月22日电 ",
    "本报讯（通讯员 张三）",
    "【转载】",
    "来源：人民日报 2019-03-05 10:32",
    "来源：澎湃新闻",
    "本文来源：央视新闻 ",
    "原标题：{title}来源：新华网",
    "原标题：{title} ",
    "澎湃新闻记者 陈宇曦 综合报道",  # a reporter's credit, its names between spaces
    "本报记者 谷枫 北京报道",
]
SUFFIXES = [
    "（责任编辑：李明）",
    "责任编辑：李静 SN184",
    "编辑：王磊",
    "（完）",
    "关注新浪新闻微信公众号，获取更多精彩内容。",
]


def test_glued_credits_do_not_move_the_fingerprint_of_flattened_real_articles(fingerprinter, sina_articles):
    articles = [a for a in sina_articles if len(a["body"]) > 200][:150]
    moved = []
    for a in articles:
        flat = "".join(a["body"].split("\n"))
        expected = fingerprinter.fingerprint(flat).value
        for n, prefix in enumerate(PREFIXES):
            suffix = SUFFIXES[n % len(SUFFIXES)]
            if prefix.endswith("} ") and " " in a["title"]:
                continue  # a headline with spaces, then the story: the one form credits.py cannot cut
            variant = prefix.format(title=a["title"]) + flat + suffix
            if fingerprinter.fingerprint(variant).value != expected:
                moved.append((a["id"], prefix, suffix))
    assert not moved, moved[:5]


def test_a_writers_credit_line_a_reprint_adds_leaves_the_fingerprint_alone(fingerprinter, sina_articles):
    """Portals add or change the reporter's credit above a story they copy; it must not move
    the fingerprint (with it the lead weighting moved a real story's simhash 7 to 12 bits)."""
    credits = [
        "北京晨报记者 刘晨",
        "新华社记者蔡拥军",
        "记者 罗仙仙 发自深圳",
        "成都商报-红星新闻记者 欧鹏",
        "■本报记者 贾 丽",
        "澎湃新闻记者 陈宇曦 综合报道",
    ]
    for credit in credits:
        assert is_boilerplate(normalize(credit)), credit
    story = next(a["body"] for a in sina_articles if 300 < len(a["body"]) < 800)
    plain = fingerprinter.fingerprint(story)
    for credit in credits:
        assert fingerprinter.fingerprint(f"{credit}\n{story}").value == plain.value, credit
    # a story's sentence that names a reporter stays
    assert not is_boilerplate(normalize("记者 罗仙仙 在深圳采访时了解到，当地已有多家企业复工复产。"))


def test_a_long_story_in_one_line_with_page_code_in_it_keeps_its_text(sina_articles):
    """A story delivered flat (every paragraph on one line), a sidebar's style sheet glued in
    its middle: the rules go, the story stays; it was refused whole as "only boilerplate"."""
    from news_crawler.dedup.fingerprint import Fingerprinter

    story = [a for a in sina_articles if len(a["body"]) > 1500][0]
    paragraphs = [p.strip() for p in story["body"].split("\n") if p.strip()]
    code = " 相关新闻 .page-right-bar{bottom:50px;} .zc-app-btn{position: relative;background: none;} "
    flat = story["title"] + " 2018-06-01 10:00 导读:" + " ".join(paragraphs[:3]) + code + " ".join(paragraphs[3:])
    kept = strip_boilerplate(normalize(flat))
    assert "bottom:50px" not in kept and "position" not in kept
    assert normalize(paragraphs[-1])[-20:] in kept and len(kept) > 0.9 * len(normalize(flat))
    fp = Fingerprinter().fingerprint(flat)  # and it is fingerprinted as the story it is
    assert fp.value == Fingerprinter().fingerprint(flat.replace(code, " ")).value


def test_a_long_text_is_never_only_boilerplate():
    """Whatever its lines look like, a text of 500 characters or more is a story: never empty."""
    lines = [f"关注公众号获取第{n}期更多内容" for n in range(60)]  # each line a call to action
    assert all(is_boilerplate(normalize(x)) for x in lines)
    kept = strip_boilerplate(normalize("\n".join(lines)))
    assert len("\n".join(lines)) >= 500 and kept == normalize("\n".join(lines))
    assert strip_boilerplate(normalize("来源：新华网\n责任编辑：张三")) == ""  # a short one may be
    assert is_boilerplate(normalize("相关新闻 .page{bottom:50px;}"))  # a short line with a rule: page code
