"""A browser site crawled whole: pages/s, the browser's peak memory, every article right.

A local site of N real articles (``news_mirror/scripted.py``; the sina2018 corpus of
``NEWS_DATA``, else the shipped excerpt) whose list pages build their
links with script and whose articles insert their text from a JSON blob is crawled with
``news-crawler crawl`` (``render = "browser"``, the machine's Chromium), on its own embedded
Redis, near-duplicate removal off (every article must reach the feed). While it runs, the
memory of every browser process (Chromium and Playwright's driver) is sampled every 0.2 s:
the peak of their summed RSS (shared pages counted in each process) and of their summed PSS
(shared pages divided among them). Each article is "right" when its feed line's title,
body, author and time equal what extraction gives on the same article written out as plain
HTML. At the end, pages opened = pages closed (the crawl's playwright stats).

    ./run python benchmarks/browser.py [--pages 300]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from news_crawler.extraction import extract_article  # noqa: E402
from news_mirror.data import NEWS_DATA  # noqa: E402
from news_mirror.live import articles  # noqa: E402
from news_mirror.scripted import ScriptedSite, serve  # noqa: E402

BROWSER_NAMES = ("chromium", "chrome", "headless_shell", "node")  # node: Playwright's driver


def browser_memory(root: int) -> tuple[int, int]:
    """Summed RSS and PSS (bytes) of the browser processes under ``root``."""
    rss = pss = 0
    try:
        children = psutil.Process(root).children(recursive=True)
    except psutil.NoSuchProcess:
        return 0, 0
    for p in children:
        try:
            if not any(n in p.name().lower() for n in BROWSER_NAMES):
                continue
            info = p.memory_full_info()
            rss += info.rss
            pss += getattr(info, "pss", info.rss)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return rss, pss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=300, help="articles on the site")
    args = parser.parse_args()
    # the corpus holds a few rows whose text is itself mis-decoded bytes (U+FFFD): not articles
    full = NEWS_DATA / "sina2018"
    corpus = full if (full / "articles.jsonl.gz").exists() else None  # the shipped excerpt holds ~690
    texts = [a for a in articles(args.pages + 20, corpus=corpus) if "\ufffd" not in a["body"]][: args.pages]
    site = ScriptedSite(texts, per_list=50)
    server, url = serve(site)
    tmp = Path(tempfile.mkdtemp(prefix="browser-bench-"))
    (tmp / "sites.toml").write_text(
        f'[sites.scripted]\nstart_urls = ["{url}/list/0.html"]\n'
        "allow = '/a/\\d+\\.html$'\nfollow = '/list/\\d+\\.html$'\nrender = \"browser\"\n",
        encoding="utf-8",
    )
    env = {**os.environ, "SITES_FILE": str(tmp / "sites.toml"), "DATA_DIR": str(tmp / "data")}
    cmd = [sys.executable, "-m", "news_crawler.cli.crawler", "crawl", "scripted", "--summary", str(tmp / "s.json")]
    cmd += ["-s", "DEDUP_ENABLED=False", "-s", "LOG_LEVEL=INFO", "-s", "LIST_PAGE_LIMIT=100"]
    started = time.monotonic()
    with open(tmp / "crawl.log", "w") as log:
        proc = subprocess.Popen(cmd, env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    peak = [0, 0]

    def sample() -> None:
        while proc.poll() is None:
            rss, pss = browser_memory(proc.pid)
            peak[0], peak[1] = max(peak[0], rss), max(peak[1], pss)
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    code = proc.wait()
    seconds = time.monotonic() - started
    sampler.join()
    server.shutdown()
    # the crawl's embedded Redis outlives it, as it does for a user: this benchmark's is done
    subprocess.run([sys.executable, "-m", "news_crawler.cli.crawler", "stop-server"], env=env, capture_output=True)
    log_text = (tmp / "crawl.log").read_text()
    lines = [json.loads(x) for f in (tmp / "data" / "output").glob("*/*.jsonl") for x in f.read_text().splitlines()]
    right = 0
    for line in lines:
        n = int(line["url"].rsplit("/", 1)[1][:-5])
        plain = extract_article(site.static_article_page(n), url=line["url"])
        right += (plain.title, plain.body, plain.author, plain.published_at) == (
            line["title"],
            line["body"],
            line["author"],
            line["published_at"],
        )

    def stat(name: str) -> int:
        marker = f"'{name}': "
        at = log_text.rfind(marker)
        return int(log_text[at + len(marker) :].split(",")[0].split("}")[0]) if at >= 0 else 0

    opened, closed = stat("playwright/page_count"), stat("playwright/page_count/closed")
    pages = len([p for _, p in site.requests if p.startswith(("/a/", "/list/"))])
    print(f"exit code                {code}")
    print(f"articles in the feed     {len(lines)} of {args.pages}; extracted right {right}")
    print(f"pages rendered           {opened} opened, {closed} closed; {pages} fetched from the site")
    print(f"aborted browser requests {stat('browser/aborted')}; contexts closed {stat('browser/contexts_closed')}")
    print(f"time                     {seconds:.1f} s, {pages / seconds:.1f} pages/s (with the browser's start)")
    print(f"browser peak memory      RSS {peak[0] / 2**20:.0f} MiB summed, PSS {peak[1] / 2**20:.0f} MiB")


if __name__ == "__main__":
    main()
