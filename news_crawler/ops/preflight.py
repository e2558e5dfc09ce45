"""Settings checked before a command starts: a bad value is one line naming the setting, the
value and what is allowed (``UserError``); a name given with ``-s`` or in the environment
that is no known setting gets a warning with the closest known name, so that a typo
(``DEDUP_MAX_DISTNCE``) is not silently ignored.

Every project setting is checked against the type of its default (``defaults.py``), and
these against their ranges or choices as well.
"""

from __future__ import annotations

import difflib
import json
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from news_crawler import defaults
from news_crawler.errors import UserError

# name -> (lowest, highest) for numbers, or the allowed values.
RANGES: dict[str, tuple[float, float]] = {
    "DEDUP_SENTENCE_MAX_DISTANCE": (0, 64),
    "DEDUP_SENTENCE_LENGTH_RATIO": (0, 1),
    "DEDUP_MAX_WORD_SHARE": (0, 1),
    "DUPEFILTER_BLOOM_ERROR": (1e-9, 0.5),
    "DEDUP_SENTENCE_COUNT": (1, 50),
    "DEDUP_SENTENCE_MATCH": (1, 50),
    "DEDUP_BATCH_SIZE": (1, 10_000),
    "ARTICLE_MAX_PAGES": (1, 1_000),
    "IMAGES_MAX": (0, 1_000),  # extraction reads the first 1,000 <img> of a page (IMAGES_READ)
    "BROWSER_MEMORY_MAX": (64, 65_536),  # MiB: below it no news page renders
    "OUTCOME_RETRY_RUNS": (1, 1_000),
    "SCHEDULER_LEASE_SECONDS": (1, 86_400 * 7),
    "DUPEFILTER_BLOOM_CAPACITY": (1, 10**12),
    "DUPEFILTER_BLOOM_PERIODS": (1, 10_000),
    "DUPEFILTER_BLOOM_PERIOD_DAYS": (0.001, 36_500),
    "DEDUP_GENERATION_DAYS": (0.001, 36_500),
    "REVISIT_MIN": (0.1, 86_400 * 365),
    "REVISIT_MAX": (0.1, 86_400 * 365),
    "ALERTS_HISTORY": (1, 60),  # a site keeps its last 60 runs
    "ALERTS_MIN_RUNS": (1, 60),
    "ALERTS_SHARE_DROP": (0.01, 1),
    "ALERTS_LENGTH_RATIO": (0, 1),
    "ALERTS_FAILED_SHARE": (0, 1),
    "ALERTS_TIMEOUT": (0.1, 300),
}
CHOICES: dict[str, tuple[str, ...]] = {
    "REDIS_CLUSTER": ("auto", "yes", "no"),
    "DEDUP_SEGMENTER": ("auto", "jieba", "rjieba"),
    "DEDUP_ORIGINAL": ("earliest", "first"),
    "DUPEFILTER_FINGERPRINT": ("scrapy", "scrapy-redis"),
    "LOG_LEVEL": ("critical", "error", "warning", "info", "debug"),  # Scrapy's, checked here too
}
FILES = ("DEDUP_IDF_PATH", "DEDUP_STOP_WORDS_PATH", "DEDUP_USER_DICT")  # empty: the built-in one
NON_NEGATIVE = (
    "STOP_TIMEOUT",
    "EXTRACT_TIMEOUT",
    "REDIS_OUTAGE_LIMIT",
    "EMBEDDED_REDIS_START_TIMEOUT",
    "SCHEDULER_IDLE_BEFORE_CLOSE",
    "OUTCOMES_KEEP_DAYS",
    "RETRY_BACKOFF_BASE",
    "RETRY_BACKOFF_MAX",
    "ARTICLE_MIN_CHARS",
    "LIST_PAGE_LIMIT",
    "LIST_LINKS_MAX",
    "ITEMS_REDIS_MAX",
    "WORKER_IDLE_SECONDS",
    "DEDUP_TOPIC_WEIGHT",
    "DEDUP_TOP_K",
    "DEDUP_MAX_CHARS",
    "DEDUP_POSITION_DECAY",
    "DEDUP_DROPS_MAX",
    "DEDUP_SENTENCE_MIN_CHARS",
    "DEDUP_RETENTION_DAYS",
    "ALERTS_MIN_ARTICLES",
    "LOG_KEEP_DAYS",
    "ALERTS_WATCH_INTERVAL",
)


def project_defaults() -> dict[str, Any]:
    return {k: v for k, v in vars(defaults).items() if k.isupper()}


def checked_defaults() -> dict[str, Any]:
    """The settings whose values are checked: the project's, and Scrapy's ``LOG_LEVEL``."""
    return {**project_defaults(), "LOG_LEVEL": "INFO"}


def _typed(name: str, value: Any, default: Any) -> Any:
    """``value`` read as ``default``'s type; ValueError naming what is expected."""
    if isinstance(default, bool):
        if isinstance(value, bool) or value in (0, 1):
            return bool(value)
        if str(value).strip().lower() in ("1", "true", "yes", "0", "false", "no", ""):
            return str(value).strip().lower() in ("1", "true", "yes")
        raise ValueError("expected true or false")
    if isinstance(default, int):
        if isinstance(value, float) and not value.is_integer():
            raise ValueError("expected a whole number")
        try:
            return int(value)
        except (TypeError, ValueError):
            raise ValueError("expected a whole number") from None
    if isinstance(default, float):
        try:
            return float(value)
        except (TypeError, ValueError):
            raise ValueError("expected a number") from None
    if isinstance(default, dict) and not isinstance(value, Mapping):  # Scrapy's dict settings are BaseSettings
        try:
            parsed = json.loads(value) if str(value).strip() else {}
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            raise ValueError('expected a JSON object, {"name": value, ...}')
        return parsed
    return value


