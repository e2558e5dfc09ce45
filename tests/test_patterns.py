"""Every regular expression the crawler runs on a page's text runs in time linear in it.

A hostile page can put anything in a line: a run of 100,000 spaces after a label, a comma
every other character, a hundred thousand unclosed tags. Each compiled pattern of the
package (module constants, and those in module-level lists and dicts) is fed lines of
real pages with such runs after them, inside them and before them, for every op the code
uses; none may take a second on 50,000 characters (a quadratic pattern takes minutes)."""

from __future__ import annotations

import importlib
import pkgutil
import re
import signal
import time

import lxml.html
import pytest

import news_crawler
from news_crawler.extraction.decode import decode_html
from tests.conftest import DATA

RUN = 50_000  # characters of a crafted run
LIMIT = 1.0  # seconds an op may take on it (a linear pattern takes milliseconds)
# The starts of bylines and blocks that hostile pages are known to follow with a long run.
ATTACKS = ("原创 张三 2026-11-25", "作者：", "责任编辑：", "相关阅读", "<script type='application/ld+json'>", "下一页")
FILLERS = (" ", "\u2002", "\u3000", "\n", "字", "1", "字，", "a", "-", "<a href=x>", "<", "\t")


def patterns() -> dict[str, re.Pattern[str]]:
    found: dict[int, tuple[str, re.Pattern[str]]] = {}
    for info in pkgutil.walk_packages(news_crawler.__path__, "news_crawler."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            values = (
                value if isinstance(value, (list, tuple)) else value.values() if isinstance(value, dict) else [value]
            )
            for i, pattern in enumerate(values):
                if isinstance(pattern, re.Pattern) and isinstance(pattern.pattern, str):
                    found.setdefault(
                        id(pattern), (f"{info.name}.{name}" + (f"[{i}]" if value is not pattern else ""), pattern)
                    )
    return dict(found.values())


@pytest.fixture(scope="module")
def seeds() -> list[str]:
    """Lines of real pages, and stretches of their raw markup."""
    out: set[str] = set()
    for _, raw in DATA.pages(DATA.root / "pages")[::3]:
        markup, _ = decode_html(raw)
        out.update(markup[i : i + 200] for i in range(0, min(len(markup), 60_000), 3_001))
        root = lxml.html.fromstring(markup)
        out.update(line.strip() for line in root.text_content().splitlines() if 2 <= len(line.strip()) <= 100)
    # and the starts of bylines and blocks that pages are known to attack
    out.update(
        ["原创 张三 2026-11-25", "作者：", "责任编辑：", "相关阅读", "<script type='application/ld+json'>", "下一页"]
    )
    return sorted(out)


def timed(op, text: str) -> float:
    def stop(*_):
        raise TimeoutError

    previous = signal.signal(signal.SIGALRM, stop)
    start = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, LIMIT)
    try:
        op(text)
    except TimeoutError:
        pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    return time.perf_counter() - start


def test_the_package_has_the_patterns_this_test_reads():
    names = patterns()
    assert len(names) > 100
    assert {"news_crawler.extraction.chrome._TOOLS", "news_crawler.extraction.dates.DATETIME"} <= set(names)


@pytest.mark.parametrize("name", sorted(patterns()))
def test_a_pattern_takes_linear_time_on_crafted_runs(name, seeds):
    pattern = patterns()[name]
    matching = [s for s in (*ATTACKS, *seeds) if pattern.search(s)][:4]
    slow = []
    for seed in [*matching, ""]:
        for filler in FILLERS:
            run = filler * (RUN // len(filler))
            space = re.search(r"\s", seed)
            crafted = [seed + run + "\x00", run + seed + "\x00", seed[: len(seed) // 2] + run]
            if space:
                crafted.append(seed[: space.start()] + run + seed[space.end() :])
            for text in crafted:
                for op in (pattern.search, pattern.fullmatch, pattern.findall):
                    if timed(op, text) >= LIMIT:
                        slow.append(f"{op.__name__} on {seed[:30]!r} + {filler!r} x {RUN // len(filler)}")
    assert not slow, slow[:3]
