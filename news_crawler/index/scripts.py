"""The index's Lua scripts, as the server gets them: ``lua/common.lua`` (what they share;
a script cannot include another) before each one."""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).parent
_COMMON = (_HERE / "lua" / "common.lua").read_text(encoding="utf-8")


def lua(name: str) -> str:
    """The script ``index/<name>`` with the shared part before it."""
    return _COMMON + (_HERE / name).read_text(encoding="utf-8")
