#!/usr/bin/env bash
# The whole test suite: sets up the machine (idempotent; it installs the production package),
# builds the test build (the same sources with GoogleTest and the test hooks, CG_BUILD_TESTS=ON,
# in build/test, installed for the tests alone into build/test-site), then runs the linters,
# builds the documentation site (mkdocs --strict), GoogleTest via ctest, pytest on the test
# build (the docs' snippets too: tests/test_doc_snippets.py), and checks the wheel as a user
# builds it and the package setup.sh installed (scripts/check_wheel.sh).
# Usage: scripts/test.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "[test] the test build (CG_BUILD_TESTS=ON) into build/test-site, apart from the user's package"
python3 -m pip install -q --no-deps --no-build-isolation --upgrade --target build/test-site \
  -Cbuild-dir=build/test -Ccmake.define.CG_BUILD_TESTS=ON .
echo "[test] lint (ruff, clang-format)"
python3 -m ruff check python tests benchmarks scripts envs
python3 -m ruff format --check python tests benchmarks scripts envs
find engine envs observations kernels torch_ext benchmarks tests \
  \( -name '*.cc' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print0 |
  xargs -0 clang-format-19 --dry-run -Werror
echo "[test] docs: the site with warnings as errors (a broken link or reference fails)"
site_dir=$(mktemp -d)
NO_MKDOCS_2_WARNING=1 python3 -m mkdocs build --strict --site-dir "$site_dir"
rm -rf "$site_dir"
echo "[test] ctest"
ctest --test-dir build/test --output-on-failure -j2
echo "[test] pytest"
PYTHONPATH="$PWD/build/test-site${PYTHONPATH:+:$PYTHONPATH}" \
  python3 -m pytest tests -q -p no:cacheprovider "$@"
echo "[test] the wheel in a clean venv, without GoogleTest"
scripts/check_wheel.sh
