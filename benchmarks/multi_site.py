"""A crawl shaped like issue 11's held-out one: a local web of five news sites, each crawled
with the generic spider, day 1 and then day 2 with new articles.

    python benchmarks/multi_site.py [--stories 150] [--reprints 0.3] [--templates a,b,c,d,e]
                                    [--oldest-first] [-s NAME=VALUE]

The sites are templates of ``headline_templates.py`` (and the files it builds on) over real
sina stories, by default a portal (UTF-8, every story split over two pages: the first site
always splits them), an older one-table CMS (GBK), a county site with no charset anywhere
(GBK), a mobile site reached by its Atom feed, and a Discuz-like portal (GBK); ``--templates``
names others. Each site lists its articles newest first, ten to a list
page (headlines as link text, links without the host; a GBK site's lists in GBK with no
charset), the next list page behind 下一页. A share of the stories (``--reprints``) is published
again, the same day, on another site. Day 1 holds seven in ten of each site's stories; day 2
adds the rest. Every site is crawled in turn, one shared Redis index:

    scrapy crawl news -a start_urls=<list page or feed> -a allow=/news/2019/\\d+\\.html \\
        -a follow=/news/index_\\d+\\.html

and the figures are the held-out crawl's: article pages fetched on day 1, day-1 pages fetched
again on day 2, bodies >= 0.95 similar to the story (difflib, whitespace ignored), authors
and times (to the minute, or the day where the page gives only a date) right, reprints
dropped as near-duplicates of the copy crawled first, distinct articles dropped. With
``--urls query`` the sites write show.php?id=N articles (page 2 at &page=2), list.php?page=N
lists linked as "?page=N", and an RSS feed; with ``--urls cms``, show_N.html articles
(small ids that read like page numbers), page 2 at show_N_1.html, list_N.html lists.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_redis import bench_server  # noqa: E402
from corpus import load_articles  # noqa: E402
from cross_site import jaccard, lines_of, similarity  # noqa: E402
from headline_templates import ALL  # noqa: E402

from news_crawler import connection  # noqa: E402
from news_crawler.config import plain_settings  # noqa: E402
from news_crawler.dedup.from_settings import store_from_settings  # noqa: E402
from news_crawler.extraction.decode import decode_html  # noqa: E402
from news_mirror.catalog import Catalog  # noqa: E402
from news_mirror.handler import mirror_path  # noqa: E402
from news_mirror.server import Mirror, serve  # noqa: E402
from news_mirror.settings import environment  # noqa: E402

# (host, template, start page) of each site (--templates sets them); the first site splits
# its stories over two pages, a mobile site is reached by its feed.
SITES: list[tuple[str, str, str]] = []
DEFAULT_TEMPLATES = "portal,old_cms,county_site,mobile,forum_style"
PER_LIST = 10
GBK_TEMPLATES = {"old_cms", "county_site", "forum_style", "netease", "bracket_table", "local_paper", "div_title"}
OLDEST_FIRST = False  # --oldest-first: lists that add new articles at their end
FOLLOW = True  # --no-follow: crawled with start_urls and allow only, as the held-out crawl's command reads
# How URLs are written (--urls): paths (/news/2019/00042.html, its page 2 00042_2.html, lists
# /news/index_2.html, an Atom feed), queries (show.php?id=42, &page=2, list.php?page=2
# linked as "?page=2", an RSS feed) or a CMS's (show_42.html: an id, not a page number; its
# page 2 show_42_1.html, numbered from 0 as TRS does; lists list_2.html; an RSS feed).
STYLES = {
    "paths": {
        "article": "/news/2019/{n:05d}.html",
        "page2": "/news/2019/{n:05d}_2.html",
        "list": "/news/index.html",
        "next": "index_{k}.html",
        "lists": "/news/index{suffix}.html",
        "feed": "/feed.atom",
        "allow": r"/news/2019/\d+\.html",
        "follow": r"/news/index_\d+\.html",
    },
    "query": {
        "article": "/show.php?id={n}",
        "page2": "/show.php?id={n}&page=2",
        "list": "/list.php?page=1",
        "next": "?page={k}",
        "lists": "/list.php?page={k}",
        "feed": "/rss.xml",
        "allow": r"/show\.php\?id=\d+$",
        "follow": r"/list\.php\?page=\d+$",
    },
    "cms": {
        "article": "/html/news/show_{n}.html",
        "page2": "/html/news/show_{n}_1.html",
        "list": "/html/news/list.html",
        "next": "list_{k}.html",
        "lists": "/html/news/list{suffix}.html",
        "feed": "/rss.xml",
        "allow": r"/html/news/show_\d+\.html",
        "follow": r"/html/news/list_\d+\.html",
    },
}
STYLE = STYLES["paths"]


seconds: dict[str, str] = {}  # the second page of a split story -> its first page


class Page:
    def __init__(self, story: int, site: int, url: str, day: int, title: str = "") -> None:
        self.story, self.site, self.url, self.day, self.title = story, site, url, day, title
        self.truth: dict = {}


def render(
    template: str, story: dict, others: list[str], seed: str, pager: str = "", lines: list[str] | None = None
) -> tuple[bytes, dict]:
    """A page of ``template`` (the same byline for every page of one story: one seed)."""
    raw, truth = ALL[template](story["title"], lines or lines_of(story["body"]), others, random.Random(seed))
    if pager:  # in the page's own charset (a GBK page's 下一页 in GBK)
        raw = raw.replace(b"</body>", pager.encode(decode_html(raw)[1], "xmlcharrefreplace") + b"</body>")
    return raw, truth


def halves(lines: list[str]) -> tuple[list[str], list[str]] | None:
    """A story's lines as two pages: by lines, or a one-line story at a sentence's end near
    its middle (None when it has no such place)."""
    if len(lines) >= 2:
        return lines[: len(lines) // 2], lines[len(lines) // 2 :]
    text = lines[0] if lines else ""
    cut = text.find("。", len(text) // 2) + 1
    return ([text[:cut]], [text[cut:]]) if 0 < cut < len(text) else None


def build(stories: list[dict], reprint_share: float) -> tuple[list[Page], dict[str, bytes]]:
    """Every article page, and every page's bytes by URL."""
    rng = random.Random(7)
    pages, bodies = [], {}
    seconds.clear()
    for i, story in enumerate(stories):
        day = 1 if i % 10 < 7 else 2
        homes = [i % len(SITES)]
        if rng.random() < reprint_share:
            homes.append((homes[0] + 1 + rng.randrange(len(SITES) - 1)) % len(SITES))
        others = [stories[(i + k) % len(stories)]["title"] for k in (3, 5, 8, 13, 21, 34)]
        for copy, site in enumerate(homes):
            host, template, _ = SITES[site]
            url = f"https://{host}" + STYLE["article"].format(n=10000 * copy + i)
            page = Page(i, site, url, day, story["title"])
            lines = lines_of(story["body"])
            parts = halves(lines) if site == 0 else None
            if parts:
                second = f"https://{host}" + STYLE["page2"].format(n=10000 * copy + i)
                seconds[second] = url
                bodies[url], page.truth = render(
                    template, story, others, url, f'<div class="page"><a href="{second}">下一页</a></div>', parts[0]
                )
                bodies[second], rest = render(
                    template, story, others, url, f'<div class="page"><a href="{url}">上一页</a></div>', parts[1]
                )
                page.truth["text"] += "\n" + rest["text"]  # each page's lines as its template wrote them
            else:
                bodies[url], page.truth = render(template, story, others, url)
            pages.append(page)
    return pages, bodies


