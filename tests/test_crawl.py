"""End to end: real Scrapy crawls over HTTP of real saved pages, with a real Redis."""

import json
import re
import subprocess
import sys
from collections import Counter

import pytest

from news_crawler.dedup.fingerprint import Fingerprinter, distance, from_hex
from news_crawler.dedup.index import RedisStore
from news_crawler.extraction import extract_article
from news_crawler.extraction.decode import decode_html
from news_crawler.outcomes.store import parse_outcome
from news_crawler.spiders.sites import load_sites
from news_mirror.catalog import add_bad_pages, build_catalog
from news_mirror.server import Mirror, serve
from tests.conftest import DATA
from tests.crawl_helpers import ROOT, crawl, load, mirror_env, originals, superseded

CONTRACT = {"url", "site", "title", "author", "published_at", "body", "simhash", "crawled_at"}


@pytest.fixture(scope="module")
def catalog():
    catalog = build_catalog(DATA)
    bad = add_bad_pages(catalog)
    return catalog, bad


@pytest.fixture
def mirror(catalog):
    mirror = Mirror(catalog[0], day=1)
    server = serve(mirror)
    yield mirror, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def article_fetches(mirror: Mirror, since: int = 0) -> Counter:
    return Counter(mirror.article_requests(since))


def test_every_mirrored_url_is_an_article_url_of_its_portal(catalog):
    sites = load_sites()
    for page in catalog[0].pages.values():
        assert any(re.search(p, page.url) for p in sites[page.site].allow), page.url
    assert len({p.site for p in catalog[0].pages.values()}) == len(sites) == 10


def test_two_daily_runs_keep_each_story_once_and_fetch_only_new_articles(
    tmp_path, redis_server, redis_client, mirror, catalog
):
    mirror, url = mirror
    pages = catalog[0].pages
    summary, items = crawl(tmp_path, redis_server.url, url, name="day1")
    assert summary["failed"] == []
    log = (tmp_path / "day1.log").read_text()
    assert "DeprecationWarning" not in log and "Traceback" not in log  # scrapy-redis patched for the pinned Scrapy
    # A drop is one line naming the URL and what it duplicates; no article is printed whole.
    assert "Dropped: near-duplicate of " in log and "'body':" not in log
    fetched1 = article_fetches(mirror)
    day1 = {u for u, p in pages.items() if p.day == 1}
    assert {f"{u.split('://')[1]}" for u in day1} == set(fetched1)  # every day-1 article, nothing else
    assert max(fetched1.values()) == 1  # each fetched once

    kept = {i["url"]: i for i in items}
    raw = "".join(f.read_text(encoding="utf-8") for f in (tmp_path / "day1").glob("*/*.jsonl"))
    assert items[0]["title"] in raw and "\\u" not in raw  # UTF-8, Chinese as it is: never \u escapes
    for item in items:
        assert CONTRACT <= item.keys() and item["body"] and len(item["simhash"]) == 16
        assert (
            re.fullmatch(r"\d{4}-\d\d-\d\d(T\d\d:\d\d:\d\d[+-]\d\d:\d\d)?", item["published_at"])
            or item["published_at"] == ""
        ), item["published_at"]
    # No two originals are near-duplicates; every story with reprints has one. (A reprint
    # kept before its original came was kept, then superseded by it: in the feed, a copy now.)
    replaced = superseded(items)
    for item in items:  # an original replaced only copies kept before it and published later
        for copy in item.get("supersedes", ()):
            assert kept[copy]["published_at"] > item["published_at"], (item["url"], copy)
    values = [from_hex(i["simhash"]) for i in originals(items)]
    assert all(distance(a, b) > 3 for n, a in enumerate(values) for b in values[n + 1 :])
    store = RedisStore(redis_client, "news")
    drops = store.drops(limit=1000)
    dropped = {d.id for d in drops}
    # Each drop's outcome names what it duplicates (the URL itself is the record's field).
    day_hashes = redis_client.keys("*:outcomes:20*")
    for d in drops:
        rec = parse_outcome(next(r for r in (redis_client.hget(k, d.id) for k in day_hashes) if r))
        if d.id in replaced:  # kept when it was decided, and written
            assert rec["outcome"] == "kept" and d.id in kept
            continue
        assert rec == {
            **rec,
            "outcome": "duplicate",
            "reason": f"near-duplicate of {d.duplicate_of} (distance {d.distance}, rule {d.rule})",
        }
    # Each story with reprints is kept at most once (zero times when yet another saved page
    # of the same story was kept first); every copy not kept was dropped as a near-duplicate.
    fingerprinter = Fingerprinter()
    caught = missed = 0
    for story, group in catalog[0].by_story().items():
        if len(group) < 2 or any(p.day != 1 for p in group):
            continue
        fps = {p.url: fingerprinter.fingerprint(extract_article(decode_html(p.body)[0]).body).value for p in group}
        assert all(u in kept or u in dropped for u in fps), story
        original, *copies = [p.url for p in group]
        for copy in copies:
            if distance(fps[original], fps[copy]) <= 3:
                assert (original in kept and original not in replaced) + (copy in kept and copy not in replaced) <= 1
                caught += 1
            else:
                missed += 1
    day1_reprints = sum(1 for p in pages.values() if p.reprint_of and p.day == 1 and pages[p.reprint_of].day == 1)
    assert missed == 0 and caught == day1_reprints >= 3, (caught, missed)  # every reprint on day 1 is caught
    for d in drops:
        assert d.duplicate_of in kept and d.distance <= 3
        assert distance(d.simhash, from_hex(kept[d.duplicate_of]["simhash"])) == d.distance

    # Bad pages are counted as invalid with a reason, never crash the crawl.
    assert summary["sites"]["qq"]["invalid"] == 2 and summary["sites"]["ifeng"]["invalid"] == 1
    assert not set(catalog[1]) & set(kept)
    for bad in catalog[1]:  # each outcome says why, without repeating its URL
        rec = parse_outcome(next(r for r in (redis_client.hget(k, bad) for k in day_hashes) if r))
        assert (
            rec["outcome"] == "invalid" and rec["reason"].startswith("invalid article (") and bad not in rec["reason"]
        )

    # Day 2: new articles appear on the list pages; only they are fetched.
    mirror.day = 2
    before = len(mirror.requests)
    summary2, items2 = crawl(tmp_path, redis_server.url, url, name="day2")
    fetched2 = article_fetches(mirror, before)
    day2 = {u.split("://")[1] for u, p in pages.items() if p.day == 2}
    assert set(fetched2) == day2 and max(fetched2.values()) == 1
    assert not {i["url"] for i in items2} & set(kept)
    total = sum(r["kept"] for r in summary2["sites"].values())
    assert total == len(items2) > 0


