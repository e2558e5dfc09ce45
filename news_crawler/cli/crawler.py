"""``news-crawler``: crawl, run daily from cron, see the state, run a cluster.

news-crawler crawl [SPIDER ...] [--summary FILE] [-s NAME=VALUE ...]
news-crawler daily [-s NAME=VALUE ...]
news-crawler watch [SITE ...] [--for SECONDS]
news-crawler recheck [SITE ...]
news-crawler changes [--site S] [--since ISO8601] [--json]
news-crawler alerts [--site S] [--since ISO8601] [--json]
news-crawler history URL
news-crawler status [--json]
news-crawler outcomes [--site S] [--outcome O] [--day D] [--limit N] [--json]
news-crawler metrics [--listen HOST:PORT]
news-crawler report [--days N] [--out FILE]
news-crawler stop-server
news-crawler seed [SPIDER ...] [--every SECONDS | --at HH:MM]
news-crawler worker [SPIDER ...] [--idle SECONDS]
news-crawler adopt SPIDER ... [--unpickle]
news-crawler sites [check NAME | check URL --allow REGEX]
news-crawler extract FILE... [--url URL] [--content-type CT] | extract URL
"""

from __future__ import annotations

import argparse
import sys

import redis

from news_crawler import connection
from news_crawler.cli import (
    adopt,
    alerts,
    cluster,
    crawl,
    daily,
    extract,
    metrics,
    options,
    outcomes,
    recheck,
    report,
    sites,
    status,
    watch,
)
from news_crawler.connection.embedded import EmbeddedServerError
from news_crawler.errors import UserError, redis_problem
from news_crawler.ops.preflight import check_settings


def build_parser() -> argparse.ArgumentParser:
    # @FILE: arguments read from FILE, one a line (a set of -s settings kept together)
    parser = argparse.ArgumentParser(
        prog="news-crawler", description=__doc__.split("\n\n")[0].replace("``", ""), fromfile_prefix_chars="@"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for module in (
        crawl,
        daily,
        watch,
        recheck,
        alerts,
        status,
        outcomes,
        metrics,
        report,
        cluster,
        adopt,
        sites,
        extract,
    ):
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = options.settings(args)
        check_settings(settings, given=options.overrides(args))
        return args.func(args)
    except UserError as e:
        print(f"news-crawler: {e}", file=sys.stderr)
        return e.exit_code
    except (redis.RedisError, EmbeddedServerError) as e:  # Redis went away, or never answered
        problem = redis_problem(e, connection.url_named(settings))
        print(f"news-crawler: {problem}", file=sys.stderr)
        return problem.exit_code
    except OSError as e:  # a file or folder the command was told to use: one line, not a traceback
        print(
            f"news-crawler: {e.strerror or e}: {e.filename or ''} (check the path and its permissions)", file=sys.stderr
        )
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
