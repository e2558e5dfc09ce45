"""Reprints as newsrooms make them: traditional-script copies, one-line stories that start
with a caption, and the story a reprint belongs to (``news-dedup story``, ``explain`` of a
kept article, the report's most reprinted stories)."""

from __future__ import annotations

import json
import subprocess
import sys

import opencc
import pytest

from news_crawler.dedup.fingerprint import UnusableText, distance
from news_crawler.dedup.fingerprint.sentences import longest_sentences
from news_crawler.dedup.fingerprint.text import normalize, simplified


@pytest.fixture(scope="module")
def stories(sina_articles) -> list[str]:
    return [a["body"] for a in sina_articles if 300 <= len(a["body"]) <= 3000][:40]


@pytest.mark.parametrize("config", ["s2twp", "s2hk", "s2t"])
def test_a_copy_in_taiwan_or_hong_kong_script_has_the_originals_fingerprint(fingerprinter, stories, config):
    converter = opencc.OpenCC(config)
    near = [
        distance(fingerprinter.fingerprint(s).value, fingerprinter.fingerprint(converter.convert(s)).value)
        for s in stories
    ]
    assert sum(d <= 3 for d in near) >= 0.95 * len(near), near


def test_the_script_is_told_as_counting_what_t2s_changes_would_tell_it(stories):
    """Traditional characters are counted by one character class (what t2s changes standing
    alone), not by running t2s over the sample: the same decision on real stories in every
    script."""
    from news_crawler.dedup.fingerprint.text import SCRIPT_SAMPLE, TRADITIONAL_SHARE

    t2s = opencc.OpenCC("t2s")

    def traditional_by_t2s(text: str) -> bool:
        sample = text[:SCRIPT_SAMPLE]
        han = sum("\u4e00" <= c <= "\u9fff" for c in sample)
        return han > 0 and sum(a != b for a, b in zip(sample, t2s.convert(sample))) >= TRADITIONAL_SHARE * han

    converters = [opencc.OpenCC(c) for c in ("s2twp", "s2hk", "s2t")]
    texts = stories + [c.convert(s) for c in converters for s in stories]
    decisions = [simplified(t) != t for t in texts]
    assert decisions == [traditional_by_t2s(t) for t in texts]
    assert sum(decisions) >= 3 * len(stories) - 3  # the copies, not the originals


def test_regional_vocabulary_and_variant_characters_fold_and_simplified_text_stays():
    assert simplified("這個軟體的記憶體不足，衞生署發佈了新聞稿，網路上的資訊很多。") == (
        "这个软件的内存不足，卫生署发布了新闻稿，网络上的信息很多。"
    )
    mainland = "有关部门建立了核心团队，发布的影片获得了智慧城市大奖，程序员们都很高兴。"
    assert simplified(mainland) == mainland  # tw2sp would turn 建立, 核心, 影片: not applied to simplified text
    assert simplified("Hello, world 123") == "Hello, world 123"


@pytest.mark.parametrize("lead", ["图为", "↑ 点击上方关注，", "▲"])
def test_a_one_line_story_that_starts_with_a_caption_is_an_article_and_its_copies_are_caught(
    fingerprinter, stories, lead
):
    from news_crawler.dedup.index import MemoryStore, SentenceRule

    one_line = lead + "".join(stories[0].split())
    store = MemoryStore(3, SentenceRule())
    for n, text in enumerate((one_line, stories[0])):
        f = fingerprinter.fingerprint(text)  # the one-line story is no "only boilerplate"
        decision = store.decide(str(n), f.value, f.sentences, f.length)
    assert not decision.kept and decision.duplicate_of == "0"
    short_caption = fingerprinter.fingerprint("图为会议现场。\n" + stories[1]).value
    assert short_caption == fingerprinter.fingerprint(stories[1]).value  # a short caption line is left out


