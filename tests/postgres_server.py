"""A real PostgreSQL on a free loopback port, for tests: the binaries of the ``pgserver``
wheel, its data in a temporary directory, started and stopped with ``pg_ctl``. Never a mock.
As root it runs as the user ``pgserver`` (PostgreSQL refuses to run as root)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from tests.redis_server import free_port


class TestPostgres:
    __test__ = False

    def __init__(self, fsync: bool = False) -> None:
        from pgserver._commands import POSTGRES_BIN_PATH
        from pgserver.utils import ensure_folder_permissions, ensure_prefix_permissions, ensure_user_exists

        self.bin = POSTGRES_BIN_PATH
        self.directory = Path(tempfile.mkdtemp(prefix="news-crawler-pg-"))
        self.data = self.directory / "data"
        self.user: str | None = None
        if os.geteuid() == 0:
            entry = ensure_user_exists("pgserver")
            assert entry is not None
            self.user = "pgserver"
            ensure_prefix_permissions(self.bin)
            ensure_folder_permissions(self.bin.parent, 0o055)
            os.chown(self.directory, entry.pw_uid, entry.pw_gid)
        self.port = free_port()
        self.fsync = fsync
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "--encoding=utf8", "--no-sync")
        self.start()

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, name: str, *args: str) -> None:
        subprocess.run(
            [str(self.bin / name), *args],
            check=True,
            capture_output=True,
            user=self.user,
            timeout=60,
            cwd=self.directory,
        )

    def start(self) -> None:
        """Start (or start again, on the same port and data) and wait until it accepts connections."""
        options = f"-h 127.0.0.1 -p {self.port} -k {self.data}"
        if not self.fsync:
            options += " -F"  # no fsync: a test's data
        self._run(
            "pg_ctl", "-D", str(self.data), "-w", "-t", "60", "-o", options, "-l", str(self.data / "log"), "start"
        )

    def stop(self) -> None:
        """Stop at once: connections are cut, as when a database server goes down."""
        self._run("pg_ctl", "-D", str(self.data), "-w", "-m", "immediate", "stop")

    def close(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)
