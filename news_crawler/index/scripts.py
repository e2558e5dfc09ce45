"""The index's Lua scripts, as the server gets them: ``lua/common.lua`` (what they share;
a script cannot include another) and any other shared parts of ``lua/`` before each one."""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).parent
_COMMON = (_HERE / "lua" / "common.lua").read_text(encoding="utf-8")


def lua(name: str, *shared: str) -> str:
    """The script ``index/<name>`` with the common part and ``lua/<shared>`` before it."""
    parts = [(_HERE / "lua" / part).read_text(encoding="utf-8") for part in shared]
    return "".join([_COMMON, *parts, (_HERE / name).read_text(encoding="utf-8")])
