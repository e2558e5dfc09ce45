#!/usr/bin/env bash
# The compose cluster end to end, in real containers (see deploy/compose_e2e.py):
#   deploy/compose-e2e.sh            docker-compose.yml: one Redis, three workers, the seeder
#   deploy/compose-e2e.sh --cluster  docker-compose.cluster.yml: six nodes with replicas
# Needs Docker (root) and the shared data folder beside the checkout; prints
# "compose-e2e PASS|FAIL: ..." last and exits 0 only on PASS. Not part of .ci/run.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
standins="$ROOT/../shared/tools/docker-standins.sh"
if ! command -v docker-compose >/dev/null || ! docker info >/dev/null 2>&1 \
   || ! docker image inspect python:3.11-slim >/dev/null 2>&1 || ! docker image inspect valkey/valkey:8 >/dev/null 2>&1; then
  if [ -x "$standins" ] || [ -f "$standins" ]; then
    bash "$standins"   # no image registry here: Docker from Debian, local stand-ins for the base images
  fi
fi
exec "$ROOT/run" python "$ROOT/deploy/compose_e2e.py" "$@"
