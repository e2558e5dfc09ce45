from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tests.redis_server import TestServer

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
SINA = DATA / "sina2018" / "articles.jsonl.gz"


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    server = TestServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture
def redis_client(redis_server):
    client = redis_server.client()
    client.flushall()
    yield client
    client.close()


@pytest.fixture(scope="session")
def sina_articles() -> list[dict]:
    """The first 1,500 non-empty articles of the real sina corpus."""
    if not SINA.exists():
        pytest.skip(f"real corpus not found at {SINA}")
    out = []
    with gzip.open(SINA, "rt", encoding="utf-8") as f:
        for line in f:
            a = json.loads(line)
            if a["body"].strip():
                out.append(a)
            if len(out) >= 1500:
                break
    return out


@pytest.fixture(scope="session")
def fingerprinter():
    from news_crawler.fingerprint import Fingerprinter

    return Fingerprinter()
