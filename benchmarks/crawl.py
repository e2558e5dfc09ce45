"""A crawl of the local mirror with the near-duplicate pipeline on and off.

The mirror serves N real sina articles (the 2018 corpus, as simple article pages) and M
edited reprints of them under sina URLs, linked from the sina start pages. Each mode
crawls them with the sina spider into a fresh Redis, in its own process:

    python benchmarks/crawl.py [--articles 2000] [--reprints 200] [--rounds N] [--code DIR ...] [--modes ...]

``--code`` crawls with each checkout in turn, interleaved (a worktree of an older commit
gives a side-by-side comparison on the same machine in one run).
"""

from __future__ import annotations

import argparse
import html
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_redis import bench_server  # noqa: E402
from corpus import load_articles, with_reprints  # noqa: E402

from news_mirror import settings as mirror_settings  # noqa: E402
from news_mirror.catalog import URL_MAKERS, Catalog, Page  # noqa: E402
from news_mirror.data import SHIPPED_DATA  # noqa: E402
from news_mirror.server import Mirror, serve  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def page_html(title: str, body: str) -> bytes:
    paragraphs = "".join(f"<p>{html.escape(line)}</p>" for line in body.splitlines() if line.strip())
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{html.escape(title)}_新浪网</title></head>'
        f'<body><div class="nav"><a href="/">首页</a></div><h1>{html.escape(title)}</h1>'
        f'<div class="date">2018-10-30 10:00</div><div class="article">{paragraphs}</div></body></html>'
    ).encode()


def real_template(page: str = "tests/sina/1.html") -> str:
    """A real saved page with its article replaced by markers: the container of the most
    ``<p>`` elements gets ``<!--ARTICLE-->``, the ``<title>`` and ``<h1>`` get ``{{TITLE}}``. By default a
    real sina article page, 227 KB."""
    import lxml.html

    from news_crawler.extraction.decode import decode_html

    root = lxml.html.fromstring(decode_html(SHIPPED_DATA.page(SHIPPED_DATA.gne, page))[0])
    container = max(root.iter("div", "article", "section"), key=lambda el: len(el.findall("p")))
    for child in list(container):
        container.remove(child)
    container.text = "ARTICLE_MARKER"
    for el in root.iter("title", "h1"):
        for child in list(el):
            el.remove(child)
        el.text = "TITLE_MARKER"
    text = lxml.html.tostring(root, encoding="unicode")
    return text.replace("ARTICLE_MARKER", "<!--ARTICLE-->").replace("TITLE_MARKER", "{{TITLE}}")


def real_page_html(template: str, title: str, body: str) -> bytes:
    paragraphs = "".join(f"<p>{html.escape(line)}</p>" for line in body.splitlines() if line.strip())
    return template.replace("{{TITLE}}", html.escape(title)).replace("<!--ARTICLE-->", paragraphs).encode()


def build(articles: int, reprints: int, pages: str = "real") -> Catalog:
    catalog = Catalog()
    template = real_template() if pages == "real" else ""
    for doc in with_reprints(load_articles(articles), reprints, seed=11):
        url = URL_MAKERS["sina"](doc["id"])
        body = real_page_html(template, doc["title"], doc["body"]) if template else page_html(doc["title"], doc["body"])
        catalog.add(Page(url, "sina", 1, doc["title"], story=doc["id"].removesuffix("~r"), body=body))
    return catalog


def crawl(mirror_url: str, settings: dict[str, str], code: Path = ROOT) -> tuple[float, dict]:
    with bench_server() as redis_url, tempfile.TemporaryDirectory() as out:
        cmd = [
            sys.executable,
            "-m",
            "news_crawler.cli.crawler",
            "crawl",
            "sina",
            "--summary",
            f"{out}/summary.json",
            "-s",
            f"REDIS_URL={redis_url}",
            "-s",
            f"FEED_DIR={out}",
            "-s",
            "LOG_LEVEL=WARNING",
            "-s",
            "CONCURRENT_REQUESTS_PER_DOMAIN=16",
        ]
        for k, v in settings.items():
            cmd += ["-s", f"{k}={v}"]
        started = time.perf_counter()
        env = {**os.environ, **mirror_settings.environment(mirror_url), "PYTHONPATH": str(code)}
        subprocess.run(cmd, cwd=code, check=True, stdout=subprocess.DEVNULL, env=env)
        took = time.perf_counter() - started
        return took, json.loads(Path(f"{out}/summary.json").read_text())


MODES = {
    "off": ("pipeline off (DEDUP_ENABLED=False)", {"DEDUP_ENABLED": "False"}),
    "default": ("pipeline on, default pool", {}),
    "one": ("pipeline on, 1 worker process", {"DEDUP_PROCESSES": "1"}),
    "thread": ("pipeline on, one thread (DEDUP_PROCESSES=0)", {"DEDUP_PROCESSES": "0"}),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--articles", type=int, default=2000)
    ap.add_argument("--reprints", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument(
        "--code",
        type=Path,
        nargs="+",
        default=[ROOT],
        help="checkouts to crawl with, side by side (e.g. a worktree of an older commit)",
    )
    ap.add_argument("--modes", nargs="+", default=["off", "default", "thread"], choices=list(MODES))
    ap.add_argument(
        "--pages",
        choices=["real", "synthetic"],
        default="real",
        help="real: each article inside a real saved sina page (227 KB); synthetic: a bare 2 KB page",
    )
    args = ap.parse_args()
    catalog = build(args.articles, args.reprints, args.pages)
    mirror = Mirror(catalog)
    server = serve(mirror)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    print(
        f"mirror: {len(catalog.pages)} {args.pages} article pages ({args.articles} real sina articles, "
        f"{args.reprints} reprints)"
    )
    random.seed(0)
    for round_ in range(1, args.rounds + 1):
        for mode in args.modes:
            for code in args.code:  # interleaved: a slow spell of the machine hits every checkout
                took, summary = crawl(url, MODES[mode][1], code)
                row = summary["sites"]["sina"]
                print(
                    f"round {round_} {code.name:<10} {MODES[mode][0]:<44} {took:6.1f}s wall  "
                    f"{row['fetched'] / took:6.1f} pages/s  fetched {row['fetched']}, kept {row['kept']}, "
                    f"dropped {row['dropped']}, invalid {row['invalid']}",
                    flush=True,
                )
    server.shutdown()


if __name__ == "__main__":
    main()
