"""What the ``news-crawler`` subcommands share: ``-s NAME=VALUE`` and building settings."""

from __future__ import annotations

import argparse
import re
from typing import Any

from scrapy.settings import Settings

from news_crawler.config import build_settings, parse_overrides
from news_crawler.errors import UserError


def add_settings_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-s", "--set", action="append", default=[], metavar="NAME=VALUE", help="a Scrapy setting")


def add_verbose_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-v", "--verbose", action="store_true", help="Scrapy's whole log on the terminal (default: a progress line)"
    )


def overrides(args: argparse.Namespace, **extra: Any) -> dict[str, Any]:
    """The ``-s`` settings of the command line (none for a command without ``-s``), plus ``extra``."""
    try:
        return {**parse_overrides(vars(args).get("set", [])), **extra}
    except ValueError as e:
        raise UserError(str(e)) from None


def spider_args(args: argparse.Namespace) -> dict[str, str]:
    """The ``-a NAME=VALUE`` spider arguments of the command line."""
    try:
        return parse_overrides(args.spider_args)
    except ValueError as e:
        raise UserError(str(e).replace("-s takes", "-a takes")) from None


def settings(args: argparse.Namespace, **extra: Any) -> Settings:
    return build_settings(overrides(args, **extra))


def hhmm(text: str) -> str:
    """An argparse type: a 24-hour ``HH:MM``."""
    if not re.fullmatch(r"([01]\d|2[0-3]):[0-5]\d", text):
        raise argparse.ArgumentTypeError(f"expected HH:MM (24-hour), got {text!r}")
    return text
