#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: run every CUDA test (the kernels in kernels/, the loop_tool
# backends, make_vec(device="cuda"), loop_tool on the GPU from Python) and the GPU benchmarks,
# and print a summary. Where LLVM 19 is installed it builds the package with CUDA first; on a
# machine without it (the device tool's, which also has no network) it runs what
# scripts/gpu_bundle.sh packed on the development machine into .gpu_bundle/ (carry it).
#
#   scripts/gpu_check.sh [output-dir]     (results and logs go to output-dir, default gpu_check/)
#   GPU_CHECK_BUNDLE=1 scripts/gpu_check.sh   (use the bundle even where LLVM 19 is installed)
#   GPU_CHECK_STEP_TIMEOUT=300 GPU_CHECK_SEARCH_SECONDS=240 scripts/gpu_check.sh
#       (bound each step, and the benchmark's search, to fit a lent machine's command limit)
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
  if timeout -k 10 "${GPU_CHECK_STEP_TIMEOUT:-3600}" "$@" >"$OUT_DIR/$name.log" 2>&1; then
    summary+=("PASS  $name ($((SECONDS - start)) s)")
  else
    summary+=("FAIL  $name ($((SECONDS - start)) s): see $OUT_DIR/$name.log")
  fi
  tail -n 5 "$OUT_DIR/$name.log"
}

step gpu nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
if [ -d /usr/lib/llvm-19 ] && [ "${GPU_CHECK_BUNDLE:-0}" != 1 ]; then
  # A machine set up like the development one: build the package with CUDA here.
  if ! $PY -c "import compiler_gym" 2>/dev/null || [ "${GPU_CHECK_REBUILD:-1}" = 1 ]; then
    step build $PY -m pip install -q --no-build-isolation -Cbuild-dir=build/py \
      -Ccmake.define.CG_WITH_CUDA=ON -Ccmake.define.CG_BUILD_TESTS=ON .
  fi
  step kernels_test build/py/kernels/kernels_test
  step loop_tool_env_test build/py/envs/loop_tool/loop_tool_env_test
elif [ -f .gpu_bundle/bundle.tar.xz ]; then
  # The lent machines have no LLVM 19 and no network: the tests and the package come packed
  # by scripts/gpu_bundle.sh, with the libraries they need, and run on the machine's Python.
  BUNDLE=$(mktemp -d)
  # Python's tarfile: the image may lack xz.
  step unpack $PY -c "import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2], filter='data')" \
    .gpu_bundle/bundle.tar.xz "$BUNDLE"
  export LD_LIBRARY_PATH="$BUNDLE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PYTHONPATH="$BUNDLE/site${PYTHONPATH:+:$PYTHONPATH}"
  step kernels_test "$BUNDLE/bin/kernels_test"
  step loop_tool_env_test "$BUNDLE/bin/loop_tool_env_test"
else
  echo "gpu_check: no LLVM 19 to build with and no .gpu_bundle/bundle.tar.xz (scripts/gpu_bundle.sh)" >&2
  exit 1
fi
# Fails unless the CUDA kernels were built in and a device answers.
step make_vec_cuda $PY -c "import compiler_gym; v = compiler_gym.make_vec('loop_tool-v0', num_envs=2, benchmarks=['loop_tool-cuda-v0/1024'], device='cuda'); o, _ = v.reset(); assert o.is_cuda, o.device; v.close(); print('ok', o.device)"
step loop_tool_devices $PY -c "from compiler_gym.envs.loop_tool import devices; d = devices(); print(d); assert d['cuda'] == '', d['cuda']"
step pytest_cuda $PY -m pytest -q -rs -p no:cacheprovider tests/test_loop_tool.py \
  tests/test_vec_env.py tests/test_representations.py -k "cuda or loop_tool"
# The GPU figures (the CPU ones come from the development machine: a 1,000-schedule CPU search
# alone would outlast a lent machine's 10-minute command).
search_limit=()
if [ -n "${GPU_CHECK_SEARCH_SECONDS:-}" ]; then
  search_limit=(--max-search-seconds "$GPU_CHECK_SEARCH_SECONDS")
fi
step bench_loop_tool $PY -u benchmarks/loop_tool_search.py --device cuda "${search_limit[@]}" \
  --out "$OUT_DIR/loop_tool_search.json"

echo
echo "== gpu_check summary =="
printf '%s\n' "${summary[@]}"
! printf '%s\n' "${summary[@]}" | grep -q '^FAIL'
