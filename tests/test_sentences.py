"""The second signal: the longest sentences' keys, and the rule over them, in both stores."""

import random
import re

import pytest

from news_crawler.dedup.fingerprint import distance
from news_crawler.dedup.fingerprint.sentences import (
    length_code,
    length_slack,
    longest_sentences,
    sentence_key,
    sentence_keys,
    signature,
)
from news_crawler.dedup.fingerprint.text import normalize
from news_crawler.dedup.index import Document, MemoryStore, RedisStore, SentenceRule
from news_crawler.dedup.index.kept_ids import short_ref

RULE = SentenceRule(match=3, max_distance=24, length_ratio=0.8)


@pytest.fixture(params=["memory", "redis"])
def make_store(request):
    def make(rule=RULE, namespace="sent"):
        if request.param == "memory":
            return MemoryStore(3, rule)
        return RedisStore(request.getfixturevalue("redis_client"), namespace, 3, batch_size=16, sentences=rule)

    return make


def flip(fp, bits):
    for b in bits:
        fp ^= 1 << b
    return fp


BASE = 0x0123_4567_89AB_CDEF
FAR = flip(BASE, range(0, 40, 4))  # distance 10: beyond the simhash rule, within the sentence rule's 24


def test_keys_ignore_punctuation_and_spacing_and_take_the_longest():
    text = normalize("今天上午，市政府召开新闻发布会介绍情况。短句。\n会议由副市长主持并回答记者提问，持续两个小时！")
    edited = normalize("今天上午 市政府召开新闻发布会 介绍情况……短句。\n会议由副市长主持并回答记者提问、持续两个小时。")
    assert signature(text, 5, 8) == signature(edited, 5, 8)
    assert longest_sentences(text, 5, 8) == [
        "会议由副市长主持并回答记者提问持续两个小时",
        "今天上午市政府召开新闻发布会介绍情况",
    ]
    assert longest_sentences(text, 1, 8) == ["会议由副市长主持并回答记者提问持续两个小时"]
    assert all(0 <= k < 1 << 24 for k in signature(text, 5, 8))


def test_script_and_link_lines_are_not_sentences():
    text = normalize(
        "adscriptsrc=//d1.sina.com.cn/litong/zhitou/sinaads/demo/wenjing8.js。\n"
        "thumburl: n.sinaimg.cn/sports/transform/320/w640h480 视频播放。\n"
        "这是一个足够长的中文句子用来测试。"
    )
    assert longest_sentences(text, 5, 8) == ["这是一个足够长的中文句子用来测试"]


def test_a_line_of_eight_chinese_characters_in_mostly_latin_text_is_no_sentence():
    """Eight Han characters and more are not enough: a line that is mostly Latin (a download
    prompt with its link, code) is shared by unrelated pages and must not count as a sentence."""
    text = normalize(
        "请点击这里下载最新版本的客户端 download the client app from https://example.com/app/android/latest.apk。\n"
        "这是一个足够长的中文句子用来测试。"
    )
    assert longest_sentences(text, 5, 8) == ["这是一个足够长的中文句子用来测试"]


