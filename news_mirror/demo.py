"""The main job on a fresh machine: crawl the mirror twice with all ten portal spiders on
the embedded Redis (day 1, then day 2 after new articles appeared), and show what was kept
and which reprints were dropped as copies of what.

    python -m news_mirror demo        (what ``./run demo`` runs)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from news_crawler import connection
from news_crawler.config import build_settings
from news_crawler.crawl.summary import format_table
from news_crawler.dedup.from_settings import store_from_settings
from news_mirror import settings as mirror_settings
from news_mirror.server import start

NAMESPACE = "demo"
# The demo's keys, all under "demo:" (its crawls leave nothing under the keys a real crawl of
# the same portals reads), one argument a line: any command takes them as @news_mirror/demo.args.
DEMO_ARGS = Path(__file__).with_name("demo.args")
DEMO_SETTINGS = dict(
    line.removeprefix("--set=").split("=", 1) for line in DEMO_ARGS.read_text(encoding="utf-8").split()
)


def crawl_day(mirror_url: str, out: Path) -> dict[str, Any]:
    """``news-crawler crawl`` (every portal) against the mirror, in its own process."""
    cmd = [
        sys.executable,
        "-m",
        "news_crawler.cli.crawler",
        "crawl",
        "--summary",
        str(out / "summary.json"),
        "-s",
        f"FEED_DIR={out}",
    ]
    cmd += [f"@{DEMO_ARGS}", "-s", "LOG_LEVEL=WARNING"]
    env = {**os.environ, **mirror_settings.environment(mirror_url)}
    subprocess.run(cmd, check=False, stdout=subprocess.DEVNULL, env=env, cwd=Path(__file__).resolve().parents[1])
    return json.loads((out / "summary.json").read_text(encoding="utf-8"))


def main() -> int:
    settings = build_settings(DEMO_SETTINGS)
    client = connection.from_settings(settings)
    for key in client.scan_iter(f"{NAMESPACE}:*", count=1000):
        client.delete(key)  # the demo starts from nothing every time
    store = store_from_settings(settings, client)
    mirror, server, url = start(day=1)
    pages = mirror.catalog.pages.values()
    reprints = sum(1 for p in pages if p.reprint_of)
    print(f"Redis: {connection.url_from_settings(settings)} (namespace '{NAMESPACE}')")
    print(
        f"Mirror: {url} serves {len(pages) - reprints} real saved pages of 10 portals, {reprints} edited reprints "
        f"of some of them on other portals, and list pages at each portal's real start URLs.\n"
    )
    out = Path(tempfile.mkdtemp(prefix="news-crawler-demo-"))
    for day in (1, 2):
        mirror.day = day
        before = len(mirror.requests)
        result = crawl_day(url, out / f"day{day}")
        fetched = mirror.article_requests(before)
        print(f"Day {day}: all 10 portal spiders at once, {result['seconds']}s, {len(fetched)} article pages fetched")
        print(format_table(result["sites"]))
        print()
    drops = store.drops(limit=10_000)
    print(f"{len(drops)} near-duplicates dropped, each with the URL it copies:")
    for d in drops:
        print(f"  {d.id}\n    = {d.duplicate_of}  ({d.rule}, distance {d.distance})")
    print(f"\nKept articles: {out}/day1/ and {out}/day2/ (JSON Lines)")
    print("Day 2 fetched only the articles that appeared since day 1: the Redis dupefilter remembers the rest.")
    args = DEMO_ARGS.relative_to(Path(__file__).resolve().parents[1])
    print(f"The demo's keys are its own (prefix {NAMESPACE}:); see them with: ./run news-crawler status @{args}")
    note = embedded_note(settings)
    if note:
        print(note)
    server.shutdown()
    return 0


def embedded_note(settings: Any) -> str:
    """What to say of the embedded server the demo started: it stays up for the commands that
    come next ("" when the demo ran on a Redis of the user's)."""
    if settings.get("REDIS_URL") or settings.get("REDIS_HOST"):
        return ""
    return (
        f"The embedded Redis ({connection.url_from_settings(settings)}) is still running, so that the next "
        "command finds the demo's keys; stop it with: ./run news-crawler stop-server"
    )
