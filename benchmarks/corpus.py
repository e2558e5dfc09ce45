"""The real sina corpus, and synthetic reprints made the way portals reprint."""

from __future__ import annotations

import gzip
import json
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: news_mirror lives there
from news_mirror.data import FULL_DATA  # noqa: E402

HEADLINES = ["独家：{}", "{}（附全文）", "刚刚！{}", "{}，网友炸了", "重磅｜{}", "{}？官方回应来了"]
SOURCES = ["来源：新华网", "来源：人民日报客户端", "来源：澎湃新闻", "来源：中国新闻网", "本文来源：央视新闻"]
EDITORS = ["责任编辑：张晓明", "责任编辑：李静 SN184", "编辑：王磊", "（编辑：陈晨）", "校对：刘洋"]
BOILERPLATE = [
    "关注新浪新闻微信公众号，获取更多精彩内容。",
    "点击进入专题：2018年重要新闻回顾\n下载客户端，随时随地看新闻",
    "版权所有，未经授权不得转载。\n举报电话：010-12345678",
    "返回搜狐，查看更多\n责任编辑：",
    "扫描二维码关注我们\n欢迎转发分享",
]
_SENTENCE = re.compile(r"(?<=[。！？])")


def load_articles(limit: int | None = None) -> list[dict]:
    """Articles with a non-empty body, in file order."""
    out = []
    with gzip.open(FULL_DATA.require().sina_corpus, "rt", encoding="utf-8") as f:
        for line in f:
            a = json.loads(line)
            if a["body"].strip():
                out.append({"id": a["id"], "title": a["title"], "body": a["body"]})
                if limit and len(out) >= limit:
                    break
    return out


def _edit_characters(body: str, rng: random.Random) -> str:
    chars = list(body)
    for _ in range(rng.randint(2, 6)):
        i = rng.randrange(len(chars))
        if "\u4e00" <= chars[i] <= "\u9fff":
            chars[i] = rng.choice("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动")
    return "".join(chars)


def _sentences(body: str) -> list[str]:
    return [s for s in _SENTENCE.split(body) if s]


def reprint(article: dict, donor: dict, rng: random.Random) -> dict:
    """A copy of ``article`` with two to four portal edits; ``donor`` lends an added sentence."""
    body, title = article["body"], article["title"]
    edits = rng.sample(
        ["headline", "credits", "characters", "drop", "add", "truncate", "boilerplate"], rng.randint(2, 4)
    )
    if "headline" in edits:
        title = rng.choice(HEADLINES).format(title[: max(4, len(title) // 2)])
    if "characters" in edits:
        body = _edit_characters(body, rng)
    if "drop" in edits:
        parts = _sentences(body)
        if len(parts) > 3:
            del parts[rng.randrange(len(parts))]
            body = "".join(parts)
    if "add" in edits:
        extra = _sentences(donor["body"])
        if extra:
            parts = _sentences(body)
            parts.insert(rng.randrange(len(parts) + 1), rng.choice(extra))
            body = "".join(parts)
    if "truncate" in edits:
        body = body[: max(50, int(len(body) * rng.uniform(0.8, 0.95)))]
    if "credits" in edits:
        body = f"原标题：{article['title']}\n{rng.choice(SOURCES)}\n{body}\n{rng.choice(EDITORS)}"
    if "boilerplate" in edits:
        body = body + "\n" + rng.choice(BOILERPLATE)
    return {"id": article["id"] + "~r", "title": title, "body": body, "edits": edits}


def with_reprints(articles: list[dict], n: int, seed: int = 2018) -> list[dict]:
    """``articles`` followed by reprints of ``n`` of them chosen at random."""
    rng = random.Random(seed)
    chosen = rng.sample(range(len(articles)), n)
    return articles + [reprint(articles[i], articles[rng.randrange(len(articles))], rng) for i in chosen]


def stored_documents(start: int, stop: int, rng: random.Random) -> list:
    """Documents ``start`` to ``stop`` of the random stored set the decision benchmarks load
    first: a 30-character URL id, a random simhash, five random sentence keys and the size
    code of an article of 300 to 5,000 characters."""
    from news_crawler.dedup.index import Document

    return [
        Document(
            f"https://example.com/s/{i}.html",
            rng.getrandbits(64),
            tuple(rng.getrandbits(24) for _ in range(5)),
            rng.randint(117, 175),
        )
        for i in range(start, stop)
    ]