def test_a_key_often_survives_a_small_edit_never_another_figure(sina_articles):
    """Two characters cut from a real sentence's middle leave its key alone more than half
    the time (an exact hash: never); a figure changed (another count, another amount) always
    changes it; a date's figures are no quantity (a desk rewrites them)."""
    sentences = [s for a in sina_articles[:200] for s in longest_sentences(normalize(a["body"]), 5, 8) if len(s) >= 20]
    assert len(sentences) > 500
    survived = sum(sentence_key(s[: len(s) // 2] + s[len(s) // 2 + 2 :]) == sentence_key(s) for s in sentences)
    assert survived >= 0.5 * len(sentences)
    changed = [
        (s, s.replace(m.group(), str(int(m.group(1)) + 1) + "人", 1))
        for s in sentences
        if (m := re.search(r"(?<![0-9])([1-9][0-9]*)人", s))
    ]
    assert len(changed) >= 5 and all(sentence_key(a) != sentence_key(b) for a, b in changed)
    base = "北京时间10月29日消息公司宣布将于11月20日召开电话会议讨论第三季度的财务业绩"
    assert sentence_key(base) == sentence_key(base.replace("10月29日", "10月30日").replace("11月20日", "11月21日"))
    assert sentence_key(base) != sentence_key(base.replace("第三季度", "第3季度"))


def _reference_key(sentence: str) -> int:
    """A key as the module docstring defines it, one run at a time in plain Python."""
    from hashlib import blake2b
    from zlib import crc32

    han = re.sub(r"[^\u4e00-\u9fff]+", "", sentence).encode("utf-32-le")
    runs = [han[i : i + 16] for i in range(0, max(4, len(han) - 12), 4)]  # a short sentence is its one run
    lowest = sorted({crc32(r) * 0x9E3779B97F4A7C15 % ((1 << 61) - 1) for r in runs})[:3]
    kept = " ".join(re.findall(r"[a-z]+|[0-9]+(?![0-9年月日时点分号])", sentence)) + "#" + " ".join(map(str, lowest))
    return int.from_bytes(blake2b(kept.encode("utf-8"), digest_size=3).digest(), "big")


def test_keys_hashed_as_arrays_are_the_keys_of_their_definition(sina_articles):
    """The runs are hashed in numpy from CRC-32's tables (its linearity), a batch of sentences
    at once: every key is the one zlib's CRC-32 of each run gives, whatever the batch."""
    rng = random.Random(7)
    real = [s for a in sina_articles[:150] for s in longest_sentences(normalize(a["body"]), 5, 8)]
    made = [
        "".join(
            rng.choice("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动")
            for _ in range(n)
        )
        for n in range(12)
    ]
    odd = ["", "a", "中", "中国", "中国人", "中国人民", "abc 123", "鿿一丁", "2019年第3季度营收12亿元中国"]
    sentences = real + made + odd
    assert len(real) > 500
    assert sentence_keys(sentences) == [_reference_key(s) for s in sentences]
    assert [sentence_key(s) for s in odd] == [_reference_key(s) for s in odd]
    assert sentence_keys([]) == []


def test_length_code_and_slack():
    assert length_code("") == 0 and length_code("字" * 100) == 94 and length_code("字" * 200_000) == 250
    assert length_code("字" * 10**7) == 255  # capped to a byte
    assert length_slack(0.8) == 4 and length_slack(1.0) == 0
    with pytest.raises(ValueError):
        length_slack(0)


def test_sharing_enough_sentences_drops_beyond_the_simhash_distance(make_store):
    store = make_store()
    kept = store.decide("a", BASE, (1, 2, 3, 4, 5), 100)
    copy = store.decide("b", FAR, (9, 3, 1, 8, 5), 102)
    assert kept.kept and (copy.duplicate_of, copy.distance, copy.rule) == ("a", 10, "sentences")
    assert store.lookup("b").rule == "sentences" and store.decide("b", 0).rule == "sentences"  # a replay
    assert [(d.id, d.rule, d.distance) for d in store.drops()] == [("b", "sentences", 10)]
    assert store.counts()["dropped:sentences"] == 1
    near = store.decide("c", flip(BASE, [1]), (1, 2, 3, 4, 5), 100)
    assert (near.duplicate_of, near.rule) == ("a", "simhash")  # the simhash rule comes first


@pytest.mark.parametrize(
    "simhash, sentences, length, why",
    [
        (FAR, (1, 2, 9, 8, 7), 100, "two shared sentences"),
        (flip(BASE, range(0, 50, 2)), (1, 2, 3, 4, 5), 100, "25 bits apart"),
        (FAR, (1, 2, 3, 4, 5), 105, "over a fifth longer"),
        (FAR, (1, 9), 100, "one of two: a story of two keys must share both"),
        (FAR, (1, 2, 9, 8), 100, "two of four: a story of four keys must share three"),
    ],
)
def test_what_the_sentence_rule_does_not_drop(make_store, simhash, sentences, length, why):
    store = make_store()
    store.decide("a", BASE, (1, 2, 3, 4, 5), 100)
    assert store.decide("b", simhash, sentences, length).kept, why


@pytest.mark.parametrize(
    "kept_keys, copy_keys", [((1, 2, 3), (1, 2, 9)), ((1, 2), (1, 2)), ((1, 2, 3), (2, 3)), ((1,), (1,))]
)
def test_a_short_story_edited_in_one_sentence_is_a_copy(make_store, kept_keys, copy_keys):
    """A story of three sentences keeps all but one of them through a newsroom's edit (a
    date put in front, a name shortened), a story of one or two long ones all of them (each
    key forgives a small edit): that is enough, at a short story's size."""
    store = make_store()
    assert store.decide("a", BASE, kept_keys, 40).kept
    copy = store.decide("b", FAR, copy_keys, 40)
    assert (copy.duplicate_of, copy.rule) == ("a", "sentences")


def test_rule_off_neither_drops_nor_stores(make_store):
    store = make_store(rule=None, namespace="off")
    store.decide("a", BASE, (1, 2, 3, 4, 5), 100)
    assert store.decide("b", FAR, (1, 2, 3, 4, 5), 100).kept
    if isinstance(store, RedisStore):
        assert not store.client.keys("off:s[0-9a-f][0-9a-f][0-9a-f][0-9a-f]")


def test_most_shared_then_nearest_wins(make_store):
    store = make_store()
    kept = store.decide_many(
        [
            Document("three", flip(BASE, range(5)), (1, 2, 3, 20, 21), 100),
            Document("four", flip(BASE, range(10, 26)), (4, 5, 6, 7, 22), 100),
            Document("four-nearer", flip(BASE, range(40, 52)), (4, 5, 6, 7, 23), 100),
        ]
    )
    assert all(d.kept for d in kept)  # "four" and "four-nearer" are 28 bits apart
    d = store.decide("q", BASE, (1, 2, 3, 4, 5, 6, 7), 100)
    assert (d.duplicate_of, d.distance, d.rule) == ("four-nearer", 12, "sentences")


def test_keys_in_one_bucket_and_forgotten_documents(make_store):
    store = make_store()
    same_bucket = (0xABCD01, 0xABCD02, 0xABCD03, 0x123456, 0x654321)  # three keys share bucket abcd
    store.decide("a", BASE, same_bucket, 100)
    assert store.decide("b", FAR, (0xABCD03, 0xABCD01, 0xABCD02), 100).duplicate_of == "a"
    assert [len(h) for h in store.sentence_holders(same_bucket, 100)] == [1] * 5
    assert store.forget("a") == "kept"
    assert store.decide("c", FAR ^ 1, same_bucket, 100).kept  # a forgotten document's sentences count no more
    assert store.sentence_holders(same_bucket, 100)[0] == [("c", FAR ^ 1)]


def test_both_stores_decide_alike_on_random_documents(redis_client):
    rng = random.Random(11)
    docs: list[Document] = []
    for i in range(3000):
        if docs and rng.random() < 0.5:
            src = rng.choice(docs)
            keys = tuple(k if rng.random() < 0.7 else rng.randrange(1 << 12) for k in src.sentences)
            docs.append(
                Document(
                    f"d{i}",
                    flip(src.simhash, rng.sample(range(64), rng.randint(0, 30))),
                    keys,
                    max(0, src.length + rng.randint(-6, 6)),
                )
            )
        else:  # keys from a small range: many shared buckets and false sentence hits
            docs.append(
                Document(
                    f"d{i}",
                    rng.getrandbits(64),
                    tuple(rng.sample(range(1 << 12), rng.randint(0, 6))),
                    rng.randint(80, 120),
                )
            )
    memory = MemoryStore(3, RULE).decide_many(docs)
    redis = RedisStore(redis_client, "same", 3, batch_size=37, sentences=RULE).decide_many(docs)
    assert memory == redis
    rules = [d.rule for d in memory]
    assert rules.count("sentences") > 100 and rules.count("simhash") > 100 and rules.count(None) > 100


def test_reprints_of_real_articles_further_than_distance_3_are_caught(redis_client, sina_articles, fingerprinter):
    """A real article with another story's lines on top and its last tenth cut is often
    beyond the simhash rule; the sentence rule drops it. Distinct real articles are not
    dropped by it."""
    articles = [a for a in sina_articles[:300] if len(a["body"]) > 600]
    store = RedisStore(redis_client, "real", sentences=RULE)
    originals = []
    for a in articles:
        f = fingerprinter.fingerprint(a["body"])
        originals.append(Document(a["id"], f.value, f.sentences, f.length))
    kept = store.decide_many(originals)
    wrongly = [d for d in kept if not d.kept and d.rule == "sentences"]
    assert not wrongly, [(d.id, d.duplicate_of) for d in wrongly]
    copies, beyond = [], 0
    for n, a in enumerate(articles):
        other = articles[(n + 7) % len(articles)]["body"].split("\n")[0][:60]
        f = fingerprinter.fingerprint(other + "\n" + a["body"][: len(a["body"]) * 9 // 10])
        copies.append(Document(a["id"] + "~copy", f.value, f.sentences, f.length))
        beyond += distance(f.value, originals[n].simhash) > 3
    decisions = store.decide_many(copies)
    by_rule = [d.rule for d in decisions]
    assert beyond > len(articles) // 5  # the edit is a real test of the second rule
    assert by_rule.count("sentences") >= 0.9 * beyond
    assert by_rule.count(None) <= 0.05 * len(articles)
    for d, a, first in zip(decisions, articles, kept):
        assert d.kept or d.duplicate_of in (a["id"], first.duplicate_of)  # the original, or what it copies


def test_sentence_entries_name_a_document_by_a_short_ref_and_only_its_own(redis_client):
    """An entry names a kept simhash by its first three bytes and a check byte: a document
    filed beside it with the same three bytes is not taken for it."""
    store = RedisStore(redis_client, "ref", 3, sentences=RULE)
    x, y = BASE, flip(BASE, range(20, 40))  # the same first three bytes, 20 bits apart
    assert short_ref(x.to_bytes(8, "big"))[:3] == short_ref(y.to_bytes(8, "big"))[:3]
    assert short_ref(x.to_bytes(8, "big")) != short_ref(y.to_bytes(8, "big"))
    assert store.decide("x", x, (1, 2, 3, 4, 5), 100).kept and store.decide("y", y, (), 100).kept
    entries = redis_client.get(store.live_prefixes()[0] + "S0000")  # keys 1-5 share a bucket: 6 bytes an entry
    assert entries == b"".join(bytes([k]) + short_ref(x.to_bytes(8, "big")) + bytes([100]) for k in (1, 2, 3, 4, 5))
    query = flip(y, range(44, 64))  # shares x's sentences, 40 bits from x, 20 from y
    assert store.decide("q", query, (1, 2, 3, 9, 8), 100).kept
    copy = store.decide("copy", flip(x, range(44, 60)), (1, 2, 3, 4, 7), 100)
    assert (copy.duplicate_of, copy.distance, copy.rule) == ("x", 16, "sentences")
    long_url = "https://example.com/" + "a" * 40  # filed short
    huge_url = "https://example.com/" + "b" * 600  # over 64 bytes short: filed whole in the ids hash
    assert store.decide(long_url, FAR, (11, 12, 13), 100).kept
    huge = flip(BASE, range(0, 64, 2))
    assert store.decide(huge_url, huge, (21, 22, 23), 100).kept
    assert store.decide("copy2", flip(FAR, range(30, 40)), (11, 12, 13), 100).duplicate_of == long_url
    assert store.decide("copy3", flip(huge, range(1, 21, 2)), (21, 22, 23), 100).duplicate_of == huge_url
    assert store.sentence_holders((11, 1), 100) == [[(long_url, FAR)], [("x", x), ("q", query)]]