def list_pages(pages: list[Page], day: int) -> dict[str, tuple[bytes, str]]:
    """Each site's list pages (or feed) on ``day``: newest first, ``PER_LIST`` to a page."""
    out = {}
    for site, (host, template, start) in enumerate(SITES):
        order = (lambda p: (p.day, p.url)) if OLDEST_FIRST else (lambda p: (-p.day, p.url))
        mine = sorted((p for p in pages if p.site == site and p.day <= day), key=order)
        if start.endswith(".atom"):
            entries = "".join(
                f"<entry><title>{p.story}</title><link rel='alternate' href='{html.escape(p.url)}'/>"
                f"<id>{html.escape(p.url)}</id></entry>"
                for p in mine
            )
            out[f"https://{host}{start}"] = (
                (
                    "<?xml version='1.0' encoding='utf-8'?><feed xmlns='http://www.w3.org/2005/"
                    f"Atom'><title>{host}</title>{entries}</feed>"
                ).encode(),
                "application/atom+xml",
            )
            continue
        if start.endswith(".xml"):
            items = "".join(f"<item><title>{p.story}</title><link>{html.escape(p.url)}</link></item>" for p in mine)
            out[f"https://{host}{start}"] = (
                (
                    f"<?xml version='1.0' encoding='utf-8'?><rss version='2.0'><channel>"
                    f"<title>{host}</title>{items}</channel></rss>"
                ).encode(),
                "application/rss+xml",
            )
            continue
        chunks = [mine[k : k + PER_LIST] for k in range(0, len(mine), PER_LIST)] or [[]]
        for n, chunk in enumerate(chunks, 1):
            # Links without the host, headlines as their text; a GBK site's lists in GBK, no charset.
            links = "".join(
                f"<li><a href='{html.escape(p.url.split(host, 1)[1])}'>{html.escape(p.title)}</a></li>" for p in chunk
            )
            more = f"<a href='{html.escape(STYLE['next'].format(k=n + 1))}'>下一页</a>" if n < len(chunks) else ""
            path = start if n == 1 else STYLE["lists"].format(k=n, suffix=f"_{n}")
            gbk = template in GBK_TEMPLATES
            page = (
                f"<html><head>{'' if gbk else '<meta charset=utf-8>'}<title>新闻列表</title></head><body>"
                f"<ul>{links}</ul>{more}</body></html>"
            )
            out[f"https://{host}{path}"] = (
                page.encode("gbk", "xmlcharrefreplace") if gbk else page.encode(),
                "text/html" if gbk else "text/html; charset=utf-8",
            )
    return out


