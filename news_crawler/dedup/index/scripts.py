"""The index's Lua scripts, as the server gets them: ``lua/common.lua`` (what they share;
a script cannot include another) and any other shared parts of ``lua/`` before each one."""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).parent


def shared(*parts: str) -> str:
    """``lua/common.lua`` and ``lua/<part>`` for each of ``parts``, in order."""
    return "".join((_HERE / "lua" / part).read_text(encoding="utf-8") for part in ("common.lua", *parts))


def lua(name: str, *parts: str) -> str:
    """The script ``index/<name>`` with the shared parts before it."""
    return shared(*parts) + (_HERE / name).read_text(encoding="utf-8")
