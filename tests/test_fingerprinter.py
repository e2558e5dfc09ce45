import pytest
import simhash

from news_crawler.dedup.fingerprint import Fingerprinter, UnusableText, distance

STORY = (
    "北京时间10月30日，武侠小说泰斗金庸在香港逝世，享年94岁。金庸原名查良镛，"
    "代表作包括《射雕英雄传》《天龙八部》《笑傲江湖》等，影响了几代华人读者。"
)


@pytest.mark.parametrize(
    "body,reason",
    [
        ("", "empty body"),
        ("   \n\t ", "empty body"),
        ("\u200b\u200b", "body has only boilerplate or invisible characters"),
        ("。，！？……", "body has no words to fingerprint (only punctuation, digits or stop words)"),
        ("的 了 是 在 和", "body has no words to fingerprint (only punctuation, digits or stop words)"),
    ],
)
def test_unusable_text_has_a_reason(fingerprinter, body, reason):
    with pytest.raises(UnusableText) as err:
        fingerprinter.fingerprint(body)
    assert str(err.value) == reason


def test_non_text_body_is_refused(fingerprinter):
    with pytest.raises(UnusableText, match="must be text"):
        fingerprinter.fingerprint(b"bytes")  # type: ignore[arg-type]


def test_spam_repeating_one_token_does_not_overflow(fingerprinter):
    spam = "震惊" * 20_000 + "点击领取大奖" * 5000
    fp = fingerprinter.fingerprint(spam)
    assert (fp.value, fp.words) == (0xE330_D487_3D4C_B2B4, 4)
    # The integer counts the same text yields overflow simhash 2.1.2 under numpy 2.
    with pytest.raises(OverflowError):
        simhash.Simhash([("震惊", 20_000)], f=64)


def test_huge_page_is_cut_not_refused():
    fp = Fingerprinter(max_chars=5_000).fingerprint(STORY * 10_000)
    assert fp.truncated and fp.value == Fingerprinter(max_chars=5_000).fingerprint((STORY * 10_000)[:5_000]).value


def test_unusual_unicode(fingerprinter):
    text = STORY + "😀🇨🇳 é́ ‮עברית‬ 𠀀𠀁 \ud83d"
    assert fingerprinter.fingerprint(text).value == fingerprinter.fingerprint(STORY).value  # words unchanged


def test_reprint_of_a_real_article_is_near_and_other_stories_are_far(fingerprinter, sina_articles):
    body = sina_articles[3]["body"]
    a = fingerprinter.fingerprint(body).value
    reprint = (
        "原标题："
        + sina_articles[3]["title"]
        + "\n来源：环球网\n"
        + body
        + "\n责任编辑：张三 SN225\n关注公众号获取更多新闻"
    )
    assert distance(a, fingerprinter.fingerprint(reprint, "全新的标题").value) <= 3
    others = [fingerprinter.fingerprint(x["body"]).value for x in sina_articles[10:60]]
    assert min(distance(a, o) for o in others) > 3


def test_title_is_ignored_by_default_and_used_when_asked(fingerprinter):
    assert fingerprinter.fingerprint(STORY, "标题一").value == fingerprinter.fingerprint(STORY, "完全不同的标题").value
    with_title = Fingerprinter(use_title=True)
    assert with_title.features(STORY, "独家专访") != with_title.features(STORY, "")


def test_topic_words_get_extra_weight():
    plain = dict(Fingerprinter().features(STORY))
    boosted = dict(Fingerprinter(topic_words=["金庸"], topic_weight=3.0).features(STORY))
    assert boosted["金庸"] == pytest.approx(plain["金庸"] * 3, abs=1e-3)
    assert boosted["香港"] == plain["香港"]


def test_stop_words_and_idf_are_replaceable(tmp_path):
    stops = tmp_path / "stop.txt"
    stops.write_text("金庸\n# comment\n", encoding="utf-8")
    idf = tmp_path / "idf.txt"
    idf.write_text("香港 9.5\n逝世 1.0\n", encoding="utf-8")
    f = Fingerprinter(stop_words_path=stops, idf_path=idf, position_decay=0, max_word_share=1)
    weights = dict(f.features(STORY))
    assert "金庸" not in weights
    assert weights["香港"] == 9.5 and weights["逝世"] == 1.0


def test_lead_words_weigh_more_than_tail_words():
    text = "台风登陆。" + "，".join(["市民出行"] * 3) + "。其他内容。" * 30 + "台风过境。"
    weights = dict(Fingerprinter(max_word_share=1).features(text))
    flat = dict(Fingerprinter(position_decay=0, max_word_share=1).features(text))
    assert weights["登陆"] / weights["过境"] > 2 * flat["登陆"] / flat["过境"]


def test_no_word_carries_more_than_its_share():
    text = "金庸" * 200 + "，武侠小说泰斗在香港逝世，享年94岁，作品影响几代读者。"
    weights = dict(Fingerprinter(max_word_share=0.1).features(text))
    assert weights["金庸"] <= 0.1 * sum(dict(Fingerprinter(max_word_share=1).features(text)).values()) + 1e-3
    assert weights["金庸"] == max(weights.values())


def test_top_k_keeps_the_heaviest(fingerprinter):
    top = Fingerprinter(top_k=5).features(STORY)
    every = sorted(fingerprinter.features(STORY), key=lambda kv: -kv[1])
    assert len(top) == 5 and {w for w, _ in top} <= {w for w, _ in every}
    assert min(w for _, w in top) >= every[5][1]


def test_bad_arguments_say_what_to_fix():
    with pytest.raises(ValueError, match="top_k"):
        Fingerprinter(top_k=0)
    with pytest.raises(ValueError, match="topic_weight"):
        Fingerprinter(topic_weight=0)
    with pytest.raises(ValueError, match="max_word_share"):
        Fingerprinter(max_word_share=0)
    with pytest.raises(ValueError, match="position_decay"):
        Fingerprinter(position_decay=-1)


def test_the_weights_and_the_fingerprint_of_a_known_text_are_pinned(fingerprinter):
    """The first words' weights (TF-IDF, the lead decay, the cap) and the fingerprint of a
    fixed text: a change to any of them changes these numbers, and the index's fingerprints."""
    weights = [(w, round(v, 4)) for w, v in fingerprinter.features(STORY)[:8]]
    assert weights == [
        ("北京", 4.667),
        ("时间", 3.709),
        ("10", 9.9619),
        ("30", 9.1963),
        ("武侠小说", 7.7207),
        ("泰斗", 7.5078),
        ("金庸", 11.4541),
        ("香港", 3.4189),
    ]
    fp = fingerprinter.fingerprint(STORY)
    assert (fp.value, fp.words, fp.sentences, fp.length) == (0x5BED_D8AC_8169_DA2D, 23, (9839045, 5332742), 85)
