"""Word segmentation with jieba as the reference, and rjieba (jieba-rs) where it is exact.

rjieba segments jieba's default dictionary with the HMM off exactly as
``jieba.Tokenizer().lcut(text, HMM=False)`` does (tested on the whole sina corpus), many
times faster. With the HMM on, or a user dictionary, it does not always agree, so jieba
segments: the fingerprint must not depend on the backend.

``DEDUP_SEGMENTER``: ``auto`` (rjieba when exact, else jieba, saying why in the log),
``jieba``, or ``rjieba`` (refused where it would not be exact).
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)
BACKENDS = ("auto", "jieba", "rjieba")


def _rjieba_missing() -> str:
    # find_spec, not import: importing rjieba loads its dictionary (a twentieth of a second).
    return "" if importlib.util.find_spec("rjieba") is not None else "rjieba is not installed"


def choose_backend(backend: str, hmm: bool, user_dict: str | Path | None) -> tuple[str, str]:
    """The backend to use, and why jieba was chosen when ``auto`` could not use rjieba."""
    if backend not in BACKENDS:
        raise ValueError(f"DEDUP_SEGMENTER={backend!r}: use one of {', '.join(BACKENDS)}")
    inexact = "the HMM is on (DEDUP_HMM)" if hmm else "a user dictionary is set (DEDUP_USER_DICT)" if user_dict else ""
    if backend == "rjieba" and inexact:
        raise ValueError(
            f"DEDUP_SEGMENTER='rjieba' cannot reproduce jieba's words when {inexact}: use 'auto' or 'jieba'"
        )
    if backend == "jieba":
        return "jieba", ""
    why = inexact or _rjieba_missing()
    if backend == "rjieba" and why:
        raise ValueError(f"DEDUP_SEGMENTER='rjieba': {why}")
    return ("jieba", why) if why else ("rjieba", "")


class Segmenter:
    """``segmenter(text)`` -> jieba's words of ``text`` (precise mode). The dictionary is
    loaded on first use, once, whichever thread asks first."""

    def __init__(self, hmm: bool = False, user_dict: str | Path | None = None, backend: str = "auto") -> None:
        self.hmm = hmm
        self.user_dict = str(user_dict) if user_dict else None
        self.backend, why = choose_backend(backend, hmm, user_dict)
        if why:
            logger.info("segmenting with jieba, not rjieba: %s", why)
        self._cut: Callable[[str], list[str]] | None = None
        self._lock = threading.Lock()

    def _load(self) -> Callable[[str], list[str]]:
        with self._lock:
            if self._cut is None:
                self._cut = self._load_rjieba() if self.backend == "rjieba" else self._load_jieba()
        return self._cut

    def _load_rjieba(self) -> Callable[[str], list[str]]:
        import rjieba  # its module-level segmenter: the default dictionary, which nothing here changes

        cut = rjieba.cut
        return lambda text: cut(text, False)

    def _load_jieba(self) -> Callable[[str], list[str]]:
        import jieba

        jieba.setLogLevel(logging.WARNING)
        tokenizer = jieba.Tokenizer()
        tokenizer.initialize()
        if self.user_dict:
            tokenizer.load_userdict(self.user_dict)
        hmm = self.hmm
        return lambda text: tokenizer.lcut(text, HMM=hmm)

    def __getstate__(self) -> dict[str, Any]:
        """Picklable (a process pool that spawns its workers sends them a copy): the loaded
        segmenter and the lock stay behind; the copy loads its own on first use."""
        return {k: v for k, v in self.__dict__.items() if k not in ("_cut", "_lock")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _cut=None, _lock=threading.Lock())

    def __call__(self, text: str) -> list[str]:
        return (self._cut or self._load())(text)
