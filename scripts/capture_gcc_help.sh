#!/usr/bin/env bash
# Records a GCC's option listings as test fixtures (envs/gcc/gcc_spec_test.cc parses them).
# Usage: scripts/capture_gcc_help.sh [gcc] [out_dir]   (default: gcc, tests/data/gcc)
set -euo pipefail
gcc=${1:-gcc}
out=${2:-$(dirname "$0")/../tests/data/gcc}
major=$("$gcc" -dumpversion | cut -d. -f1)
"$gcc" --version | head -n1 > "$out/gcc-$major-version.txt"
"$gcc" -Q --help=optimizers > "$out/gcc-$major-optimizers.txt"
"$gcc" -Q --help=params > "$out/gcc-$major-params.txt"
echo "wrote $out/gcc-$major-{version,optimizers,params}.txt"
