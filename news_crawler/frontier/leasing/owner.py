"""Who holds a lease: ``<host>:<pid>:<process start>``, and whether that process still lives.

The start time tells a dead worker from a new process that got its pid. A worker on
another host is judged by its heartbeat in Redis alone (see ``queue.py``).
"""

from __future__ import annotations

import os
import socket
from functools import cache


def _start_time(pid: int) -> str:
    """The process's start time in clock ticks since boot (Linux), or '' where unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return ""
    # The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    return stat[stat.rindex(b")") + 2 :].split()[19].decode()


@cache
def this_owner() -> str:
    pid = os.getpid()
    return f"{socket.gethostname()}:{pid}:{_start_time(pid)}"


def is_dead_here(owner: str) -> bool:
    """True when ``owner`` ran on this host and that process is gone."""
    host, _, rest = owner.partition(":")
    pid_text, _, start = rest.partition(":")
    if host != socket.gethostname() or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # alive, someone else's
    return bool(start) and _start_time(pid) not in ("", start)
