"""How many benchmarks each LLVM dataset offers on this machine, and how many compile and run.

    python benchmarks/dataset_counts.py [--csmith-seeds 200] [--llvm-stress-seeds 50]

Installs what is not installed (gcc-torture-v0 downloads Debian's gcc-12-source, pypi-c-v0
pinned sdists from PyPI), then for
each dataset counts the benchmarks, those that load (compile to a verified module) and those
that are runnable with their unoptimized build ending correctly. Generators are infinite:
they are sampled over the first seeds.
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ThreadPoolExecutor

import compiler_gym
from compiler_gym import _C
from compiler_gym.util.cli import progress


def probe(benchmark) -> tuple[bool, bool]:
    """(loads, runs) for one benchmark, as an env would load and run it."""
    result = _C.probe_benchmark("llvm", benchmark.to_engine(), 10.0)
    if result["ok"]:
        return True, True
    return result["error_type"] != "BENCHMARK_INIT", False


def count(name: str, benchmarks: list, quiet: bool = False) -> tuple[int, int, int]:
    """(benchmarks, runnable, ran ok) of one dataset's ``benchmarks``."""
    runnable = [b for b in benchmarks if b.runnable]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        probes = pool.map(probe, runnable)
        verdicts = list(
            progress(
                probes, total=len(runnable), desc=f"{name}: probing", unit="program", quiet=quiet
            )
        )
    ran = sum(runs for _, runs in verdicts)
    return len(benchmarks), len(runnable), ran


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--csmith-seeds", type=int, default=200, help="csmith-v0 seeds sampled (default 200)"
    )
    parser.add_argument(
        "--llvm-stress-seeds",
        type=int,
        default=50,
        help="llvm-stress-v0 seeds sampled (default 50)",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress bars (none either off a terminal)"
    )
    args = parser.parse_args(argv)

    def load(name: str, uris: list[str]) -> list:
        """The benchmarks of ``uris``, made (generated, read) one by one under a progress
        bar: a generator's seeds take minutes."""
        bar = progress(uris, desc=f"{name}: loading", unit="program", quiet=args.quiet)
        return [env.datasets.benchmark(uri) for uri in bar]

    rows = []
    with compiler_gym.make("llvm-v0") as env:
        start = time.time()
        torture = env.datasets.dataset("gcc-torture-v0")
        torture.install()
        print(f"gcc-torture-v0 installed in {time.time() - start:.0f} s")
        builtin = env.datasets.dataset("builtin-v0")
        samples = {
            # Every input size of every program is a benchmark (?dataset=N).
            "builtin-v0": [
                f"{uri}?dataset={size}"
                for uri in builtin.benchmark_uris()
                for size in builtin._manifest[uri.rsplit("/", 1)[1]]["datasets"]
            ],
            "gcc-torture-v0": list(torture.benchmark_uris()),
            "csmith-v0 (first seeds)": [
                f"generator://csmith-v0/{s}" for s in range(args.csmith_seeds)
            ],
            "pypi-c-v0": list(env.datasets.dataset("pypi-c-v0").benchmark_uris()),
            "llvm-stress-v0 (first seeds)": [
                f"generator://llvm-stress-v0/{s}" for s in range(args.llvm_stress_seeds)
            ],
        }
        for name, uris in samples.items():
            rows.append((name, *count(name, load(name, uris), quiet=args.quiet)))
        dropped = len(torture._manifest["dropped"])

    print(f"\n{'dataset':<30} {'benchmarks':>10} {'runnable':>9} {'ran ok':>7}")
    for name, total, runnable, ran in rows:
        print(f"{name:<30} {total:>10} {runnable:>9} {ran:>7}")
    total_ran = sum(r[3] for r in rows)
    print(
        f"{'total':<30} {sum(r[1] for r in rows):>10} {sum(r[2] for r in rows):>9} {total_ran:>7}"
    )
    print(
        f"\ngcc-torture-v0: {dropped} more tests of the suite do not compile with clang-19 "
        "(listed with reasons in its manifest)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
