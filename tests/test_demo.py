"""``./run demo`` for real: it crawls the mirror twice and leaves nothing outside its own keys."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.crawl_helpers import ROOT


def news_crawler(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "news_crawler.cli.crawler", *args]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_the_demo_runs_and_keeps_to_its_own_keys(tmp_path, redis_server, redis_client):
    redis_client.set("sina:mine", "a key of a real crawl")
    env = {**os.environ, "REDIS_URL": redis_server.url, "DATA_DIR": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, "-m", "news_mirror", "demo"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Day 2 fetched only the articles that appeared since day 1" in run.stdout
    keys = sorted(k.decode() for k in redis_client.scan_iter(count=1000))
    outside = [k for k in keys if not k.startswith("demo:") and k != "sina:mine"]
    assert not outside, outside[:10]  # a later real crawl of the portals finds none of the demo's
    assert any(k.startswith("demo:") and k.endswith(":rechecks") for k in keys)  # its rechecks, its own
    # The command it prints to see its keys shows its spiders' queues and outcomes.
    shown = run.stdout.rsplit("see them with: ./run news-crawler ", 1)[1].split()
    assert shown == ["status", "@news_mirror/demo.args"]
    status = news_crawler(*shown, "--json", env=env)
    assert status.returncode == 0, status.stderr[-3000:]
    spiders = json.loads(status.stdout)["spiders"]
    assert {"sina", "huanqiu"} <= set(spiders) and all(s["seen_urls"] and s["outcomes_today"] for s in spiders.values())
    bare = news_crawler("status", env=env)  # without them: nothing of its own here, and the way to the demo's keys
    assert "Other crawls used other keys: demo:" in bare.stdout and "./run demo prints its own command" in bare.stdout


def test_the_demo_says_the_embedded_server_stays_up_and_how_to_stop_it(tmp_path):
    from news_crawler.config import build_settings
    from news_mirror.demo import embedded_note

    note = embedded_note(build_settings({"REDIS_URL": "", "DATA_DIR": str(tmp_path)}))
    assert note.startswith(f"The embedded Redis (unix://{tmp_path}/redis/") and note.endswith(
        "stop it with: ./run news-crawler stop-server"
    )
    assert embedded_note(build_settings({"REDIS_URL": "redis://127.0.0.1:6379/0"})) == ""
