#!/usr/bin/env bash
# The whole test suite: sets up the machine (idempotent), builds, then runs GoogleTest via ctest
# and pytest. Usage: scripts/test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "[test] ctest"
ctest --test-dir build/py --output-on-failure -j2
echo "[test] pytest"
python3 -m pytest tests -q -p no:cacheprovider "$@"
