"""Run real crawls over HTTP against the local mirror, in subprocesses (one reactor each)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from news_mirror.settings import environment

ROOT = Path(__file__).resolve().parents[1]


def mirror_env(mirror_url: str) -> dict[str, str]:
    """This process's environment, plus what makes a crawl fetch from the mirror."""
    return {**os.environ, **environment(mirror_url)}


def crawl(
    tmp: Path,
    redis_url: str,
    mirror_url: str,
    spiders: list[str] | None = None,
    name: str = "run",
    settings: dict[str, str] | None = None,
    wait: bool = True,
):
    """``news-crawler crawl`` into ``tmp/name``; returns (summary, kept items) or the Popen."""
    out = tmp / name
    cmd = [
        sys.executable,
        "-m",
        "news_crawler.cli.crawler",
        "crawl",
        *(spiders or []),
        "--summary",
        str(out / "summary.json"),
        "-s",
        f"REDIS_URL={redis_url}",
        "-s",
        f"FEED_DIR={out}",
        "-s",
        "LOG_LEVEL=INFO",
        "-s",
        "DEDUP_PROCESSES=1",
    ]  # extraction and fingerprints in a worker process, as always; one: tests run side by side
    for k, v in (settings or {}).items():
        cmd += ["-s", f"{k}={v}"]
    log = open(tmp / f"{name}.log", "w")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=mirror_env(mirror_url))
    if not wait:
        return proc
    assert proc.wait(300) == 0, (tmp / f"{name}.log").read_text()[-3000:]
    return load(out)


def load(out: Path):
    summary = json.loads((out / "summary.json").read_text())
    items = [json.loads(line) for f in sorted(out.glob("*/*.jsonl")) for line in f.read_text().splitlines() if line]
    return summary, items


def wait_for(condition, timeout: float, what: str) -> None:
    """Until ``condition()`` holds (an event, polled), at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def project_crawler(spidercls=None, settings_dict=None):
    """Scrapy's ``get_crawler`` (plain Scrapy settings, not this project's module) with this
    project's add-on named, as a Scrapy project using its components names it, plus
    ``settings_dict``."""
    from scrapy.utils.test import get_crawler

    return get_crawler(spidercls, {"ADDONS": {"news_crawler.addon.NewsCrawler": 0}, **(settings_dict or {})})


def superseded(items: list[dict]) -> set[str]:
    """The URLs of kept articles an earlier copy of their story replaced as its original
    (``DEDUP_ORIGINAL``): the feed holds them, the index holds them as copies."""
    return {url for item in items for url in item.get("supersedes", ())}


def originals(items: list[dict]) -> list[dict]:
    """The kept articles that are their story's original now."""
    replaced = superseded(items)
    return [item for item in items if item["url"] not in replaced]
