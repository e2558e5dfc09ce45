"""The compose cluster end to end, in real containers: ``deploy/compose-e2e.sh [--cluster]``.

Brings up the compose file (one Redis, or the six-node cluster with ``--cluster``) with the
override ``deploy/compose-e2e.yml`` (the mirror of real saved pages as a service, the
workers fetching from it), three workers and the seeder, and checks:

1. day 1: every article of the mirror fetched once across the workers; the same outcomes as
   one process crawling the same mirror on the host (kept, dropped as reprints, invalid);
   every kept article in exactly one feed file of the output volume;
2. day 2 (new articles on the lists, the seeder's next round), with faults caused mid-crawl:
   a worker's main process SIGKILLed from the host (the restart policy restarts it) and the
   Redis container restarted (with ``--cluster``: a master container killed, its replica
   taking over): only the new articles fetched, every one with an outcome, every kept one in
   a feed; an article fetched twice or in two feed files is counted and reported (a crash
   inside its lease, or between its feed line and its outcome);
3. ``docker-compose exec worker news-crawler status`` reports the crawl;
4. the ``watch`` service, two replicas, the seeder stopped: every start page revisited on the
   schedule they share in Redis, and no article fetched again.

It prints one summary line last, ``compose-e2e PASS|FAIL: ...``, exits 0 only on PASS, and
removes what it started (``down -v``). All traffic stays inside the compose project.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # news_mirror: the mirror and the reference crawl run on the host too
PROJECT = "news-crawler-e2e"
WORKERS = 3
SETTLE_TIMEOUT = 300.0

# Run inside a worker: each spider's queue, leases, seeds and outcomes (per URL), as JSON.
STATE = """
import json
from news_crawler import connection
from news_crawler.config import build_settings
from news_crawler.outcomes.store import OutcomeStore
from news_crawler.cli.runner import all_spider_names
s = build_settings()
c = connection.from_settings(s)
out = {}
for name in all_spider_names(s):
    key = connection.spider_key(s.get("SCHEDULER_QUEUE_KEY"), name, c)
    out[name] = {"queued": c.zcard(key), "inflight": c.zcard(key + ":inflight"),
                 "seeds": c.llen(connection.spider_key(s.get("SEED_KEY"), name, c)),
                 "outcomes": {u: r["outcome"] for u, r in OutcomeStore.for_spider(c, s, name).latest().items()}}
print(json.dumps(out))
"""
# Run inside a worker: the leases held now, [owner ("<host>:<pid>:<start>"), URL].
LEASES = """
import json
from news_crawler import connection
from news_crawler.config import build_settings
from news_crawler.cli.runner import all_spider_names
s = build_settings()
c = connection.from_settings(s)
leases = [m.decode().split("\\n", 1) for name in all_spider_names(s)
          for m in c.zrange(connection.spider_key(s.get("SCHEDULER_QUEUE_KEY"), name, c) + ":inflight", 0, -1)]
print(json.dumps([[owner, json.loads(request)["url"]] for owner, request in leases]))
"""
# Run inside a worker: the URL of every line of every feed file in the output volume.
# Run inside a worker: every watched start page and its visits so far.
WATCHED = """
import json
from news_crawler import connection
from news_crawler.config import build_settings
from news_crawler.cli.runner import all_spider_names
from news_crawler.frontier.revisits import RevisitSchedule
s = build_settings()
c = connection.from_settings(s)
print(json.dumps({p.url: sum(p.state.results.values()) if p.state else 0
                  for name in all_spider_names(s) for p in RevisitSchedule.for_spider(c, s, name).pages()}))
"""

FEEDS = """
import glob, json
print(json.dumps([json.loads(l)["url"] for f in sorted(glob.glob("/data/output/*/*.jsonl"))
                  for l in open(f, encoding="utf-8") if l.strip()]))
