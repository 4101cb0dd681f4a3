#!/usr/bin/env bash
# Installs everything a fresh Debian 12 machine needs to build and test the project, then
# builds and installs the Python package in editable-free mode. Idempotent: safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi

DEB_PACKAGES=(
  llvm-19-dev llvm-19-tools clang-19 lld-19 libclang-rt-19-dev
  libtbb-dev libgtest-dev libgmock-dev
  zlib1g-dev libzstd-dev libxml2-dev libedit-dev libffi-dev libcurl4-openssl-dev
  nlohmann-json3-dev libdlpack-dev ninja-build ccache pkg-config clang-format-19
  csmith libcsmith-dev gcc
  chromium chromium-driver
)
missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "[setup] apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

PY=${PYTHON:-python3}
# torch: the CPU wheel that lies on disk on our machines; the registry's newest otherwise.
TORCH_WHEEL=$(ls /opt/wheels/torch-2.13.0+cpu-*.whl 2>/dev/null | head -n1 || true)
if ! $PY -c "import torch" 2>/dev/null; then
  if [ -n "$TORCH_WHEEL" ]; then $PY -m pip install -q "$TORCH_WHEEL"; else $PY -m pip install -q torch==2.13.0; fi
fi
$PY -m pip install -q -r requirements-dev.txt

# Build and install the package (compiles the C++ extension with scikit-build-core) as a user
# gets it: the production build, without the tests and their hooks (scripts/test.sh builds
# those apart). A persistent build dir keeps rebuilds incremental.
$PY -m pip install -q --no-build-isolation -Cbuild-dir=build/py .
