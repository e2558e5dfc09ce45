"""One way to build a process's settings, and the small parsers settings need."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from scrapy.settings import BaseSettings, Settings

from news_crawler import defaults

SETTINGS_MODULE = "news_crawler.settings"


def build_settings(overrides: Mapping[str, Any] | None = None) -> Settings:
    """The project's settings with ``overrides`` on top (command-line priority).

    The module is ``$SCRAPY_SETTINGS_MODULE`` when set (as for ``scrapy crawl``), else
    ``news_crawler.settings``, so the commands work from any directory, cron included.
    """
    settings = Settings()
    settings.setmodule(os.environ.get("SCRAPY_SETTINGS_MODULE") or SETTINGS_MODULE, priority="project")
    for key, value in (overrides or {}).items():
        settings.set(key, value, priority="cmdline")
    return settings


def as_list(value: str | Iterable[Any] | None) -> list[str]:
    """A comma-separated string or a list, as a list of non-empty stripped strings."""
    if not value:
        return []
    items = value.split(",") if isinstance(value, str) else value
    return [s for s in (str(v).strip() for v in items) if s]


def parse_overrides(pairs: Iterable[str]) -> dict[str, str]:
    """``NAME=VALUE`` strings (``-s`` options) as a dict; a malformed one is a ValueError."""
    out = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name:
            raise ValueError(f"-s takes NAME=VALUE, got {pair!r}")
        out[name] = value
    return out


def with_defaults(settings: BaseSettings) -> BaseSettings:
    """``settings`` with this project's defaults (``defaults.py``) filled in wherever unset,
    so every component also works in a Scrapy project that never heard of them."""
    missing = {k: v for k, v in vars(defaults).items() if k.isupper() and settings.get(k) is None}
    if not missing:
        return settings
    filled = settings.copy()
    filled.frozen = False  # a private copy: the crawler's own settings stay frozen
    filled.setdict(missing, priority="default")
    return filled
