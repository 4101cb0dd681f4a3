"""What a candidate costs beside its pass: env.try_actions over every action from one state,
against each action's pass alone (its compute time on a fork, which starts, as a candidate
does, with no analysis cached), on builtin-v0 and on large programs, in one run.

    python benchmarks/try_actions_cost.py [--programs 0] [--large ...] [--json out.json]

Per program: the pass alone (summed over the actions), try_actions' CPU time (the process's,
every thread and the background destruction included) and their ratio, and where the engine's
time went per candidate (the pass, fingerprints, verification, restoring the state between
candidates, rewards, the workers' set-up). The target (issue 35): a median ratio <= 1.5 over
each set. The results are checked against fork-and-step by tests/test_try_actions.py.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import compiler_gym

# Programs of 20k+ IR instructions at reset: pypi-c-v0 packages and csmith programs.
LARGE = [
    "benchmark://pypi-c-v0/lz4",
    "benchmark://pypi-c-v0/brotli/c/enc/backward_references",
    "benchmark://pypi-c-v0/pycryptodome/src/mldsa",
    "benchmark://pypi-c-v0/cmark-gfm/third_party/cmark/src/scanners",
    "generator://csmith-v0/11",
]
PARTS = ["pass", "fingerprint", "verify", "restore", "reward", "step_other", "setup"]


def measure(uri: str, repeats: int) -> dict:
    """One program's figures (see the module's docstring)."""
    with compiler_gym.make("llvm-v0", benchmark=uri, reward_space="IrInstructionCount") as env:
        env.reset()
        n = int(env.action_space.n)
        alone = []
        for action in range(n):
            with env.fork() as fork:
                fork.step(action)
                alone.append(fork._last_compute_seconds)
        runs = []
        for _ in range(repeats):
            start = time.process_time()
            env.try_actions(range(n))
            cpu = time.process_time() - start
            runs.append((cpu, getattr(env, "_last_try_seconds", None)))
        cpu, seconds = min(runs, key=lambda run: run[0])
        row = {
            "program": uri,
            "instructions": int(env.observation["IrInstructionCount"]),
            "candidates": n,
            "pass_alone_s": sum(alone),
            "try_cpu_s": cpu,
            "ratio": cpu / sum(alone),
        }
        if seconds:  # where the engine's time went, per candidate
            row["split_ms"] = {part: 1e3 * seconds[part] / n for part in PARTS}
        return row


def report(title: str, rows: list[dict]) -> None:
    print(f"\n{title}")
    header = f"{'program':<58} {'insts':>6} {'alone ms':>9} {'try ms':>8} {'ratio':>6}"
    print(header + "".join(f" {part[:8]:>8}" for part in PARTS))
    for row in rows:
        n = row["candidates"]
        line = (
            f"{row['program'][-58:]:<58} {row['instructions']:>6} "
            f"{1e3 * row['pass_alone_s'] / n:>9.3f} {1e3 * row['try_cpu_s'] / n:>8.3f} "
            f"{row['ratio']:>6.2f}"
        )
        split = row.get("split_ms", {})
        print(line + "".join(f" {split[p]:>8.3f}" if p in split else f" {'-':>8}" for p in PARTS))
    print(f"median ratio {statistics.median(r['ratio'] for r in rows):.2f} over {len(rows)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=0, help="the first N of builtin-v0")
    parser.add_argument("--large", nargs="*", default=LARGE, help="large programs' URIs")
    parser.add_argument("--repeats", type=int, default=2, help="try_actions runs; the least")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    with compiler_gym.make("llvm-v0") as env:
        builtin = list(env.datasets["benchmark://builtin-v0"].benchmark_uris())
    builtin = builtin[: args.programs or None]
    print(f"{os.cpu_count()} cores, {compiler_gym.__file__}")
    results = {}
    for title, programs in (("builtin-v0", builtin), ("large", args.large)):
        if not programs:
            continue
        rows = [measure(uri, args.repeats) for uri in programs]
        report(title, rows)
        results[title] = rows
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
