"""``news-dedup check``'s progress bar: documents done, documents/s, kept and dropped.

Shown on stderr only when stderr is a terminal and the decisions go elsewhere (a file, a
pipe); otherwise nothing extra is written.
"""

from __future__ import annotations

import os
import sys
from typing import Any

UPDATE_EVERY = 256  # documents between refreshes of the counts


def count_lines(path: str) -> int | None:
    """Lines in a regular file (a last line without ``\\n`` counts), None for stdin or a pipe."""
    if path == "-" or not os.path.isfile(path):
        return None
    lines, last = 0, b"\n"
    with open(path, "rb") as f:
        while block := f.read(1 << 20):
            lines += block.count(b"\n")
            last = block[-1:]
    return lines + (last != b"\n")


class Progress:
    def __init__(self, path: str, enabled: bool | None = None) -> None:
        if enabled is None:
            enabled = sys.stderr.isatty() and not sys.stdout.isatty()
        self.bar: Any = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(
                total=count_lines(path), unit="doc", file=sys.stderr, dynamic_ncols=True, desc="check", mininterval=0.5
            )
        self._since = 0

    def update(self, counts: dict[str, int]) -> None:
        if self.bar is None:
            return
        self._since += 1
        if self._since >= UPDATE_EVERY:
            self.flush(counts)

    def flush(self, counts: dict[str, int]) -> None:
        if self.bar is not None and self._since:
            self.bar.set_postfix(kept=counts["kept"], dropped=counts["near-duplicates"], refresh=False)
            self.bar.update(self._since)
            self._since = 0

    def close(self, counts: dict[str, int]) -> None:
        if self.bar is not None:
            self.flush(counts)
            self.bar.close()