def crawl_site(tmp: Path, redis_url: str, mirror_url: str, site: int, day: int, settings: list[str]) -> dict[str, dict]:
    host, _, start = SITES[site]
    out = tmp / f"day{day}-{host}.jsonl"
    args = [
        sys.executable,
        "-m",
        "scrapy",
        "crawl",
        "news",
        "-O",
        str(out),
        "-a",
        f"start_urls=https://{host}{start}",
        "-a",
        f"allow={STYLE['allow']}",
        "-a",
        f"follow={STYLE['follow'] if FOLLOW else ''}",
        "-s",
        f"REDIS_URL={redis_url}",
        "-s",
        "DEDUP_NAMESPACE=multi",
        "-s",
        f"FEED_DIR={tmp / 'feeds'}",
        "-s",
        "LOG_LEVEL=WARNING",
    ]
    for setting in settings:
        args += ["-s", setting]
    result = subprocess.run(
        args, cwd=ROOT, capture_output=True, text=True, timeout=900, env={**os.environ, **environment(mirror_url)}
    )
    if result.returncode != 0:
        raise SystemExit(f"crawl of {host} failed:\n{result.stderr[-3000:]}")
    return {i["url"]: i for i in map(json.loads, out.read_text().splitlines())} if out.exists() else {}


def configure(templates: str, urls: str = "paths", oldest_first: bool = False) -> None:
    """The sites (one a template named in ``templates``, comma-separated), how their URLs are
    written and which way their lists run."""
    global OLDEST_FIRST, STYLE
    OLDEST_FIRST, STYLE = oldest_first, STYLES[urls]
    SITES[:] = [
        (f"www.site{k}-{name.replace('_', '-')}.cn", name, STYLE["feed"] if name == "mobile" else STYLE["list"])
        for k, name in enumerate(templates.split(","))
    ]


def crawl_days(
    pages: list[Page], bodies: dict[str, bytes], redis_url: str, settings: list[str]
) -> tuple[dict[str, dict], dict[int, list[str]], dict[int, int], dict]:
    """Day 1, then day 2, every site crawled in turn: the kept items by URL, the article
    pages fetched and the list pages fetched each day, and the index's decision of each page."""
    mirror = Mirror(Catalog(), day=1)
    server = serve(mirror)
    mirror_url = f"http://127.0.0.1:{server.server_address[1]}"
    items: dict[str, dict] = {}
    fetched: dict[int, list[str]] = {}
    lists: dict[int, int] = {}
    articles = {mirror_path(p.url) for p in pages}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for day in (1, 2):
                for url, body in bodies.items():
                    if next((p.day for p in pages if p.url == seconds.get(url, url)), 1) <= day:
                        mirror.add(url, body, "text/html")
                listed = list_pages(pages, day)
                for url, (body, ctype) in listed.items():
                    mirror.add(url, body, ctype)
                since = len(mirror.requests)
                for site in range(len(SITES)):
                    items.update(crawl_site(Path(tmp), redis_url, mirror_url, site, day, settings))
                fetched[day] = [r for r in mirror.requests[since:] if r in articles]
                lists[day] = sum(1 for r in mirror.requests[since:] if r in {mirror_path(u) for u in listed})
    finally:
        server.shutdown()
    client = connection.from_settings(plain_settings({"REDIS_URL": redis_url}))
    store = store_from_settings(plain_settings({"DEDUP_NAMESPACE": "multi"}), client)
    return items, fetched, lists, {p.url: store.lookup(p.url) for p in pages}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--stories", type=int, default=150)
    ap.add_argument("--reprints", type=float, default=0.3, help="share of stories published again on another site")
    ap.add_argument("--templates", default=DEFAULT_TEMPLATES, help=f"five of: {', '.join(ALL)}")
    ap.add_argument("-s", "--set", action="append", default=[], metavar="NAME=VALUE", help="a setting of every crawl")
    ap.add_argument("--oldest-first", action="store_true", help="lists that add new articles at their end")
    ap.add_argument("--urls", choices=list(STYLES), default="paths", help="how URLs are written")
    ap.add_argument("--no-follow", action="store_true", help="no -a follow: the lists' 下一页 links alone")
    args = ap.parse_args()
    global FOLLOW
    FOLLOW = not args.no_follow
    configure(args.templates, args.urls, args.oldest_first)
    stories = [a for a in load_articles(args.stories * 3) if len(a["body"]) > 300][: args.stories]
    pages, bodies = build(stories, args.reprints)
    started = time.perf_counter()
    with bench_server() as redis_url:
        items, fetched, lists, decisions = crawl_days(pages, bodies, redis_url, args.set)
    report(pages, items, decisions, fetched, stories, time.perf_counter() - started)
    print(f"list pages and feeds fetched: day 1 {lists[1]}, day 2 {lists[2]}")


