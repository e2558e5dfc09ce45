"""Argument types the commands share (light: ``news-dedup`` imports this without Scrapy)."""

from __future__ import annotations

import argparse


def positive(text: str) -> int:
    """A whole number of 1 or more; argparse's one-line error otherwise."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of 1 or more, got {text!r}")
    return int(text)


def seconds(text: str) -> float:
    """A number of seconds, 0 or more; argparse's one-line error otherwise."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds, 0 or more, got {text!r}")
    return value
