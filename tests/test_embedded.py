import multiprocessing
import subprocess

import pytest
import redis

from news_crawler import connection
from news_crawler.connection.embedded import EmbeddedServerError, ensure_server, stop_server
from news_crawler.dedup.index import RedisStore
from tests.crawl_helpers import wait_for


@pytest.fixture
def data_dir(tmp_path):
    yield tmp_path / "redis"
    stop_server(tmp_path / "redis")


def test_starts_reuses_and_persists_across_restart(data_dir):
    url = ensure_server(data_dir)
    client = redis.Redis.from_url(url)
    pid = client.info("server")["process_id"]
    RedisStore(client, "emb").decide("kept-doc", 12345)
    assert ensure_server(data_dir) == url
    assert redis.Redis.from_url(url).info("server")["process_id"] == pid  # reused, not restarted
    assert (data_dir / "appendonlydir").is_dir()

    assert stop_server(data_dir)
    client2 = connection.get_redis("", str(data_dir))  # starts it again
    assert client2.info("server")["process_id"] != pid
    assert RedisStore(client2, "emb").lookup("kept-doc").kept


def test_only_its_owner_can_read_the_data(data_dir):
    data_dir.mkdir(mode=0o755)  # a directory made earlier, too open
    client = redis.Redis.from_url(ensure_server(data_dir))
    RedisStore(client, "emb").decide("https://secret.example/story", 42)
    client.execute_command("BGREWRITEAOF")

    # The rewrite's temporary files come and go: look once it has finished.
    def rewritten() -> bool:
        info = client.info("persistence")
        return not int(info["aof_rewrite_in_progress"]) and not int(info["aof_rewrite_scheduled"])

    wait_for(rewritten, 60, "the AOF rewrite to finish")
    assert data_dir.stat().st_mode & 0o777 == 0o700
    files = [p for p in data_dir.rglob("*") if p.is_file()]
    assert any(p.suffix in (".aof", ".rdb") or "appendonly" in p.name for p in files)
    assert [p.name for p in files if p.stat().st_mode & 0o077] == []  # nothing for group or others


def _start(data_dir, queue):
    queue.put(ensure_server(data_dir))


def test_concurrent_starts_share_one_server(data_dir):
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_start, args=(data_dir, queue)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
    urls = {queue.get(timeout=5) for _ in procs}
    assert len(urls) == 1
    out = subprocess.run(["pgrep", "-fc", str(data_dir / "redis.sock")], capture_output=True, text=True)
    assert out.stdout.strip() == "1"


def test_redis_url_wins(redis_server, data_dir):
    client = connection.get_redis(redis_server.url, str(data_dir))
    assert client.connection_pool.connection_kwargs["port"] == redis_server.port
    assert not data_dir.exists()


def test_too_long_data_dir_is_explained(tmp_path):
    with pytest.raises(EmbeddedServerError, match="EMBEDDED_REDIS_DIR"):
        ensure_server(tmp_path / ("x" * 120))


def test_stop_server_command(tmp_path):
    import sys

    data = tmp_path / "emb"
    ensure_server(data)
    cmd = [sys.executable, "-m", "news_crawler.cli.crawler", "stop-server", "-s", f"EMBEDDED_REDIS_DIR={data}"]
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert first.returncode == 0 and "stopped" in first.stdout and not (data / "redis.sock").exists()
    second = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert "no embedded server" in second.stdout
