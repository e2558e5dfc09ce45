"""What one page can cost: media fields with bounds, found in linear time, and text checks that
stay fast on a page of tens of megabytes."""

from __future__ import annotations

import time
import unicodedata

import pytest

from news_crawler.extraction import decode
from news_crawler.extraction.page import page_fields

URL = "https://www.example.cn/news/1.html"
STORY = "".join(f"<p>这是第{i}段正文，讲述了本地新闻的重要事件和各方的反应，第{i}号。</p>" for i in range(12))


def page(head: str = "", inside: str = "") -> bytes:
    return (
        f"<html><head><meta charset='utf-8'><title>本地新闻标题</title>{head}</head><body><h1>本地新闻标题</h1>"
        f"<div class='article'>{STORY}{inside}</div></body></html>"
    ).encode()


def reference_unreadable_share(text: str) -> float:
    """The definition, one character at a time (``decode.unreadable_share`` skips runs of
    characters that are always readable)."""
    bad = 0
    for ch in text:
        code = ord(ch)
        if code < 0x20:
            bad += ch not in "\t\n\r\f\v"
        elif code < 0x7F:
            continue
        elif (
            code < 0xA0 or ch == "\ufffd" or 0xE000 <= code <= 0xF8FF or unicodedata.category(ch) in ("Cn", "Cs", "Co")
        ):
            bad += 1
    return bad / len(text) if text else 0.0


def test_the_runs_skipped_as_readable_hold_no_unreadable_character():
    skipped = [c for c in range(0x110000) if decode._COMMON.fullmatch(chr(c))]
    assert len(skipped) > 20_000
    assert not [c for c in skipped if reference_unreadable_share(chr(c))]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "正文\x00\x01",
        "a\ufffd\ue000\u0378b",
        "\x85\x9f\u3000中文，全角！ＡＢ",
        "\udc80" * 3 + "x" * 7,
        "\t\n\r\f\v",
    ],
)
def test_the_unreadable_share_is_the_definitions(text):
    assert decode.unreadable_share(text) == reference_unreadable_share(text)


def test_images_tags_and_the_description_are_cut_to_their_bounds():
    many = "".join(f"<p><img src='/img/{i}.jpg' alt='图为现场第{i}张照片'></p>" for i in range(500))
    keywords = ",".join(["本地新闻", "重要事件"] + [f"关键词{i}" for i in range(500)])
    description = "本地新闻的重要事件" * 200
    head = f"<meta name='keywords' content='{keywords}'><meta name='description' content='{description}'>"
    fields = page_fields(page(head, many), "text/html", URL)
    assert len(fields["images"]) == 30  # IMAGES_MAX
    assert fields["images"][0] == {"url": "https://www.example.cn/img/0.jpg", "caption": "图为现场第0张照片"}
    assert fields["tags"][:2] == ["本地新闻", "重要事件"] and len(fields["tags"]) == 20
    assert len(fields["description"]) == 500
    fewer = page_fields(page(head, many), "text/html", URL, images_max=3)
    assert [i["url"][-9:] for i in fewer["images"]] == ["img/0.jpg", "img/1.jpg", "img/2.jpg"]


def test_exactly_images_read_images_are_read_and_a_joined_article_keeps_its_bound():
    from news_crawler.crawl.page_work import finished
    from news_crawler.dedup.fingerprint import Fingerprinter
    from news_crawler.extraction.article import IMAGES_READ

    tags = "".join(f"<p><img src='/img/{i}.jpg' alt='图{i}'></p>" for i in range(IMAGES_READ + 1))
    fields = page_fields(page(inside=tags), "text/html", URL, images_max=IMAGES_READ)
    assert len(fields["images"]) == IMAGES_READ and fields["images"][-1]["url"].endswith(f"/img/{IMAGES_READ - 1}.jpg")
    # an article over two pages: the pages' images joined, each once, no more than images_max
    before = {"body": "第一页的正文。", "images": [{"url": f"{URL}/a/{i}.jpg", "caption": ""} for i in range(3)]}
    page2 = {"body": "第二页的正文。", "images": [{"url": f"{URL}/a/{i}.jpg", "caption": ""} for i in range(2, 6)]}
    joined = finished(Fingerprinter(), page2, URL, before, last=True, fingerprinted=False, images_max=4)
    assert [i["url"][-5:] for i in joined["images"]] == ["0.jpg", "1.jpg", "2.jpg", "3.jpg"]


def seconds(body: bytes) -> tuple[float, dict]:
    started = time.process_time()  # the work of this process, whatever else the machine does
    fields = page_fields(body, "text/html", URL)
    return time.process_time() - started, fields


def test_a_hundred_thousand_images_or_keywords_cost_what_a_few_do():
    """Linear, not quadratic: 100 times the images or keywords cost about 100 times the CPU
    time of this process, where a quadratic step costs 10,000 times; a ratio of two runs
    here, never a time, and ten times wide either way."""
    for unit in (
        lambda n: page(inside="".join(f"<p><img src='/i/{i}.jpg' width='20'></p>" for i in range(n))),
        lambda n: page(head="<meta name='keywords' content='" + ",".join(f"词{i}" for i in range(n)) + "'>"),
    ):
        small, _ = seconds(unit(1_000))
        large, fields = seconds(unit(100_000))
        assert fields["body"].startswith("这是第0段正文")
        assert large < 1000 * max(small, 0.001), (small, large)
