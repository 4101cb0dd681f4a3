#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: build with CUDA, run every CUDA test (the kernels in kernels/,
# make_vec(device="cuda"), loop_tool on the GPU) and the GPU benchmarks, and print a summary.
#
#   scripts/gpu_check.sh [output-dir]     (results and logs go to output-dir, default gpu_check/)
#
# Each step runs even when an earlier one failed; the exit status is non-zero if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${1:-gpu_check}
mkdir -p "$OUT_DIR"
PY=${PYTHON:-python3}
summary=()

step() {  # step NAME COMMAND...: runs it, logs to $OUT_DIR/NAME.log, records PASS/FAIL
  local name=$1
  shift
  local start=$SECONDS
  if "$@" >"$OUT_DIR/$name.log" 2>&1; then
    summary+=("PASS  $name ($((SECONDS - start)) s)")
  else
    summary+=("FAIL  $name ($((SECONDS - start)) s): see $OUT_DIR/$name.log")
  fi
  tail -n 5 "$OUT_DIR/$name.log"
}

step gpu nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
# The package, built with the CUDA kernels (CG_WITH_CUDA is on by default when nvcc is found).
if ! $PY -c "import compiler_gym" 2>/dev/null || [ "${GPU_CHECK_REBUILD:-1}" = 1 ]; then
  step build $PY -m pip install -q --no-build-isolation -Cbuild-dir=build/py \
    -Ccmake.define.CG_WITH_CUDA=ON -Ccmake.define.CG_BUILD_TESTS=ON .
fi
# Fails unless the CUDA kernels were built in and a device answers.
step make_vec_cuda $PY -c "import compiler_gym; v = compiler_gym.make_vec('llvm-v0', num_envs=2, device='cuda'); v.reset(); v.close(); print('ok')"
step ctest_kernels ctest --test-dir build/py -R "kernels_test|loop_tool_env_test" --output-on-failure
step loop_tool_devices $PY -c "from compiler_gym.envs.loop_tool import devices; d = devices(); print(d); assert d['cuda'] == '', d['cuda']"
step pytest_cuda $PY -m pytest -q -rs tests/test_loop_tool.py tests/test_vec_env.py \
  tests/test_representations.py -k "cuda or loop_tool"
step bench_loop_tool $PY benchmarks/loop_tool_search.py --device all --out "$OUT_DIR/loop_tool_search.json"

echo
echo "== gpu_check summary =="
printf '%s\n' "${summary[@]}"
! printf '%s\n' "${summary[@]}" | grep -q '^FAIL'