def report(pages: list[Page], items: dict, decisions: dict, fetched: dict, stories: list[dict], elapsed: float) -> None:
    day1 = {mirror_path(p.url) for p in pages if p.day == 1}
    got1 = set(fetched[1]) & day1
    again = [r for r in fetched[2] if r in day1]
    print(f"{len(stories)} stories, {len(pages)} article pages on {len(SITES)} sites ({elapsed:.0f} s)")
    print(
        f"day 1: article pages fetched {len(got1)}/{len(day1)}; day 2: day-1 pages fetched again {len(again)}, "
        f"new pages fetched {len(set(fetched[2]) - day1)}/{len(pages) - len(day1)}"
    )
    by_story: dict[int, list[Page]] = {}
    for p in pages:
        by_story.setdefault(p.story, []).append(p)
    body_ok = author_ok = authors = time_ok = kept = 0
    per_site: dict[str, list[int]] = {}
    for p in pages:
        item = items.get(p.url)
        if item is None:
            continue
        kept += 1
        sim = similarity(item.get("body", ""), p.truth["text"])
        got = [int(x) for x in re.findall(r"\d+", item.get("published_at", ""))][: len(p.truth["time"])]
        row = per_site.setdefault(SITES[p.site][1], [0, 0, 0, 0, 0])
        row[0] += 1
        row[1] += sim >= 0.95
        named, right = bool(p.truth["author"]), bool(p.truth["author"]) and item.get("author") == p.truth["author"]
        row[2] += right
        row[3] += named
        row[4] += got == p.truth["time"]
        body_ok, time_ok = body_ok + (sim >= 0.95), time_ok + (got == p.truth["time"])
        author_ok, authors = author_ok + right, authors + named
    print(
        f"kept articles {kept}: bodies >= 0.95 {body_ok / max(kept, 1):.1%}, author {author_ok / max(authors, 1):.1%}"
        f" ({authors} name one), time {time_ok / max(kept, 1):.1%}"
    )
    for name, (n, body, author, named, when) in per_site.items():
        authored = f"{author / named:.1%}" if named else "none named"
        print(f"  {name:<12} {n:4} kept: bodies {body / n:.1%}, author {authored}, time {when / n:.1%}")
    copies = dropped = alike = distinct = misses = 0
    story_of = {p.url: p.story for p in pages}
    for story, group in by_story.items():
        copies += len(group) - 1
        mine = 0
        for p in group:
            d = decisions.get(p.url)
            if d is None or d.kept:
                continue
            other = story_of.get(d.duplicate_of)
            if other == story:
                mine += 1
            elif other is not None and jaccard(stories[other]["body"], stories[story]["body"]) >= 0.5:
                alike += 1  # the corpus tells a few stories twice: a copy of the other telling
                mine += 1
            else:
                distinct += 1
                print(f"  distinct dropped: {p.url} as a copy of {d.duplicate_of}")
        dropped += min(mine, len(group) - 1)
        if mine < len(group) - 1 and misses < 3:
            misses += 1
            print(
                f"  reprint kept: story {story}, "
                + ", ".join(
                    f"{p.url} {'kept' if decisions.get(p.url) and decisions[p.url].kept else decisions.get(p.url)}"
                    for p in group
                )
            )
    print(
        f"reprints dropped {dropped}/{copies} = {dropped / max(copies, 1):.1%}, distinct dropped {distinct}"
        f" ({alike} pages dropped as a copy of the other telling of a story the corpus tells twice)"
    )


if __name__ == "__main__":
    main()
