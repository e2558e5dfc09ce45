"""How long a scrape of ``news-crawler metrics`` takes at 1,000,000 fingerprints: an index
filled with random fingerprints on a server of its own, the exporter started on it, five
scrapes timed.

    ./run python benchmarks/metrics_scrape.py
"""

import random
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from news_crawler import connection  # noqa: E402
from news_crawler.config import plain_settings  # noqa: E402
from news_crawler.dedup.from_settings import store_from_settings  # noqa: E402
from tests.redis_server import TestServer, free_port  # noqa: E402

tmp = tempfile.mkdtemp()
srv = TestServer(tmp + "/r")
s = plain_settings({"REDIS_URL": srv.url})
store = store_from_settings(s, connection.from_settings(s))
rng = random.Random(1)
t = time.time()
n = 0
while n < 1_000_000:
    store.decide_many([(f"https://x.cn/{n + i}", rng.getrandbits(64)) for i in range(10000)])
    n += 10000
print("filled", n, round(time.time() - t), "s", store.report()["fingerprints"], flush=True)
port = free_port()
p = subprocess.Popen(
    [
        sys.executable,
        "-m",
        "news_crawler.cli.crawler",
        "metrics",
        "--listen",
        f"127.0.0.1:{port}",
        "-s",
        f"REDIS_URL={srv.url}",
    ],
    cwd=ROOT,
    stdout=subprocess.DEVNULL,
)
for _ in range(100):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics")
        break
    except OSError:
        time.sleep(0.1)
times = []
for _ in range(5):
    t = time.perf_counter()
    body = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics").read()
    times.append(time.perf_counter() - t)
print(
    "scrape seconds",
    [round(x, 3) for x in times],
    [line for line in body.decode().splitlines() if line.startswith("news_crawler_index_fingerprints")],
)
p.terminate()
srv.stop()