"""


class E2E:
    def __init__(self, cluster: bool) -> None:
        self.cluster = cluster
        base = "docker-compose.cluster.yml" if cluster else "docker-compose.yml"
        self.files = ["-f", base, "-f", "deploy/compose-e2e.yml"]
        self.env = {
            **os.environ,
            "REDIS_PASSWORD": secrets.token_hex(16),
            "MIRROR_DAY": "1",
            "MIRROR_DELAY": "0",
            "SEED_EVERY": "15",
        }
        self.failures: list[str] = []
        self.notes: list[str] = []

    # Docker.
    def compose(self, *args: str, capture: bool = False, check: bool = True) -> str:
        result = subprocess.run(
            ["docker-compose", "-p", PROJECT, *self.files, *args],
            cwd=ROOT,
            env=self.env,
            capture_output=capture,
            text=True,
        )
        if check and result.returncode != 0:
            raise RuntimeError(f"docker-compose {' '.join(args)} failed: {(result.stderr or '')[-2000:]}")
        return result.stdout if capture else ""

    def in_worker(self, code: str) -> Any:
        return json.loads(self.compose("exec", "-T", "worker", "python", "-c", code, capture=True))

    def containers(self, service: str) -> list[str]:
        return self.compose("ps", "-q", service, capture=True).split()

    def mirror_requests(self) -> list[str]:
        return json.loads(
            self.compose(
                "exec",
                "-T",
                "mirror",
                "python",
                "-c",
                "import urllib.request; print(urllib.request.urlopen("
                "'http://127.0.0.1:8000/_mirror/requests').read().decode())",
                capture=True,
            )
        )

    # What happened.
    def check(self, ok: bool, what: str) -> None:
        print(f"  {'ok  ' if ok else 'FAIL'} {what}", flush=True)
        if not ok:
            self.failures.append(what)

    def settle(self, lists: set[str], since: list[str] | None = None) -> dict[str, Any]:
        """Wait until no spider has anything queued, leased or seeded and no new article was
        asked of the mirror for two polls; return the state."""
        deadline, last, steady = time.monotonic() + SETTLE_TIMEOUT, None, 0
        while time.monotonic() < deadline:
            try:
                state = self.in_worker(STATE)
                articles = len([r for r in self.mirror_requests() if r not in lists and not r.endswith("robots.txt")])
            except (RuntimeError, json.JSONDecodeError):  # a container restarting
                time.sleep(2)
                continue
            busy = sum(s["queued"] + s["inflight"] + s["seeds"] for s in state.values())
            decided = sum(len(s["outcomes"]) for s in state.values())
            steady = steady + 1 if (not busy and decided and (articles, decided) == last) else 0
            last = (articles, decided)
            if steady >= 2:
                return state
            time.sleep(3)
        raise RuntimeError("the crawl did not settle within 5 minutes")


def reference() -> dict[int, dict[str, str]]:
    """Outcome per article URL of day 1 and of day 2 when one process crawls the same mirror
    on the host (the demo's crawl, on a Redis of its own): what the cluster must match."""
    from news_crawler import connection
    from news_crawler.cli.runner import all_spider_names
    from news_crawler.config import build_settings
    from news_crawler.connection.embedded import ensure_server, stop_server
    from news_crawler.outcomes.store import OutcomeStore
    from news_mirror.demo import DEMO_SETTINGS, crawl_day
    from news_mirror.server import start

    directory = tempfile.mkdtemp(prefix="e2e-reference-")
    url = ensure_server(directory)
    os.environ["REDIS_URL"] = url
    try:
        settings = build_settings({**DEMO_SETTINGS, "REDIS_URL": url})
        client = connection.from_settings(settings)
        out: dict[int, dict[str, str]] = {}
        seen: set[str] = set()
        for day in (1, 2):
            mirror, server, mirror_url = start(day=day)
            crawl_day(mirror_url, Path(directory) / f"day{day}")
            server.shutdown()
            outcomes = {
                u: r["outcome"]
                for name in all_spider_names(settings)
                for u, r in OutcomeStore.for_spider(client, settings, name).latest().items()
            }
            out[day] = {u: o for u, o in outcomes.items() if u not in seen}
            seen |= set(outcomes)
        return out
    finally:
        del os.environ["REDIS_URL"]
        stop_server(directory)


def list_paths() -> set[str]:
    from news_crawler.spiders.sites import load_sites
    from news_mirror.handler import mirror_path

    return {mirror_path(u) for site in load_sites().values() for u in site.start_urls}


def outcomes_of(state: dict[str, Any]) -> dict[str, str]:
    return {u: o for s in state.values() for u, o in s["outcomes"].items()}


def article_paths(requests: list[str], lists: set[str]) -> Counter:
    return Counter(r for r in requests if r not in lists and not r.endswith("robots.txt"))


def run(cluster: bool) -> int:
    from news_mirror.handler import mirror_path

    started = time.monotonic()
    e2e = E2E(cluster)
    print(
        f"compose-e2e: {'the Redis Cluster (six nodes)' if cluster else 'one Redis'}, {WORKERS} workers, the "
        "seeder, the mirror",
        flush=True,
    )
    expected = reference()
    lists = list_paths()
    print(
        f"reference (one process on the host): day 1 {Counter(expected[1].values())}, day 2 "
        f"{Counter(expected[2].values())}",
        flush=True,
    )
    subprocess.run(
        ["docker", "build", "-q", "-t", "news-crawler:latest", "."], cwd=ROOT, check=True, stdout=subprocess.DEVNULL
    )
    e2e.compose("build", "-q", "mirror")
    try:
        # the seeder's days, without the watch: its revisits would move the lists' counts checked here
        e2e.compose("up", "-d", "--scale", f"worker={WORKERS}", "--scale", "watch=0")
        print("day 1", flush=True)
        state = e2e.settle(lists)
        got, fetched = outcomes_of(state), article_paths(e2e.mirror_requests(), lists)
        want = expected[1]
        e2e.check(set(got) == set(want), f"every article decided: {len(got)} of {len(want)}")
        e2e.check(
            Counter(got.values()) == Counter(want.values()),
            f"outcomes as one process: {dict(Counter(got.values()))} vs {dict(Counter(want.values()))}",
        )
        e2e.check(
            {mirror_path(u) for u in want} <= set(fetched) and max(fetched.values()) == 1,
            f"each article fetched once across the workers ({sum(fetched.values())} fetches)",
        )
        feeds = Counter(e2e.in_worker(FEEDS))
        kept = {u for u, o in got.items() if o == "kept"}
        e2e.check(
            set(feeds) == kept and max(feeds.values()) == 1,
            f"every kept article in exactly one feed file ({len(feeds)} lines, {len(kept)} kept)",
        )

        print("day 2, with faults mid-crawl", flush=True)
        e2e.env.update(MIRROR_DAY="2", MIRROR_DELAY="5")  # slow: the faults fall mid-crawl
        e2e.compose("up", "-d", "mirror")  # new articles on the lists; the seeder's next round takes them
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # until the first new article is asked for
            try:
                if article_paths(e2e.mirror_requests(), lists):
                    break
            except RuntimeError:  # the mirror is starting
                pass
            time.sleep(0.5)
        victim, held = busiest_worker(e2e, lists)
        pid = inspect(victim, "{{.State.Pid}}")
        e2e.check(held > 0, f"a worker killed with articles in flight ({held} leased)")
        subprocess.run(["kill", "-9", pid], check=True)
        print(
            f"  SIGKILLed the main process (pid {pid}) of worker {victim[:12]}, holding {held} article leases",
            flush=True,
        )
        time.sleep(2)
        if cluster:
            master = kill_a_master(e2e)
            print(f"  killed master container {master}", flush=True)
        else:
            e2e.compose("restart", "redis")
            print("  restarted the redis container", flush=True)
        state = e2e.settle(lists)
        got2 = {u: o for u, o in outcomes_of(state).items() if u not in got}
        fetched2 = article_paths(e2e.mirror_requests(), lists)
        want2 = expected[2]
        e2e.check(set(got2) == set(want2), f"every new article decided: {len(got2)} of {len(want2)}")
        e2e.check(
            Counter(got2.values()) == Counter(want2.values()),
            f"outcomes as one process: {dict(Counter(got2.values()))} vs {dict(Counter(want2.values()))}",
        )
        old = [p for p in fetched2 if p in {mirror_path(u) for u in want}]
        e2e.check(not old, f"only new articles fetched on day 2 ({len(old)} of day 1's fetched again)")
        twice = sum(n - 1 for n in fetched2.values() if n > 1)
        feeds = Counter(e2e.in_worker(FEEDS))
        kept = {u for u, o in {**got, **got2}.items() if o == "kept"}
        e2e.check(kept <= set(feeds) and set(feeds) <= kept, f"every kept article in a feed ({len(kept)} kept)")
        doubled = sum(n - 1 for n in feeds.values() if n > 1)
        e2e.notes.append(
            f"worker SIGKILLed holding {held} article leases; refetched after the faults: {twice}, in two feed "
            f"files: {doubled}"
        )
        e2e.check(
            twice <= held and doubled <= twice,
            f"refetched {twice}, doubled in feeds {doubled}: only what "
            f"the killed worker held ({held}), or what fell between its feed line and its outcome",
        )
        e2e.check(
            inspect(victim, "{{.RestartCount}}") != "0" and inspect(victim, "{{.State.Running}}") == "true",
            f"the killed worker was restarted by its restart policy (restarts: {inspect(victim, '{{.RestartCount}}')})",
        )
        status = e2e.compose("exec", "-T", "worker", "news-crawler", "status", capture=True)
        e2e.check(
            "near-duplicate index" in status and any(f"{name} " in status for name in ("sina", "163")),
            "docker-compose exec worker news-crawler status reports the crawl",
        )

        print("the watch, two replicas, the seeder stopped", flush=True)
        e2e.compose("stop", "seeder")
        since = len(e2e.mirror_requests())
        e2e.env.update(REVISIT_MIN="1", REVISIT_MAX="4")  # (the running workers keep theirs)
        e2e.compose("up", "-d", "--no-recreate", "--scale", "watch=2", "watch")
        deadline, watched = time.monotonic() + 180, {}
        while time.monotonic() < deadline:
            watched = e2e.in_worker(WATCHED)
            if len(watched) >= len(lists) and min(watched.values()) >= 3:
                break
            time.sleep(2)
        e2e.check(
            len(watched) >= len(lists) and min(watched.values(), default=0) >= 3,
            f"every start page revisited by the watch service ({len(watched)} pages, "
            f"visits {min(watched.values(), default=0)} to {max(watched.values(), default=0)})",
        )
        known = {mirror_path(u) for u in [*want, *want2]}
        again = [p for p in e2e.mirror_requests()[since:] if p in known]
        e2e.check(not again, f"the watch fetched no article it had ({len(again)} fetched again)")
    except Exception as e:  # noqa: BLE001 - any failure is reported in the summary line
        e2e.failures.append(f"{type(e).__name__}: {e}")
    finally:
        e2e.compose("down", "-v", "--remove-orphans", check=False)
    seconds = time.monotonic() - started
    verdict = "PASS" if not e2e.failures else "FAIL"
    detail = "; ".join(e2e.failures) if e2e.failures else "; ".join(e2e.notes)
    print(f"compose-e2e {verdict}: {'cluster' if cluster else 'one Redis'}, {seconds:.0f} s; {detail}")
    return 0 if not e2e.failures else 1


def inspect(container: str, template: str) -> str:
    return subprocess.run(
        ["docker", "inspect", "-f", template, container], capture_output=True, text=True, check=True
    ).stdout.strip()


def busiest_worker(e2e: E2E, lists: set[str]) -> tuple[str, int]:
    """The worker container holding the most article leases now: a crash then loses
    articles in flight, which the restarted worker must take back."""
    from news_mirror.handler import mirror_path

    workers = e2e.containers("worker")
    held: Counter = Counter()
    deadline = time.monotonic() + 60
    while not held and time.monotonic() < deadline:  # until the day's first articles are leased
        held = Counter(owner.split(":")[0] for owner, url in e2e.in_worker(LEASES) if mirror_path(url) not in lists)
        time.sleep(0.2)
    print(f"  article leases held now, by worker host: {dict(held)}", flush=True)
    victim = max(workers, key=lambda c: held.get(inspect(c, "{{.Config.Hostname}}"), 0))
    return victim, held.get(inspect(victim, "{{.Config.Hostname}}"), 0)


def kill_a_master(e2e: E2E) -> str:
    """Kill the container of one master node; wait until its replica has taken over."""
    nodes = {name: e2e.containers(name)[0] for name in (f"node-{n}" for n in range(1, 7))}
    cli = ["valkey-cli", "-a", e2e.env["REDIS_PASSWORD"], "--no-auth-warning"]
    master = next(
        name
        for name in nodes
        if "role:master" in e2e.compose("exec", "-T", name, *cli, "info", "replication", capture=True)
        and name != "node-1"
    )
    subprocess.run(["docker", "kill", nodes[master]], check=True, stdout=subprocess.DEVNULL)
    deadline, promoted = time.monotonic() + 90, False
    while time.monotonic() < deadline and not promoted:  # the dead master marked failed, its replica promoted
        nodes_view = e2e.compose("exec", "-T", "node-1", *cli, "cluster", "nodes", capture=True, check=False)
        info = e2e.compose("exec", "-T", "node-1", *cli, "cluster", "info", capture=True, check=False)
        live_masters = [line for line in nodes_view.splitlines() if "master" in line and "fail" not in line]
        promoted = "master,fail" in nodes_view and len(live_masters) == 3 and "cluster_state:ok" in info
        time.sleep(1)
    e2e.check(promoted, f"master {master} killed: marked failed, its replica promoted, the cluster ok")
    return master


def main() -> int:
    parser = argparse.ArgumentParser(description="the compose cluster end to end, in real containers")
    parser.add_argument("--cluster", action="store_true", help="docker-compose.cluster.yml: six nodes, replicas")
    return run(parser.parse_args().cluster)


if __name__ == "__main__":
    sys.exit(main())
