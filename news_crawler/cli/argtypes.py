"""Argument types the commands share (light: ``news-dedup`` imports this without Scrapy)."""

from __future__ import annotations

import argparse


def positive(text: str) -> int:
    """A whole number of 1 or more; argparse's one-line error otherwise."""
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of 1 or more, got {text!r}")
    return int(text)
