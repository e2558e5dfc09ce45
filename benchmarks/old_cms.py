"""Extraction on the older-CMS layout that failed on a held-out crawl (issue 11), rebuilt
around real articles: each page holds a real sina story as ``<br>``-separated lines in a
table cell, under a byline like ``发布时间：2019/03/01　来源：XX　作者：XX　点击数：``, followed
by 责任编辑, print/close tools, ``上一篇``/``下一篇`` links to other stories' headlines, beside a
menu cell, above a comment box with timestamps; GBK bytes, declared as gb2312 or not at all.
The template is ours (the held-out site is not here); the text, the names and dates vary.

    python benchmarks/old_cms.py [--pages 300]

Prints the share of bodies >= 0.95 similar to the story (difflib ratio, whitespace
ignored), of authors exactly right, and of times right (to the minute when the byline
gives one, else the day), with the pages that miss.
"""

from __future__ import annotations

import argparse
import difflib
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import load_articles  # noqa: E402

from news_crawler.extraction import extract_article  # noqa: E402
from news_crawler.extraction.decode import decode_html  # noqa: E402

NAMES = ["张建国", "李明", "王小红", "赵培", "陈智勇", "刘芳", "欧阳晓东"]
OUTLETS = ["县农业局", "市委宣传部", "本站", "县融媒体中心"]
SEPARATORS = ["\u3000", "&nbsp;&nbsp;", " | ", "\u3000\u3000"]


def byline_date(rng: random.Random, variant: int) -> tuple[str, list[int]]:
    """A byline's date as one of four ways older sites write it, and its numbers."""
    y, m, d, hh, mm = 2019, rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59)
    written = [f"{y}/{m:02d}/{d:02d}", f"{y}-{m}-{d}", f"{y}年{m}月{d}日", f"{y}-{m:02d}-{d:02d} {hh:02d}:{mm:02d}"][
        variant
    ]
    return written, [y, m, d] + ([hh, mm] if variant == 3 else [])


def page(story: dict, others: list[str], rng: random.Random, n: int) -> tuple[bytes, str, list[int], str]:
    """(page bytes, author, date numbers, the story's text) of one older-CMS page."""
    author = rng.choice(NAMES)
    written, numbers = byline_date(rng, n % 4)
    sep = SEPARATORS[(n // 4) % 4]
    byline = sep.join(
        [f"发布时间：{written}", f"来源：{rng.choice(OUTLETS)}", f"作者：{author}", "点击数：<span id=hits>23</span>"]
    )
    lines = [s + "。" for s in story["body"].replace("\n", "").split("。") if s.strip()]
    cell = "<br>".join(
        [
            f"<b>{story['title']}</b>",
            byline,
            *lines,
            f"责任编辑：{rng.choice(NAMES)}",
            "【打印本页】【关闭窗口】",
            f"上一篇：<a href='/a/{n - 1}.html'>{others[0]}</a>",
            f"下一篇：<a href='/a/{n + 1}.html'>{others[1]}</a>",
        ]
    )
    comments = (
        "<table class=comment><tr><td>网友评论</td></tr><tr><td>游客 2019-12-05 18:22:10</td></tr>"
        "<tr><td>说得好</td></tr></table>"
    )
    charset = "<meta http-equiv='Content-Type' content='text/html; charset=gb2312'>" if n % 3 else ""
    html = (
        f"<html><head>{charset}<title>{story['title']}_某某县人民政府网</title></head><body><table width=960>"
        "<tr><td class=nav><a href='/'>首页</a> | <a href='/zw'>政务公开</a> | <a href='/xw'>新闻中心</a></td></tr>"
        "<tr><td><table width=100%><tr><td width=200 valign=top><a href='/1'>通知公告</a><br>"
        f"<a href='/2'>工作动态</a></td><td valign=top>{cell}</td></tr></table>{comments}</td></tr>"
        "<tr><td>版权所有 某某县人民政府 技术支持：某某网络</td></tr></table></body></html>"
    )
    return html.encode("gb18030"), author, numbers, "\n".join(lines)


def similarity(got: str, want: str) -> float:
    return difflib.SequenceMatcher(None, "".join(got.split()), "".join(want.split()), autojunk=False).ratio()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=300)
    args = ap.parse_args()
    stories = [a for a in load_articles(args.pages * 2) if len(a["body"]) > 300][: args.pages]
    rng = random.Random(3)
    body_ok = author_ok = time_ok = 0
    misses = []
    for n, story in enumerate(stories):
        others = [stories[(n + 7) % len(stories)]["title"], stories[(n + 9) % len(stories)]["title"]]
        raw, author, numbers, text = page(story, others, rng, n)
        article = extract_article(decode_html(raw)[0])
        sim = similarity(article.body, text)
        got = [int(x) for x in re.findall(r"\d+", article.published_at)][: len(numbers)]
        body_ok += sim >= 0.95
        author_ok += article.author == author
        time_ok += got == numbers
        if sim < 0.95 or article.author != author or got != numbers:
            misses.append(
                f"  page {n}: similarity {sim:.3f}, author {article.author!r} (want {author!r}), "
                f"time {article.published_at!r} (want {numbers})"
            )
    total = len(stories)
    print(
        f"{total} older-CMS pages around real sina stories: bodies >= 0.95 similar {body_ok / total:.1%}, "
        f"author right {author_ok / total:.1%}, time right {time_ok / total:.1%}"
    )
    print("\n".join(misses[:20]))


if __name__ == "__main__":
    main()
