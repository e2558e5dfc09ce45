"""A throwaway valkey-server on a unix socket for benchmarks."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from news_crawler.connection.embedded import server_binary


@contextmanager
def bench_server() -> Iterator[str]:
    directory = Path(tempfile.mkdtemp(prefix="nd-bench-"))
    sock = directory / "bench.sock"
    proc = subprocess.Popen(
        [
            server_binary(),
            "--port",
            "0",
            "--unixsocket",
            str(sock),
            "--dir",
            str(directory),
            "--save",
            "",
            "--appendonly",
            "no",
        ],
        stdout=subprocess.DEVNULL,
    )
    try:
        for _ in range(500):
            if sock.exists():
                break
            time.sleep(0.01)
        yield f"unix://{sock}"
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(directory, ignore_errors=True)
