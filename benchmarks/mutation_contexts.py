"""A pytest plugin for ``benchmarks/mutation.py``: every line the product runs is recorded with
the test that ran it and the phase (``<nodeid>|setup``, ``|run``, ``|teardown``), in the test
process and in every Python process a test starts (crawls, commands, workers), so that each
mutant is run against the tests that reach its line.

Coverage starts in each process from ``COVERAGE_PROCESS_CONFIG`` (coverage's own ``.pth``
hook); this plugin switches the test process's context and rewrites the variable before each
phase, so a subprocess records the phase that started it.
"""

from __future__ import annotations

import base64
import json
import os

import coverage
import pytest

_VARIABLE = "COVERAGE_PROCESS_CONFIG"


def _switch(label: str) -> None:
    current = coverage.Coverage.current()
    if current is not None:
        current.switch_context(label)
    config = os.environ.get(_VARIABLE)
    if config:
        data = json.loads(base64.b64decode(config))
        data["context"] = label
        os.environ[_VARIABLE] = base64.b64encode(json.dumps(data).encode()).decode()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Each phase's duration, to ``MUTATION_DURATIONS`` (one JSON line each): what running a
    test costs a mutant."""
    path = os.environ.get("MUTATION_DURATIONS")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps([report.nodeid, report.when, report.duration, report.outcome]) + "\n")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    _switch(f"{item.nodeid}|setup")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    _switch(f"{item.nodeid}|run")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    _switch(f"{item.nodeid}|teardown")
