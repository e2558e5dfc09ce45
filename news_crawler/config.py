"""One way to build a process's settings, and the small parsers settings need."""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

from news_crawler import defaults

if TYPE_CHECKING:
    from scrapy.settings import Settings

SETTINGS_MODULE = "news_crawler.settings"
_TRUE, _FALSE = ("1", "true", "True"), ("0", "false", "False", "", "None")


def settings_module() -> str:
    """``$SCRAPY_SETTINGS_MODULE`` when set (as for ``scrapy crawl``), else ``news_crawler.settings``,
    so the commands work from any directory, cron included."""
    return os.environ.get("SCRAPY_SETTINGS_MODULE") or SETTINGS_MODULE


def build_settings(overrides: Mapping[str, Any] | None = None) -> Settings:
    """The project's settings with ``overrides`` on top (command-line priority)."""
    from scrapy.settings import BaseSettings, Settings

    from news_crawler.errors import UserError

    settings = Settings()
    settings.setmodule(settings_module(), priority="project")
    for key, value in (overrides or {}).items():
        try:
            settings.set(key, value, priority="cmdline")
        except (ValueError, TypeError) as e:  # Scrapy reads a dict setting's text as JSON
            what = 'expected a JSON object, {"name": value, ...}' if isinstance(settings.get(key), BaseSettings) else e
            raise UserError(f"setting {key}={value!r}: {what}") from None
    return settings


class PlainSettings(dict):
    """The same settings as ``build_settings``, read the way Scrapy reads them, without
    importing Scrapy (about 0.2 s): for ``news-dedup``, which needs only ``REDIS_*`` and
    ``DEDUP_*`` and must start fast."""

    def getbool(self, name: str, default: bool = False) -> bool:
        value = self.get(name, default)
        if value in (True, False, 1, 0, None):
            return bool(value)
        if str(value) in _TRUE or str(value) in _FALSE:
            return str(value) in _TRUE
        raise ValueError(f"{name}={value!r}: expected true/false or 1/0")

    def getint(self, name: str, default: int = 0) -> int:
        return int(self.get(name, default))

    def getfloat(self, name: str, default: float = 0.0) -> float:
        return float(self.get(name, default))

    def getdict(self, name: str, default: dict | None = None) -> dict:
        value = self.get(name, default) or {}
        return dict(json.loads(value) if isinstance(value, str) else value)


def plain_settings(overrides: Mapping[str, Any] | None = None) -> PlainSettings:
    """``build_settings`` as a ``PlainSettings``: this project's defaults, the module's
    upper-case names over them, then ``overrides``."""
    module = importlib.import_module(settings_module())
    upper = (vars(defaults), vars(module), overrides or {})  # defaults: a project module may lack ours
    return PlainSettings({k: v for layer in upper for k, v in layer.items() if k.isupper()})


def data_path(value: str, data_dir: str = defaults.DATA_DIR) -> Path:
    """``value`` as a path: ``~`` expanded, and a relative one under ``data_dir``."""
    path = Path(value).expanduser()
    return path if path.is_absolute() else Path(data_dir).expanduser().absolute() / path


def setting_path(settings: Any, name: str) -> Path:
    """The path the setting ``name`` holds, read as ``data_path`` reads it against ``DATA_DIR``:
    the same place from any working directory."""
    return data_path(str(settings.get(name) or getattr(defaults, name)), settings.get("DATA_DIR") or defaults.DATA_DIR)


def file_stamp(when: datetime) -> str:
    """A time as file names hold it: UTC, sortable, no colons (``2026-12-07T10-31-42Z``)."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H-%M-%SZ")


def zone(settings: Any) -> tzinfo:
    """The zone that ``TIMEZONE`` names (an IANA name such as ``Asia/Shanghai``), or this
    machine's when it is empty; ``UserError`` for a name the zone database does not know."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    name = str(settings.get("TIMEZONE") or "").strip()
    if not name:
        return datetime.now().astimezone().tzinfo or UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        from news_crawler.errors import UserError

        raise UserError(
            f"setting TIMEZONE={name!r}: not a time zone; use an IANA name such as Asia/Shanghai or UTC, "
            "or empty for this machine's zone"
        ) from None


def zone_name(tz: tzinfo) -> str:
    """How a report names the zone: its IANA name, else its abbreviation."""
    return str(getattr(tz, "key", None) or datetime.now(tz).tzname() or "UTC")


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


def from_environment(known: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The settings of ``known`` (name -> default) that the environment sets, under their own
    names, read as their default's type: true/false for a flag, a number, a comma-separated
    list, a JSON object for a dict (empty: unset); a value that does not read as its type is
    kept as written, for the settings check to report in one line."""
    environ = os.environ if environ is None else environ
    out: dict[str, Any] = {}
    for name, default in known.items():
        if name not in environ:
            continue
        text = environ[name]
        if not text.strip() and not isinstance(default, str):
            continue  # NAME= (as compose writes ${NAME:-}): unset
        try:
            if isinstance(default, bool):
                out[name] = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False, "": False}[
                    text.strip().lower()
                ]
            elif isinstance(default, int):
                out[name] = int(text)
            elif isinstance(default, float):
                out[name] = float(text)
            elif isinstance(default, (list, tuple)):
                out[name] = json.loads(text) if text.lstrip().startswith("[") else as_list(text)
            elif isinstance(default, dict):
                out[name] = json.loads(text) if text.strip() else {}
            else:
                out[name] = text
        except (KeyError, ValueError):
            out[name] = text
    return out
