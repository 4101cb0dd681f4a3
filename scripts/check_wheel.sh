#!/usr/bin/env bash
# The package as a user installs it: a wheel built in a clean virtual environment (no site
# packages, build requirements from PyPI, GoogleTest hidden from CMake even where the machine has
# it), installed there with its dependencies, then one env made and stepped; the same check, and
# the refusal of the test builds' hooks, also on the package scripts/setup.sh installed.
#
#   scripts/check_wheel.sh [work-dir]      (default: a temporary directory, removed afterwards)
set -euo pipefail
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d)}
[ -n "${1:-}" ] || trap 'rm -rf "$work"' EXIT
PY=${PYTHON:-python3}

$PY -m venv "$work/venv"
venv_py="$work/venv/bin/python"
"$venv_py" -m pip install -q --upgrade pip
"$venv_py" -m pip install -q "scikit-build-core>=0.10" "pybind11>=2.12" ninja "cmake>=3.24"
# The build dir is the venv's own; ccache (when present) keeps a rebuild short.
"$venv_py" -m pip wheel -q --no-build-isolation --no-deps -w "$work/dist" \
  -Cbuild-dir="$work/build" -Ccmake.define.CMAKE_DISABLE_FIND_PACKAGE_GTest=ON .
"$venv_py" -m pip install -q "$work"/dist/compiler_gym-*.whl
if [ -e "$work/build/envs/llvm/llvm_env_test" ]; then
  echo "[check_wheel] the wheel's build made the tests" >&2
  exit 1
fi
# The extension must import where no CUDA toolkit is installed: the CUDA runtime is linked in
# (the driver is opened at run time), never a shared library the module needs.
needed=$(readelf -d "$work"/venv/lib/python*/site-packages/compiler_gym/_C*.so | grep NEEDED)
if grep -q 'libcud' <<<"$needed"; then
  echo "[check_wheel] _C needs a CUDA library at load time: $needed" >&2
  exit 1
fi
# What a user's package must do, and refuse: run by the wheel's venv, then by the package that
# scripts/setup.sh installed (the interpreter's own site-packages, no PYTHONPATH).
check() {
  (cd "$work" && env -u PYTHONPATH "$1" - "$2") <<'PY'
import sys

import compiler_gym

where = sys.argv[1]
assert "torch" not in sys.modules
with compiler_gym.make("llvm-ic-v0", benchmark="benchmark://builtin-v0/crc32") as env:
    env.reset()
    _, reward, done, _ = env.step(env.action_space["-mem2reg"])
    assert not done and reward > 0, reward
    # Test hooks exist in test builds only: a user's package refuses the one that runs any
    # pipeline, through each door a parameter has.
    try:
        env.send_param("testing.next_step_pipeline", "dot-cfg")
    except ValueError as e:
        assert "unknown parameter" in str(e), e
    else:
        raise AssertionError(f"{where} accepts the test builds' pipeline hook")
hook = {"testing.next_step_pipeline": "dot-cfg"}
for make in (
    lambda: compiler_gym.make("llvm-v0", parameters=hook),
    lambda: compiler_gym.make_vec("llvm-v0", num_envs=2, parameters=hook),
):
    try:
        make().close()
    except ValueError as e:
        assert "unknown parameter" in str(e), e
    else:
        raise AssertionError(f"{where} accepts the test builds' pipeline hook at make")
print(f"[check_wheel] {where} ok: {compiler_gym.__file__}, reward {reward:.4f}")
PY
}
check "$venv_py" "the wheel"
check "$(command -v "$PY")" "the package setup.sh installed"
