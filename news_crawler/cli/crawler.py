"""``news-crawler``: run the crawl, the local mirror and the demo.

    news-crawler crawl [SPIDER ...] [--mirror URL] [--summary FILE] [-s NAME=VALUE ...]
    news-crawler mirror [--port PORT] [--day N]
    news-crawler demo
    news-crawler daily [--mirror URL] [-s NAME=VALUE ...]
    news-crawler status [--json]
    news-crawler stop-server
    news-crawler seed [SPIDER ...] [--every SECONDS]
    news-crawler worker [SPIDER ...] [--idle SECONDS]
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

# The shared real pages and corpus (../shared/data beside the checkout), for the mirror and demos.
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


EX_TEMPFAIL = 75  # sysexits: another daily run holds the lock; try again later


def site_failures(results: dict[str, dict[str, Any]]) -> list[str]:
    """Spiders that did not finish, or finished without fetching a single list page."""
    failed = []
    for name, result in results.items():
        lists = sum(row.get("lists", 0) for row in result["sites"].values())
        if result["reason"] != "finished" or lists == 0:
            failed.append(name)
    return failed


def cmd_daily(args: argparse.Namespace) -> int:
    import fcntl
    from datetime import datetime

    from news_crawler.runner import all_spider_names, project_settings, run_spiders

    overrides = _overrides(args.set or [])
    if args.mirror:
        overrides["MIRROR_URL"] = args.mirror
    settings = project_settings(overrides)
    directory = Path(settings.get("DAILY_DIR")).expanduser()
    (directory / "logs").mkdir(parents=True, exist_ok=True)
    (directory / "summaries").mkdir(parents=True, exist_ok=True)
    now = datetime.now().astimezone()
    log_file = directory / "logs" / f"{now.date().isoformat()}.log"
    lock = open(directory / "daily.lock", "a+")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        lock.seek(0)
        message = f"{now.isoformat(timespec='seconds')} skipped: another daily run holds {lock.name} ({lock.read().strip()})"
        with open(log_file, "a", encoding="utf-8") as f:
            f.write(message + "\n")
        print(f"news-crawler: {message}", file=sys.stderr)
        return EX_TEMPFAIL
    lock.seek(0)
    lock.truncate()
    lock.write(f"pid {os.getpid()} since {now.isoformat(timespec='seconds')}")
    lock.flush()

    names = settings.getlist("DAILY_SPIDERS") or all_spider_names()
    overrides.update(LOG_FILE=str(log_file), LOG_FILE_APPEND=True, LOG_LEVEL=overrides.get("LOG_LEVEL", "INFO"))
    started = time.monotonic()
    results = run_spiders(names, overrides)
    failed = site_failures(results)
    summary = {
        "started": now.isoformat(timespec="seconds"),
        "seconds": round(time.monotonic() - started, 1),
        "sites": merge_sites(results),
        "spiders": {name: r["reason"] for name, r in results.items()},
        "failed": failed,
        "log": str(log_file),
    }
    path = directory / "summaries" / f"{now.strftime('%Y-%m-%dT%H%M%S')}.json"
    path.write_text(json.dumps(summary, ensure_ascii=False, indent=1), encoding="utf-8")
    print(format_table(summary["sites"]))
    print(f"{summary['seconds']}s; summary {path}; log {log_file}")
    if failed:
        print(f"news-crawler: failed: {', '.join(failed)} (see {log_file})", file=sys.stderr)
        return 1
    return 0


def spider_status(client: Any, settings: Any, names: list[str]) -> dict[str, dict[str, int]]:
    out = {}
    for name in names:
        queue_key = settings.get("SCHEDULER_QUEUE_KEY") % {"spider": name}
        kind = client.type(queue_key)
        kind = kind.decode() if isinstance(kind, bytes) else kind
        queued = {"zset": client.zcard, "list": client.llen}.get(kind, lambda k: 0)(queue_key)
        seen = client.scard(settings.get("SCHEDULER_DUPEFILTER_KEY") % {"spider": name})
        seeds = client.llen(settings.get("SEED_KEY") % {"spider": name})
        if queued or seen or seeds:
            out[name] = {"queued": queued, "seen_urls": seen, "seeds": seeds}
    return out


def cmd_status(args: argparse.Namespace) -> int:
    from news_crawler import connection
    from news_crawler.engine import store_from_settings
    from news_crawler.index.base import now_iso
    from news_crawler.runner import all_spider_names, project_settings

    settings = project_settings(_overrides(args.set or []))
    client = connection.from_settings(settings)
    store = store_from_settings(settings, client)
    counts = store.counts()
    memory = client.info("memory")
    report: dict[str, Any] = {
        "redis": connection.url_from_settings(settings).split("@")[-1],
        "spiders": spider_status(client, settings, all_spider_names() + ["news"]),
        "dedup": {
            "namespace": store.namespace,
            "fingerprints": client.hlen(store.ids_key),
            "kept": counts["kept"],
            "dropped": counts["dropped"],
            "dropped_today": counts.get("drops:" + now_iso()[:10], 0),
        },
        "redis_memory_bytes": int(memory["used_memory"]),
    }
    summaries = sorted((Path(settings.get("DAILY_DIR")).expanduser() / "summaries").glob("*.json"))
    if summaries:
        last = json.loads(summaries[-1].read_text(encoding="utf-8"))
        report["last_daily_run"] = {k: last[k] for k in ("started", "seconds", "failed")}
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
        return 0
    print(f"Redis {report['redis']}, {memory['used_memory_human']} used")
    print(f"{'spider':<12}{'queued':>9}{'seen URLs':>11}{'seeds':>7}")
    for name, row in report["spiders"].items():
        print(f"{name:<12}{row['queued']:>9}{row['seen_urls']:>11}{row['seeds']:>7}")
    d = report["dedup"]
    print(f"near-duplicate index '{d['namespace']}': {d['fingerprints']} fingerprints, {d['kept']} kept, "
          f"{d['dropped']} dropped ({d['dropped_today']} today)")
    if "last_daily_run" in report:
        r = report["last_daily_run"]
        print(f"last daily run: {r['started']}, {r['seconds']}s, failed: {', '.join(r['failed']) or 'none'}")
    return 0


def cmd_seed(args: argparse.Namespace) -> int:
    from news_crawler import connection
    from news_crawler.runner import project_settings
    from news_crawler.spiders.portals import PORTALS
    from news_crawler.spiders.seeds import seed

    settings = project_settings(_overrides(args.set or []))
    spiders = [s for s in PORTALS if not args.spiders or s.name in args.spiders]
    client = connection.from_settings(settings)
    while True:
        if args.at:
            wait = seconds_until(args.at)
            print(f"next seeding at {args.at} (in {wait / 3600:.1f} h)", flush=True)
            time.sleep(wait)
        pushed = seed(client, spiders, settings.get("SEED_KEY"))
        print(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} seeded {sum(pushed.values())} start URLs of "
              f"{len(pushed)} spiders", flush=True)
        if not args.every and not args.at:
            return 0
        if args.every:
            time.sleep(args.every)


def seconds_until(hhmm: str, now: Any = None) -> float:
    """Seconds from ``now`` (local time) to the next ``HH:MM``."""
    from datetime import datetime, timedelta

    now = now or datetime.now()
    hour, minute = (int(x) for x in hhmm.split(":"))
    target = now.replace(hour=hour, minute=minute, second=0, microsecond=0)
    if target <= now:
        target += timedelta(days=1)
    return (target - now).total_seconds()


def _hhmm(text: str) -> str:
    import re

    if not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", text):
        raise argparse.ArgumentTypeError(f"expected HH:MM (24-hour), got {text!r}")
    return text


def cmd_worker(args: argparse.Namespace) -> int:
    overrides = ["SEED_FROM_REDIS=True"] + (args.set or [])
    if args.idle is not None:
        overrides.append(f"WORKER_IDLE_SECONDS={args.idle}")
    args.set = overrides
    return cmd_crawl(args)


def cmd_stop_server(args: argparse.Namespace) -> int:
    from news_crawler.embedded import stop_server
    from news_crawler.runner import project_settings

    directory = project_settings(_overrides(args.set or [])).get("EMBEDDED_REDIS_DIR")
    if stop_server(directory):
        print(f"stopped the embedded server of {directory} (its data stays on disk)")
    else:
        print(f"no embedded server runs for {directory}")
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
    p = sub.add_parser("daily", help="the daily run for cron: every portal, locked, logged, summarised")
    p.add_argument("--mirror", help="crawl this local mirror instead of the portals")
    p.add_argument("-s", "--set", action="append", metavar="NAME=VALUE", help="a Scrapy setting")
    p.set_defaults(func=cmd_daily)
    p = sub.add_parser("status", help="queues, dupefilters, fingerprints, drops today, Redis memory")
    p.add_argument("--json", action="store_true")
    p.add_argument("-s", "--set", action="append", metavar="NAME=VALUE", help="a Scrapy setting")
    p.set_defaults(func=cmd_status)
    p = sub.add_parser("stop-server", help="stop the embedded Redis (it keeps running between crawls)")
    p.add_argument("-s", "--set", action="append", metavar="NAME=VALUE", help="a Scrapy setting")
    p.set_defaults(func=cmd_stop_server)
    p = sub.add_parser("seed", help="push every portal's start URLs for the cluster workers")
    p.add_argument("spiders", nargs="*")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--every", type=float, default=0, help="seed now, then every this many seconds")
    when.add_argument("--at", type=_hhmm, help="seed every day at this local time (HH:MM), for the cluster's seeder")
    p.add_argument("-s", "--set", action="append", metavar="NAME=VALUE", help="a Scrapy setting")
    p.set_defaults(func=cmd_seed)
    p = sub.add_parser("worker", help="a cluster worker: crawl seeded start pages from the shared queue")
    p.add_argument("spiders", nargs="*", help="spider names (default: every portal)")
    p.add_argument("--mirror", help="fetch everything from this local mirror")
    p.add_argument("--summary", help="write the summary as JSON to this file")
    p.add_argument("--idle", type=float, help="stop after this many idle seconds (0: never)")
    p.add_argument("-s", "--set", action="append", metavar="NAME=VALUE", help="a Scrapy setting")
    p.set_defaults(func=cmd_worker)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