def test_gbk_pages_decode_with_and_without_declared_charset(tmp_path, redis_server, redis_client, mirror, catalog):
    mirror, url = mirror
    _, items = crawl(
        tmp_path, redis_server.url, url, ["sohu"], name="sohu", settings={"ITEMS_REDIS_KEY": "%(spider)s:items"}
    )
    # Kept items also went to the Redis list for downstream consumers, as JSON.
    pushed = [json.loads(x) for x in redis_client.lrange("sohu:items", 0, -1)]
    assert sorted(i["url"] for i in pushed) == sorted(i["url"] for i in items) and len(items) >= 3
    labels = {x["id"][:8]: x for x in DATA.cwced_labels()}
    by_url = {i["url"]: i for i in items}
    sohu_pages = [p for p in catalog[0].pages.values() if p.site == "sohu" and not p.reprint_of and p.day == 1]
    assert any("charset" not in p.content_type for p in sohu_pages)  # one page declares nothing at all
    checked = 0
    for page in sohu_pages:
        label = next(
            x
            for k, x in labels.items()
            if page.body == DATA.page(DATA.cwced, x["html"]) or k == "7c6d2080" and "charset" not in page.content_type
        )
        item = by_url.get(page.url)
        if item is None:
            continue
        assert "\ufffd" not in item["body"] and "\ufffd" not in item["title"]
        first = [line.strip() for line in label["content"].splitlines() if len(line.strip()) > 15][0][:15]
        assert first in item["body"].replace("\u3000", ""), (page.url, first)
        checked += 1
    assert checked >= 3


def test_two_workers_share_one_queue_and_dupefilter(tmp_path, redis_server, redis_client, mirror, catalog):
    mirror, url = mirror
    procs = [crawl(tmp_path, redis_server.url, url, ["sina", "163"], name=f"w{i}", wait=False) for i in range(2)]
    for p in procs:
        assert p.wait(300) == 0
    fetched = article_fetches(mirror)
    expected = {u.split("://")[1] for u, p in catalog[0].pages.items() if p.site in ("sina", "163") and p.day == 1}
    assert set(fetched) == expected and max(fetched.values()) == 1  # each article once across both workers
    items = load(tmp_path / "w0")[1] + load(tmp_path / "w1")[1]
    assert len({i["url"] for i in items}) == len(items)


def test_generic_news_spider_crawls_any_site(tmp_path, redis_server, redis_client, mirror):
    mirror, url = mirror
    out = tmp_path / "generic.jsonl"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "scrapy",
            "crawl",
            "news",
            "-a",
            "start_urls=https://news.sohu.com/",
            "-a",
            r"allow=sohu\.com/\d{8}/n\d+\.shtml",
            "-O",
            str(out),
            "-s",
            f"REDIS_URL={redis_server.url}",
            "-s",
            "DEDUP_PROCESSES=0",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=mirror_env(url),
    )
    assert result.returncode == 0, result.stderr[-2000:]
    items = [json.loads(line) for line in out.read_text().splitlines()]
    assert items and all(i["site"] == "news.sohu.com" and CONTRACT <= i.keys() for i in items)


def test_generic_spider_with_no_arguments_says_what_to_pass_in_one_line():
    result = subprocess.run(
        [sys.executable, "-m", "scrapy", "crawl", "news"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 2 and "start_urls=URL" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "arguments,settings,says",
    [
        ({"start_urls": "news.sohu.com", "allow": "x"}, {}, "bad start URL 'news.sohu.com'"),
        ({"start_urls": "https://news.sohu.com/", "allow": "(\\d+"}, {}, "bad URL pattern"),
        ({"start_urls": "https://news.sohu.com/"}, {}, "needs the article URL pattern: -a allow=REGEX"),
        (
            {"start_urls": "https://news.sohu.com/", "allow": "x"},
            {"URL_TRACKING_PARAMS": "utm_("},
            "bad URL_TRACKING_PARAMS pattern",
        ),
    ],
)
def test_generic_spider_with_bad_arguments_says_what_to_pass(arguments, settings, says, redis_server):
    """What ``scrapy crawl news -a ...`` checks, asked in this process: the command prints
    the same message in one line and exits 2 (the test above). (On the suite's server: the
    embedded default would start one in the user's own data directory.)"""
    from news_crawler.spiders.news import NewsSpider
    from tests.crawl_helpers import project_crawler

    with pytest.raises(ValueError, match=re.escape(says)):
        NewsSpider.from_crawler(project_crawler(NewsSpider, {"REDIS_URL": redis_server.url, **settings}), **arguments)