def check_values(settings: Any) -> None:
    """``UserError`` for the first project setting whose value is not of its kind or range."""
    for name, default in checked_defaults().items():
        value = settings.get(name)
        if value is None:
            continue
        try:
            typed = _typed(name, value, default)
        except ValueError as e:
            raise UserError(f"setting {name}={value!r}: {e}") from None
        if name in RANGES:
            low, high = RANGES[name]
            if not low <= typed <= high:
                raise UserError(f"setting {name}={value!r}: must be from {low:g} to {high:g}")
        if name in NON_NEGATIVE and typed < 0:
            raise UserError(f"setting {name}={value!r}: must be 0 or more")
        if name in CHOICES and str(typed).lower() not in CHOICES[name] and not str(typed).isdigit():
            raise UserError(f"setting {name}={value!r}: must be one of {', '.join(CHOICES[name])}")
        if name in FILES and typed and not Path(str(typed)).expanduser().is_file():
            raise UserError(f"setting {name}={value!r}: no such file")
        if name == "TIMEZONE" and typed:
            from news_crawler.config import zone

            zone(settings)
        if name == "REVISIT_MAX" and typed < _typed("REVISIT_MIN", settings.get("REVISIT_MIN"), 0.0):
            raise UserError(
                f"setting REVISIT_MAX={value!r}: must be at least REVISIT_MIN ({settings.get('REVISIT_MIN')})"
            )
        if name == "RECHECK_AFTER":
            from news_crawler.frontier.revisits.rechecks import parse_durations

            try:
                parse_durations(typed)
            except ValueError as e:
                raise UserError(f"setting RECHECK_AFTER={value!r}: {e}") from None
        if name == "REDIS_URL" and typed:
            check_redis_url(str(typed))
    from news_crawler.dedup.from_settings import layout_from_settings
    from news_crawler.dedup.index.layout import LayoutError
    from news_crawler.ops.alert_settings import check_alert_settings

    try:
        layout_from_settings(settings)
    except LayoutError as e:  # named with the value as given, as every other setting's
        raise UserError(f"setting {e.setting}={settings.get(e.setting)!r}: {e.problem}") from None
    check_alert_settings(settings)


def check_redis_url(url: str) -> None:
    """``UserError`` (one line, never the password) for a REDIS_URL redis-py cannot read."""
    from news_crawler.printable import masked

    shown = masked(url, url)
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise UserError(
            f"setting REDIS_URL={shown!r}: must be empty (the embedded server) or a redis://, rediss:// or unix:// URL"
        )
    from redis.connection import parse_url

    try:
        parse_url(url)
    except ValueError as e:
        raise UserError(f"setting REDIS_URL={shown!r}: not a URL ({masked(str(e), url)}): fix it") from None


def known_names() -> set[str]:
    """Every setting Scrapy or this project knows (its defaults, its settings module)."""
    from scrapy.settings import default_settings

    from news_crawler import settings as project

    return (
        {k for k in vars(default_settings) if k.isupper()}
        | set(project_defaults())
        | {k for k in vars(project) if k.isupper()}
    )


def unknown_names(names: Iterable[str], known: set[str]) -> list[str]:
    """A warning line for each of ``names`` that is no known setting, with the closest one."""
    lines = []
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
            hint = f"; did you mean {close[0]}?" if close else ""
            lines.append(f"warning: {name} is not a setting of Scrapy or of this project, it has no effect{hint}")
    return lines


def environment_names(environ: Mapping[str, str]) -> list[str]:
    """The environment's names that look like this project's settings (a known prefix:
    ``DEDUP_``, ``LIST_``, ...), for the unknown-name warning; other variables are not ours."""
    prefixes = {name.split("_")[0] + "_" for name in project_defaults() if "_" in name}
    return [name for name in environ if name.isupper() and name.startswith(tuple(prefixes))]


def warn_of_environment(environ: Mapping[str, str] | None = None) -> None:
    """The unknown-name warning for the environment alone (a command without ``-s``); Scrapy's
    names are imported only when a name is none of the project's."""
    import os

    from news_crawler import settings as project

    environ = os.environ if environ is None else environ
    ours = set(project_defaults()) | {k for k in vars(project) if k.isupper()}
    candidates = [n for n in environment_names(environ) if n not in ours]
    for line in unknown_names(candidates, known_names()) if candidates else []:
        print(line, file=sys.stderr)


def check_settings(settings: Any, given: Iterable[str] = (), environ: Mapping[str, str] | None = None) -> None:
    """Warn (stderr) of ``given`` (``-s``) and environment names that are no setting; raise
    ``UserError`` for a bad value."""
    import os

    known = known_names()
    environ = os.environ if environ is None else environ
    for line in unknown_names(list(given) + [n for n in environment_names(environ) if n not in given], known):
        print(line, file=sys.stderr)
    check_values(settings)
