"""``news-crawler``: run the crawl, the local mirror and the demo.

    news-crawler crawl [SPIDER ...] [--mirror URL] [--summary FILE] [-s NAME=VALUE ...]
    news-crawler mirror [--port PORT] [--day N]
    news-crawler demo
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from news_crawler.summary import format_table

DATA = Path(os.environ.get("NEWS_DATA", Path(__file__).resolve().parents[3] / "shared" / "data"))


def _overrides(pairs: list[str]) -> dict[str, Any]:
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"news-crawler: -s takes NAME=VALUE, got {pair!r}")
        out[name] = value
    return out


def merge_sites(results: dict[str, dict[str, Any]]) -> dict[str, dict[str, int]]:
    sites: dict[str, dict[str, int]] = {}
    for result in results.values():
        for site, row in result["sites"].items():
            into = sites.setdefault(site, dict.fromkeys(row, 0))
            for k, v in row.items():
                into[k] += v
    return sites


def cmd_crawl(args: argparse.Namespace) -> int:
    from news_crawler.runner import all_spider_names, run_spiders

    names = args.spiders or all_spider_names()
    unknown = sorted(set(names) - set(all_spider_names()) - {"news"})
    if unknown:
        print(f"news-crawler: unknown spider(s) {', '.join(unknown)}; known: {', '.join(all_spider_names())}, news",
              file=sys.stderr)
        return 2
    overrides = _overrides(args.set or [])
    if args.mirror:
        overrides["MIRROR_URL"] = args.mirror
    started = time.monotonic()
    results = run_spiders(names, overrides)
    sites = merge_sites(results)
    print(format_table(sites))
    failed = [name for name, r in results.items() if r["reason"] != "finished"]
    record = {"spiders": results, "sites": sites, "seconds": round(time.monotonic() - started, 1), "failed": failed}
    if args.summary:
        Path(args.summary).parent.mkdir(parents=True, exist_ok=True)
        Path(args.summary).write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
    if failed:
        print(f"news-crawler: spiders that did not finish: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def start_mirror(day: int = 1, port: int = 0):
    from news_crawler.mirror.catalog import add_bad_pages, build_catalog
    from news_crawler.mirror.server import Mirror, serve

    if not (DATA / "pages").is_dir():
        raise SystemExit(f"news-crawler: saved pages not found under {DATA}; set NEWS_DATA to the shared data folder")
    catalog = build_catalog(DATA)
    add_bad_pages(catalog)
    mirror = Mirror(catalog, day)
    server = serve(mirror, port=port)
    return mirror, server, f"http://127.0.0.1:{server.server_address[1]}"


def cmd_mirror(args: argparse.Namespace) -> int:
    mirror, server, url = start_mirror(args.day, args.port)
    print(f"mirror of {len(mirror.catalog.pages)} pages on {url} (day {args.day}); Ctrl-C stops it", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.shutdown()
    return 0


DEMO_SETTINGS = {
    "DEDUP_NAMESPACE": "demo",
    "SCHEDULER_QUEUE_KEY": "demo:%(spider)s:requests",
    "SCHEDULER_DUPEFILTER_KEY": "demo:%(spider)s:dupefilter",
    "LOG_LEVEL": "WARNING",
}


def _crawl_subprocess(mirror_url: str, summary: Path, feed_dir: Path) -> dict[str, Any]:
    import subprocess

    cmd = [sys.executable, "-m", "news_crawler.cli.crawler", "crawl", "--mirror", mirror_url, "--summary", str(summary),
           "-s", f"FEED_DIR={feed_dir}", "-s", f"FEEDS={json.dumps({str(feed_dir / '%(name)s.jsonl'): {'format': 'jsonlines', 'encoding': 'utf8', 'overwrite': False}})}"]
    for k, v in DEMO_SETTINGS.items():
        cmd += ["-s", f"{k}={v}"]
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL)
    return json.loads(summary.read_text(encoding="utf-8"))


def cmd_demo(args: argparse.Namespace) -> int:
    import tempfile

    from news_crawler import connection
    from news_crawler.runner import project_settings

    settings = project_settings(DEMO_SETTINGS)
    client = connection.from_settings(settings)
    for key in client.scan_iter("demo:*", count=1000):
        client.delete(key)  # the demo starts from nothing every time
    mirror, server, url = start_mirror(day=1)
    originals = sum(1 for p in mirror.catalog.pages.values() if not p.reprint_of)
    reprints = sum(1 for p in mirror.catalog.pages.values() if p.reprint_of)
    print(f"Redis: {connection.url_from_settings(settings)} (namespace 'demo')")
    print(f"Mirror: {url} serves {originals} real saved pages of 10 portals, {reprints} edited reprints of some of "
          f"them on other portals, and list pages at each portal's real start URLs.\n")
    out = Path(tempfile.mkdtemp(prefix="news-crawler-demo-"))
    for day in (1, 2):
        mirror.day = day
        before = len(mirror.requests)
        result = _crawl_subprocess(url, out / f"summary-day{day}.json", out / f"day{day}")
        fetched = [r for r in mirror.requests[before:] if r not in mirror._lists]
        print(f"Day {day}: all 10 portal spiders at once, {result['seconds']}s, {len(fetched)} article pages fetched")
        print(format_table(result["sites"]))
        print()
    drops = [json.loads(v) | {"id": k.decode()} for k, v in client.hgetall("demo:drops").items()]
    print(f"{len(drops)} near-duplicates dropped, each with the URL it copies:")
    for d in drops:
        print(f"  {d['id']}\n    = {d['duplicate_of']}  (distance {d['distance']})")
    print(f"\nKept articles: {out}/day1/*.jsonl and {out}/day2/*.jsonl")
    print("Day 2 fetched only the articles that appeared since day 1: the Redis dupefilter remembers the rest.")
    server.shutdown()
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="news-crawler", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("crawl", help="run spiders (all portals by default) until done, print a per-site summary")
    p.add_argument("spiders", nargs="*", help="spider names (default: every portal)")
    p.add_argument("--mirror", help="fetch everything from this local mirror (news-crawler mirror)")
    p.add_argument("--summary", help="write the summary as JSON to this file")
    p.add_argument("-s", "--set", action="append", metavar="NAME=VALUE", help="a Scrapy setting")
    p.set_defaults(func=cmd_crawl)
    p = sub.add_parser("mirror", help="serve saved real pages at the portals' URLs, for tests and demos")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--day", type=int, default=1, choices=(1, 2), help="day 2 adds new articles to the list pages")
    p.set_defaults(func=cmd_mirror)
    p = sub.add_parser("demo", help="crawl the mirror twice (day 1, day 2) on the embedded Redis")
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
