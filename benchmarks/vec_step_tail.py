"""How much of a sync step's parallel efficiency the order of its envs costs: the tail.

    python3 benchmarks/vec_step_tail.py [--num-envs 1024] [--steps 3] [--threads 2 4 8 16]
        [--benchmarks URI ...] [--json OUT]

A sync ``make_vec`` step ends when its slowest thread does. Each env's step is timed alone, on
one thread (``compiler_gym.make`` envs, the random actions and programs that
``vec_env_throughput.py --threads`` gives ``make_vec``), and each step's makespan on T threads
is computed for three orders of taking the envs from one queue: index order (what TBB's
``parallel_for`` approaches at best), longest expected first as the engine does it
(``StepCosts``: a moving average of each action's past step times, learned along the steps),
and longest first knowing every time (the bound). Printed: the parallel efficiency each allows,
sum(times) / (T * makespan), on T threads; the measured efficiency cannot exceed it. No
threads are run: the figures are for any core count from one machine's step times.
"""

from __future__ import annotations

import argparse
import heapq
import json
import time
from pathlib import Path

import numpy as np

import compiler_gym


def makespan(times, threads: int) -> float:
    """When the last of ``threads`` threads ends, each taking the next time from the queue."""
    ends = [0.0] * threads
    for t in times:
        heapq.heapreplace(ends, ends[0] + t)
    return max(ends)


def step_times(uris: list[str], num_envs: int, steps: int, env_id: str) -> tuple:
    """Each env's step times (steps x envs) and actions, env i on uris[i % len(uris)]."""
    envs = [compiler_gym.make(env_id, benchmark=uris[i % len(uris)]) for i in range(num_envs)]
    try:
        for env in envs:
            env.reset()
        actions = np.random.default_rng(0).integers(envs[0].action_space.n, size=(steps, num_envs))
        times = np.zeros((steps, num_envs))
        for t in range(steps):
            for i, env in enumerate(envs):
                start = time.perf_counter()
                env.step(int(actions[t, i]))
                times[t, i] = time.perf_counter() - start
    finally:
        for env in envs:
            env.close()
    return times, actions


def efficiencies(times, actions, threads: int) -> dict[str, float]:
    """The efficiency bound of each order on ``threads`` threads, over all steps."""
    spans = {"index order": 0.0, "by action (the engine)": 0.0, "longest first (bound)": 0.0}
    average: dict[int, float] = {}  # StepCosts: a moving average per action, else the mean
    total, seen = 0.0, 0
    for t in range(len(times)):
        row, acts = times[t], actions[t]
        mean = total / seen if seen else 0.0
        expected = [average.get(int(a), mean) for a in acts]
        engine = sorted(range(len(row)), key=lambda i: -expected[i])  # stable: ties by index
        spans["index order"] += makespan(row, threads)
        spans["by action (the engine)"] += makespan(row[engine], threads)
        spans["longest first (bound)"] += makespan(sorted(row, reverse=True), threads)
        for a, s in zip(acts, row, strict=True):
            a = int(a)
            average[a] = 0.8 * average[a] + 0.2 * s if a in average else s
            total, seen = total + s, seen + 1
    work = float(times.sum())
    return {name: work / (threads * span) for name, span in spans.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="llvm-autophase-ic-v0")
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[2, 4, 8, 16])
    parser.add_argument(
        "--benchmarks",
        nargs="+",
        default=[f"benchmark://builtin-v0/{n}" for n in ("crc32", "qsort", "sha256", "bitcount")],
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    times, actions = step_times(args.benchmarks, args.num_envs, args.steps, args.env)
    ms = 1000 * times
    print(
        f"{args.num_envs} envs x {args.steps} steps, one thread: step ms mean {ms.mean():.3f}, "
        f"p50 {np.median(ms):.3f}, p99 {np.quantile(ms, 0.99):.3f}, max {ms.max():.3f}"
    )
    rows = []
    for threads in args.threads:
        bound = efficiencies(times, actions, threads)
        rows.append({"threads": threads, **bound})
        print(f"{threads:>3} threads: " + ", ".join(f"{k} {v:.3f}" for k, v in bound.items()))
    if args.json:
        args.json.write_text(json.dumps({"flags": vars(args) | {"json": None}, "rows": rows}))


if __name__ == "__main__":
    main()
