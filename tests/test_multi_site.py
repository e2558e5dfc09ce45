"""A crawl shaped like issue 11's held-out one (``benchmarks/multi_site.py``): five sites of
different templates (a portal splitting long stories over two pages, an older GBK CMS, a
county site with no charset, a mobile site reached by its Atom feed, a Discuz-like portal),
real stories, reprints across sites, list pagination, day 1 and day 2, each site crawled with
``scrapy crawl news -a start_urls -a allow -a follow`` into one Redis index."""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import multi_site  # noqa: E402
from cross_site import similarity  # noqa: E402

from news_mirror.handler import mirror_path  # noqa: E402


def test_every_article_found_once_its_fields_right_and_every_reprint_dropped(redis_server, redis_client, sina_articles):
    redis_client.flushall()
    multi_site.configure(multi_site.DEFAULT_TEMPLATES)
    stories = [a for a in sina_articles if len(a["body"]) > 300][:70]  # past one list page on every site
    pages, bodies = multi_site.build(stories, 0.4)
    items, fetched, _, decisions = multi_site.crawl_days(pages, bodies, redis_server.url, [])
    day1 = {mirror_path(p.url) for p in pages if p.day == 1}
    assert set(fetched[1]) == day1 and len(fetched[1]) == len(day1)  # every day-1 page, once
    assert set(fetched[2]) == {mirror_path(p.url) for p in pages} - day1 and len(fetched[2]) == len(pages) - len(day1)
    copies = {}
    for p in pages:
        copies.setdefault(p.story, []).append(p)
    for _story, group in copies.items():
        kept = [p for p in group if decisions[p.url].kept]
        assert len(kept) == 1, [(p.url, decisions[p.url]) for p in group]  # one of each story, every reprint dropped
        item = items[kept[0].url]
        assert similarity(item["body"], kept[0].truth["text"]) >= 0.95, kept[0].url
        assert [int(x) for x in re.findall(r"\d+", item["published_at"])][: len(kept[0].truth["time"])] == kept[
            0
        ].truth["time"]
        assert item["author"] == kept[0].truth["author"] or not kept[0].truth["author"]
        for p in group:
            if p is not kept[0]:
                assert decisions[p.url].duplicate_of == kept[0].url
    assert any(len(g) > 1 for g in copies.values())
    split = [u for u in items if u.replace(".html", "_2.html") in multi_site.seconds]
    assert split and not any(u.endswith("_2.html") for u in items)  # stories over two pages, one item each
