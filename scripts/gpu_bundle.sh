#!/usr/bin/env bash
# Packs, on the development machine, what scripts/gpu_check.sh needs on a lent GPU machine
# that has no LLVM 19, no Debian packages and no network (the device tool's machines: CUDA,
# PyTorch and Python 3.12 only): the C++ CUDA tests, the Python package built for that
# machine's Python with the pure-Python dependencies it lacks (Stable-Baselines3 too, for the
# PPO benchmark), every shared library they load that a base system may lack (libLLVM,
# oneTBB, and theirs; the CUDA runtime is linked into the module statically), and builtin-v0's
# programs as bitcode (programs/: the machine has no clang-19 to build them).
#
#   scripts/gpu_bundle.sh          ->  .gpu_bundle/bundle.tar.xz (git-ignored, about 50 MB)
#
# Then, with the device tool: run `scripts/gpu_check.sh` with carry [".gpu_bundle"]; it
# unpacks the bundle when the machine has no LLVM 19 to build with. The device's Python is
# chosen with DEVICE_PYTHON_VERSION (default 3.12); a local interpreter of that version
# builds the wheel (PATH, then pyenv's).
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=${DEVICE_PYTHON_VERSION:-3.12}
PY=$(command -v "python$VERSION" 2>/dev/null || true)
if [ -z "$PY" ] || ! "$PY" -c "" 2>/dev/null; then
  PY=
  for candidate in "$HOME"/.pyenv/versions/"$VERSION".*/bin/python"$VERSION"; do
    if [ -x "$candidate" ]; then PY=$candidate; fi # the last, as the newest
  done
fi
if [ -z "$PY" ]; then
  echo "gpu_bundle: no python$VERSION here to build the device's wheel" >&2
  exit 1
fi
OUT=.gpu_bundle
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/bin" "$STAGE/lib" "$STAGE/site" "$STAGE/wheels" "$OUT"

echo "[gpu_bundle] C++ tests (the test build of scripts/test.sh)"
cmake --build build/test --target kernels_test loop_tool_env_test
cp build/test/kernels/kernels_test build/test/envs/loop_tool/loop_tool_env_test "$STAGE/bin/"

echo "[gpu_bundle] the package for Python $VERSION ($PY)"
"$PY" -m pip wheel -q --no-deps -w "$STAGE/wheels" -Cbuild-dir=build/py"${VERSION/./}" .
# Pure-Python dependencies that the device's image lacks (it has numpy, scipy, networkx,
# tqdm, tabulate, filelock, torch, pytest, cloudpickle, pandas, matplotlib), at the versions
# this machine tests with.
deps=()
for name in gymnasium farama-notifications platformdirs absl-py stable-baselines3; do
  deps+=("$name==$(python3 -c "import importlib.metadata as m; print(m.version('$name'))")")
done
"$PY" -m pip download -q --no-deps --only-binary=:all: -d "$STAGE/wheels" "${deps[@]}"
"$PY" -m pip install -q --no-deps --no-compile --target "$STAGE/site" "$STAGE"/wheels/*.whl
rm -r "$STAGE/wheels"

echo "[gpu_bundle] builtin-v0's programs as bitcode (the installed package's clang-19 build)"
python3 scripts/builtin_bitcode.py "$STAGE/programs"

echo "[gpu_bundle] shared libraries"
# glibc's and the base libraries every Linux image has stay the device's own: a bundled older
# copy would shadow the newer one that the device's Python and PyTorch need.
base='^(linux-vdso|ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libstdc\+\+|libgcc_s|libz|libzstd|liblzma|libffi|libtinfo|libbsd|libmd)\.so'
elves=("$STAGE"/bin/* "$STAGE"/site/compiler_gym/_C*.so "$STAGE/site/compiler_gym/compiler_gym-worker")
ldd "${elves[@]}" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
  while read -r soname path; do
    if [[ ! "$soname" =~ $base ]]; then cp -L "$path" "$STAGE/lib/$soname"; fi
  done
missing=$(ldd "${elves[@]}" | grep "not found" || true)
if [ -n "$missing" ]; then
  echo "gpu_bundle: unresolved libraries: $missing" >&2
  exit 1
fi
ls "$STAGE/lib"

tar -C "$STAGE" -cf - . | xz -T0 -6 >"$OUT/bundle.tar.xz.tmp"
mv "$OUT/bundle.tar.xz.tmp" "$OUT/bundle.tar.xz"
echo "[gpu_bundle] $OUT/bundle.tar.xz: $(du -h "$OUT/bundle.tar.xz" | cut -f1)"
