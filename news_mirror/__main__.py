"""``python -m news_mirror``: serve the mirror, or run a demo on it.

python -m news_mirror serve [--port PORT] [--day 1|2] [--host ADDRESS] [--delay SECONDS]
python -m news_mirror demo          crawl it twice with every portal spider
python -m news_mirror dedup-demo    news-dedup check over real sina near-duplicates
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import time


def serve(port: int, day: int, host: str, delay: float) -> int:
    from news_mirror.server import start

    # As a container's first process SIGTERM would be ignored (no handler): stop on it.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    mirror, server, url = start(day, port, host, delay)
    print(f"mirror of {len(mirror.catalog.pages)} pages on {url} (day {day}); Ctrl-C stops it", flush=True)
    print(f"crawl it: SCRAPY_SETTINGS_MODULE=news_mirror.settings MIRROR_URL={url} news-crawler crawl", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.shutdown()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m news_mirror", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("serve", help="serve the saved pages at the portals' URLs")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--day", type=int, default=1, choices=(1, 2), help="day 2 adds new articles to the list pages")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0 in a container)")
    p.add_argument("--delay", type=float, default=0.0, help="seconds before each article page: a slow site")
    sub.add_parser("demo", help="crawl the mirror twice (day 1, day 2) on the embedded Redis")
    p = sub.add_parser("dedup-demo", help="news-dedup check over real sina articles with natural near-duplicates")
    p.add_argument("--pairs", type=int, default=60, help="natural near-duplicate pairs to include")
    args = parser.parse_args(argv)
    logging.getLogger("jieba").setLevel(logging.WARNING)
    if args.command == "serve":
        return serve(args.port, args.day, args.host, args.delay)
    if args.command == "demo":
        from news_mirror.demo import main as demo

        return demo()
    from news_mirror.dedup_demo import main as dedup_demo

    return dedup_demo(args.pairs)


if __name__ == "__main__":
    sys.exit(main())
