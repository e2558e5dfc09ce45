"""``news-crawler extract``: the fields the crawler would write for a page, without crawling.

    news-crawler extract FILE... [--url URL] [--content-type CT]   (no --url: the address the page names)
    news-crawler extract URL

One JSON line a page, in the order given: the feed's fields (``simhash`` included), or
``{"file"|"url", "invalid": reason}`` for a page that holds no article. A URL is fetched as
``sites check`` fetches (the crawl's user agent, timeout and size limit; a redirect only to
another http(s) URL). Exits 1 when no page gave an article.
"""

from __future__ import annotations

import argparse
import html
import re
import sys
from pathlib import Path
from typing import Any

from news_crawler.cli import options
from news_crawler.errors import UserError
from news_crawler.fields import FEED_FIELDS, well_formed
from news_crawler.printable import json_line, printable

# The feed's fields, less what only a crawl knows (its site, the time it ran).
FIELDS = tuple(f for f in FEED_FIELDS if f not in ("site", "crawled_at", "version"))  # a crawl's, not a page's


def fields_of(
    body: bytes, content_type: str, url: str, fingerprinter: Any, min_chars: int, images_max: int
) -> dict[str, Any]:
    """What the crawler would write of a page: its fields and fingerprint, or why it is invalid."""
    from news_crawler.dedup.fingerprint import UnusableText, to_hex
    from news_crawler.extraction.page import page_fields
    from news_crawler.pipelines.validate import unusable

    found = page_fields(body, content_type, url, images_max=images_max)
    if found.get("invalid_reason"):
        return {"invalid": found["invalid_reason"]}
    problem = unusable(found.get("body") or "", min_chars, found.get("title") or "")
    if problem:
        return {"invalid": problem[0]}
    try:
        found["simhash"] = to_hex(fingerprinter.fingerprint(found["body"]).value)
    except UnusableText as e:
        return {"invalid": f"no fingerprint ({e})"}
    found["url"] = url
    return {key: well_formed(found.get(key, "")) for key in FIELDS}


def cmd_extract(args: argparse.Namespace) -> int:
    from news_crawler.dedup.from_settings import fingerprinter_from_settings

    settings = options.settings(args)
    fingerprinter = fingerprinter_from_settings(settings)
    min_chars = settings.getint("ARTICLE_MIN_CHARS")
    images_max = settings.getint("IMAGES_MAX")
    articles = 0
    for target in args.pages:
        if "://" in target:
            if not target.startswith(("http://", "https://")):
                raise UserError(f"extract reads files and http(s) URLs, not {printable(target, 200)!r}")
            page = fetch(target, settings)
            if page is None:
                print(json_line({"url": target, "invalid": "not fetched (see above)"}))
                continue
            body, final, content_type = page
            record: dict[str, Any] = {"url": final}
            record.update(
                fields_of(body, args.content_type or content_type, final, fingerprinter, min_chars, images_max)
            )
        else:
            path = Path(target)
            try:
                body = path.read_bytes()
            except OSError as e:
                raise UserError(f"cannot read {target}: {e.strerror or e}") from None
            record = {"file": str(path)}
            url = args.url or saved_from(body)
            if not url:
                print(f"{printable(target, 200)}: no --url and the page names no address of its own: "
                      "relative links and images are left out (give --url)", file=sys.stderr)  # fmt: skip
            record.update(fields_of(body, args.content_type or "text/html", url, fingerprinter, min_chars, images_max))
        articles += "invalid" not in record
        print(json_line(record), flush=True)
    return 0 if articles else 1


# Where a saved page says it came from: a browser's "saved from" comment, its canonical link,
# og:url, or its <base href>; attributes in either order are not worth a parser here.
_SAVED_FROM = (
    re.compile(rb"<!--\s*saved from url=\(\d+\)(https?://[^\s>]+?)\s*-->", re.I),
    re.compile(rb"<link[^>]+rel=[\"']?canonical[\"']?[^>]+href=[\"']?(https?://[^\"'\s>]+)", re.I),
    re.compile(rb"<meta[^>]+property=[\"']?og:url[\"']?[^>]+content=[\"']?(https?://[^\"'\s>]+)", re.I),
    re.compile(rb"<base[^>]+href=[\"']?(https?://[^\"'\s>]+)", re.I),
)


def saved_from(body: bytes) -> str:
    """The http(s) address a saved page names as its own, or ""."""
    head = body[:200_000]
    for pattern in _SAVED_FROM:
        found = pattern.search(head)
        if found:
            return html.unescape(found.group(1).decode("ascii", "replace"))
    return ""


def fetch(url: str, settings: Any) -> tuple[bytes, str, str] | None:
    """``(body, final URL, content type)`` with the crawl's user agent, timeout and size
    limit, redirects to http(s) only; None after a line on stderr saying why not."""
    from contextlib import redirect_stdout

    from news_crawler.cli.sites import Fetcher
    from news_crawler.spiders.listing import web_url

    class AnyWebSite:
        """The site of a URL an operator names: wherever http(s) leads."""

        @staticmethod
        def on_site(url: str) -> bool:
            return web_url(url)

    with redirect_stdout(sys.stderr):  # the fetcher says why a page was not fetched: not on stdout's JSON
        return Fetcher(AnyWebSite(), settings).get(url)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "extract", help="the fields the crawler would write for saved pages or a URL, one JSON line each"
    )
    p.add_argument("pages", nargs="+", metavar="FILE|URL", help="saved pages, or an http(s) URL to fetch")
    p.add_argument("--url", help="the URL the files were saved from (relative links and images resolve against it)")
    p.add_argument("--content-type", help="the page's Content-Type (default: the server's, or text/html for a file)")
    options.add_settings_option(p)
    p.set_defaults(func=cmd_extract)