@pytest.mark.parametrize(
    "lead",
    [
        "▲ ",
        "↑ 点击上方蓝字关注我们。",
        "图为市政府新闻发布会现场。",
        "▲资料图 ",
        "↑点击上方“某某日报”关注我们 ",
        "来源：新华网 ",
        "【来源：新华网】",
    ],
)
def test_a_short_story_in_one_line_after_a_caption_a_call_or_a_credit_is_fingerprinted_without_it(fingerprinter, lead):
    story = "市政府副市长在会上介绍了今年以来全市经济运行的总体情况，上半年全市地区生产总值同比增长百分之六点五。"
    assert len(lead + story) <= 80  # a line this short that opens so reads as boilerplate on its own
    assert fingerprinter.fingerprint(lead + story).value == fingerprinter.fingerprint(story).value
    with pytest.raises(UnusableText):  # a call to action and nothing more is still no article
        fingerprinter.fingerprint("点击上方蓝字关注我们，每天推送最新资讯，欢迎转发分享")


def test_a_story_in_one_line_after_a_video_call_is_fingerprinted_without_the_call(fingerprinter):
    """ "点击观看>>>" and the video's title on a line of their own go; a story delivered in one
    line after them stays (it was refused as "only boilerplate")."""
    story = "新浪娱乐讯 11月7日，歌手在北京举行生日会暨新专辑发布会，为第二张全新原创专辑造势宣传。" * 2
    assert fingerprinter.fingerprint(f"点击观看>>>专辑发布会演唱歌曲{story}").sentences
    alone = fingerprinter.fingerprint(f"点击观看>>>专辑发布会演唱歌曲《深度对话》\n{story}")
    assert alone.value == fingerprinter.fingerprint(story).value


def test_a_mostly_latin_line_is_no_sentence_of_the_rule():
    # eight Chinese characters in a line of code or links: pages of one site share it
    mixed = "document.write('<script src=http://a.cn/b.js>北京新闻中心欢迎您</script>')"
    chinese = "北京市今天召开新闻发布会介绍城市更新进展"
    assert longest_sentences(normalize(mixed + "\n" + chinese), 5, 8) == [chinese]


