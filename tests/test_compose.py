"""The cluster definition, checked offline: no Docker engine runs here."""

import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
import yaml

from news_crawler.cli.cluster import seconds_until
from news_crawler.cli.crawler import build_parser

ROOT = Path(__file__).resolve().parents[1]
CHECK = shutil.which("check-jsonschema") or str(Path(sys.executable).with_name("check-jsonschema"))


def validate(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([CHECK, "--builtin-schema", "vendor.compose-spec", str(path)], capture_output=True, text=True)


@pytest.mark.parametrize("name", ["docker-compose.yml", "docker-compose.cluster.yml"])
def test_compose_files_match_the_compose_specification(name):
    result = validate(ROOT / name)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_schema_check_does_reject_a_broken_file(tmp_path):
    broken = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    broken["services"]["worker"]["deploy"]["replicas"] = "many"
    broken["services"]["redis"]["restart_policy"] = "always"
    (tmp_path / "compose.yml").write_text(yaml.safe_dump(broken))
    assert validate(tmp_path / "compose.yml").returncode != 0


def test_topology():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) == {"redis", "worker", "seeder", "watch", "metrics"}
    assert "ports" not in services["metrics"] and services["metrics"]["command"][:2] == ["news-crawler", "metrics"]
    redis = services["redis"]
    command = " ".join(redis["command"])
    assert "--appendonly yes" in command and "--requirepass" in command
    assert "ports" not in redis  # not published on the host
    assert "redis-data:/data" in redis["volumes"]
    for name in ("worker", "seeder", "watch"):
        env = services[name]["environment"]
        assert env["REDIS_URL"].startswith("redis://:${REDIS_PASSWORD") and "@redis:6379" in env["REDIS_URL"]
        assert services[name]["depends_on"]["redis"]["condition"] == "service_healthy"
    assert services["worker"]["command"][:2] == ["news-crawler", "worker"]
    assert services["seeder"]["command"][:3] == ["news-crawler", "seed", "--at"]
    # The commands the services run exist and parse.
    parser = build_parser()
    parser.parse_args(services["worker"]["command"][1:])
    parser.parse_args(services["watch"]["command"][1:])
    parser.parse_args(["seed", "--at", "06:00"])
    assert 'CMD ["news-crawler", "worker"' in (ROOT / "Dockerfile").read_text()


@pytest.mark.parametrize(
    "now,at,hours",
    [("2026-11-22 05:00", "06:00", 1.0), ("2026-11-22 07:00", "06:00", 23.0), ("2026-11-22 06:00", "06:00", 24.0)],
)
def test_seeder_waits_until_the_next_seeding_time(now, at, hours):
    assert seconds_until(at, datetime.strptime(now, "%Y-%m-%d %H:%M")) == hours * 3600


def test_seeder_time_is_validated():
    with pytest.raises(SystemExit):
        build_parser().parse_args(["seed", "--at", "25:00"])


def test_cluster_topology():
    compose = yaml.safe_load((ROOT / "docker-compose.cluster.yml").read_text())
    services = compose["services"]
    nodes = [f"node-{n}" for n in range(1, 7)]
    assert set(services) == {*nodes, "cluster-init", "worker", "seeder", "watch", "metrics"}
    for name in nodes:
        node = services[name]
        command = " ".join(node["command"])
        for flag in ("--cluster-enabled yes", "--appendonly yes", "--requirepass", "--masterauth"):
            assert flag in command, (name, flag)
        assert "ports" not in node and node["volumes"] == [f"{name}:/data"] and name in compose["volumes"]
    init = services["cluster-init"]
    script = " ".join(init["command"])
    assert "--cluster create" in script and "--cluster-replicas 1" in script and "--cluster-yes" in script
    # compose would read a lone "$(" as a broken variable: every shell "$" is written "$$".
    assert "$(" not in script.replace("$$(", "")
    assert all(services["cluster-init"]["depends_on"][n]["condition"] == "service_healthy" for n in nodes)
    for name in ("worker", "seeder", "watch"):
        env = services[name]["environment"]
        assert env["REDIS_URL"].startswith("redis://:${REDIS_PASSWORD") and "@node-1:6379" in env["REDIS_URL"]
        assert services[name]["depends_on"]["cluster-init"]["condition"] == "service_completed_successfully"
    parser = build_parser()
    parser.parse_args(services["worker"]["command"][1:])


@pytest.mark.parametrize("name", ["docker-compose.yml", "docker-compose.cluster.yml", "deploy/compose-e2e.yml"])
def test_compose_files_work_with_docker_compose_1_29(name):
    """docker-compose 1.29 (Debian's) refuses a top-level name: (compose v2 only); the run
    in real containers is deploy/compose-e2e.sh (by hand: it needs Docker)."""
    compose = yaml.safe_load((ROOT / name).read_text())
    assert set(compose) <= {"services", "volumes", "networks", "x-crawler", "x-node", "x-e2e"}, set(compose)


def test_the_image_installs_the_wheel_and_sets_only_settings_the_code_reads():
    from news_crawler.ops.preflight import known_names

    dockerfile = (ROOT / "Dockerfile").read_text()
    copies = [line for line in dockerfile.splitlines() if line.startswith("COPY")]
    assert "pip wheel" in dockerfile and not [c for c in copies if "mirror" in c or "tests" in c], copies
    assert "USER crawler" in dockerfile
    env = [w.split("=")[0] for line in dockerfile.split("ENV ")[1:] for w in line.split() if "=" in w]
    assert env and all(name in known_names() or name == "SCRAPY_SETTINGS_MODULE" for name in env), env


@pytest.mark.parametrize("every", ["-1", "soon", "nan", "inf"])
def test_seeding_every_needs_a_number_of_seconds(every):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["seed", "--every", every])
    assert build_parser().parse_args(["seed", "--every", "0.5"]).every == 0.5


def test_the_seeder_seeds_again_every_interval_until_stopped(tmp_path, redis_server, redis_client):
    """``seed --every``: a push now and one every interval (each only once the last was
    taken), until SIGTERM, which ends it with exit 0 (docker stop)."""
    import signal
    import subprocess
    import sys

    from tests.crawl_helpers import ROOT

    sites = tmp_path / "sites.toml"
    sites.write_text("[sites.mine]\nstart_urls = ['https://a.example/list/']\nallow = '/a/'\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "news_crawler.cli.crawler", "seed", "--every", "0.2", "-s", f"SITES_FILE={sites}",
         "-s", f"REDIS_URL={redis_server.url}"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        assert "seeded 1 start URLs of 1 spiders" in proc.stdout.readline()
        redis_client.delete(*redis_client.keys("mine:*"))  # a worker took it
        second = proc.stdout.readline()
        while "seeded 1 start URLs" not in second:  # pushes while the first waited say so
            assert "still waiting for a worker" in second, second
            redis_client.delete(*redis_client.keys("mine:*") or ["none"])
            second = proc.stdout.readline()
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    finally:
        proc.kill()