def run(args: list[str], stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "news_crawler.cli.dedup", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_story_lists_the_original_and_every_copy_and_explain_says_why_neighbours_were_kept(redis_server, stories):
    original, other = stories[2], stories[3]
    tw = opencc.OpenCC("s2twp").convert(original)
    lines = [
        {"id": "https://a.cn/news/1.html", "body": original},
        {"id": "https://b.com.tw/news/9.html", "body": tw},
        {"id": "https://c.cn/n/2.html", "body": "来源：某某网\n" + original + "\n责任编辑：王五"},
        {"id": "https://d.cn/n/3.html", "body": other},
    ]
    common = ["--redis-url", redis_server.url, "--namespace", "story"]
    out = run(["check", *common, "-"], "\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n")
    assert [json.loads(line)["duplicate_of"] for line in out.stdout.splitlines()] == [
        None,
        "https://a.cn/news/1.html",
        "https://a.cn/news/1.html",
        None,
    ]
    for asked in ("https://a.cn/news/1.html", "https://b.com.tw/news/9.html"):
        story = [json.loads(line) for line in run(["story", *common, asked]).stdout.splitlines()]
        assert story[0] == {"id": "https://a.cn/news/1.html", "role": "original", "site": "a.cn", "copies": 2}
        assert [(c["id"], c["site"], c["role"]) for c in story[1:]] == [
            ("https://b.com.tw/news/9.html", "b.com.tw", "copy"),
            ("https://c.cn/n/2.html", "c.cn", "copy"),
        ]
        assert all(c["rule"] in ("simhash", "sentences") and c["time"] for c in story[1:])
    missing = run(["story", *common, "https://x.cn/none"])
    assert missing.returncode == 1 and "no decision recorded" in missing.stderr
    # --scan: only the newest drop records are read (the c.cn copy was dropped last)
    newest = [json.loads(line) for line in run(["story", *common, "--scan", "1", lines[0]["id"]]).stdout.splitlines()]
    assert newest[0]["copies"] == 1 and [c["id"] for c in newest[1:]] == ["https://c.cn/n/2.html"]
    drops = [json.loads(line)["id"] for line in run(["drops", *common, "--limit", "1"]).stdout.splitlines()]
    assert drops == ["https://c.cn/n/2.html"]
    for bad in (["story", *common, "--scan", "0", lines[0]["id"]], ["drops", *common, "--limit", "-1"]):
        refused = run(bad)
        assert refused.returncode == 2 and "expected a whole number of 1 or more" in refused.stderr.splitlines()[-1]
    # explain by fingerprint, at most --limit nearest
    fp = json.loads(out.stdout.splitlines()[0])["simhash"]
    by_simhash = json.loads(run(["explain", *common, "--simhash", fp, "--limit", "1", "--json"]).stdout)
    assert by_simhash["simhash"] == fp and [n["id"] for n in by_simhash["nearest"]] == ["https://a.cn/news/1.html"]
    # Two close articles both kept (distance 0 only, no sentence rule): explain says why each stays.
    strict = ["--redis-url", redis_server.url, "--namespace", "strict", "-s", "DEDUP_MAX_DISTANCE=0"]
    strict += ["-s", "DEDUP_SENTENCES=false"]
    half = len(original) // 2
    edited = original[:half] + "此外，有关部门负责人表示，将继续密切关注事态发展，及时发布权威信息。" + original[half:]
    pair = [{"id": "first", "body": original}, {"id": "second", "body": edited}]
    run(["check", *strict, "-"], "\n".join(json.dumps(x, ensure_ascii=False) for x in pair) + "\n")
    explained = json.loads(run(["explain", *strict, "--id", "second", "--text", edited, "--json"]).stdout)
    (near,) = [n for n in explained["nearest"] if n["id"] == "first"]
    assert explained["kept"] is True and near["distance"] > 0
    assert near["why_not"] == (
        f"simhash distance {near['distance']} > DEDUP_MAX_DISTANCE 0; the sentence rule is off (DEDUP_SENTENCES)"
    )


def test_explain_names_a_kept_copys_original_however_far_and_why_it_was_kept(redis_server):
    # A short story and a desk's copy of it: a name spelt out in two of its three sentences,
    # a source line and an editor's. Too far apart for either rule, and sharing no block:
    # the four buckets a decision reads never meet the original.
    story = (
        "记者从市住建局获悉，今年全市将完成一百二十个老旧小区改造，涉及居民两万余户，改造内容包括加装电梯、管网更新和绿化提升。\n"
        "市住建局相关负责人表示，改造将坚持居民自愿原则，由社区组织议事协商，方案公示后再开工，确保工程质量和施工安全。\n"
        "据介绍，首批项目已于上月启动，施工单位采取分段作业方式，尽量减少对居民出行的影响。"
    )
    copy = "来源：某某晚报\n" + story.replace("市住建局", "市住房城乡建设局") + "\n责任编辑：张三"
    common = ["--redis-url", redis_server.url, "--namespace", "far"]
    lines = [{"id": "https://a.cn/1.html", "body": story}, {"id": "https://b.cn/2.html", "body": copy}]
    out = run(["check", *common, "-"], "\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n")
    assert [json.loads(line)["duplicate_of"] for line in out.stdout.splitlines()] == [None, None]
    explained = json.loads(run(["explain", *common, "--id", "https://b.cn/2.html", "--text", copy, "--json"]).stdout)
    (near,) = [n for n in explained["nearest"] if n["id"] == "https://a.cn/1.html"]
    assert near["matched_blocks"] == [] and near["distance"] > 3 and near["shared_sentences"] == 1
    assert near["why_not"].startswith(f"simhash distance {near['distance']} > DEDUP_MAX_DISTANCE 3; shares 1 of")
    assert ("past DEDUP_SENTENCE_MAX_DISTANCE 22" in near["why_not"]) == (near["distance"] > 22)
    # Without the text, the nearest kept article is still named, by distance alone.
    bare = json.loads(run(["explain", *common, "--id", "https://b.cn/2.html", "--json"]).stdout)
    assert (
        bare["nearest"][0]["id"] == "https://a.cn/1.html" and "give the article's text" in bare["nearest"][0]["why_not"]
    )
