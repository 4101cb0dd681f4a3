"""Throughput of the vector engine, side by side with the alternatives users would pick.

    python benchmarks/vec_env_throughput.py [--env llvm-autophase-ic-v0] [--steps 40]
        [--num-envs 1 4 16 64] [--repeats 3] [--plot vec_env_throughput.png]
        [--isolation-only] [--benchmarks URI ...] [--json OUT.json]
    python benchmarks/vec_env_throughput.py --threads 1 2 4 8 16 [--isolated]
        [--num-envs 64 1024 4096] [--seconds 3] [--min-seconds 1] [--json OUT.json]

Measured in one run on the same benchmarks and random actions:
  * make_vec, sync step, for each num_threads in {1, all cores} and each num_envs;
  * make_vec, async send/recv with batch_size = num_envs / 2;
  * make_vec with isolation="process" (a worker process per env), sync, default threads, and
    its ratio to make_vec in process with all cores (target: within 15%);
  * the same with one engine thread, and its ratio to one thread in process: the engine starts
    every worker's step before it waits for any, so the workers run side by side on all cores
    however few threads wait for them;
  * a Python loop over num_envs single compiler_gym.make envs;
  * gymnasium.vector.AsyncVectorEnv over single envs (one subprocess per env);
and prints env steps/s, parallel efficiency, and the speedups.

With --threads, the scaling table instead: make_vec's sync step for each num_envs at each
thread count, and its parallel efficiency rate(t) / (t * rate(1)) (with --isolated, also
isolation="process" at each thread count and its ratio to in-process). Every point of one
num_envs replays the same random actions for the same number of steps per env: the first
thread count steps until --seconds have passed (at most --steps steps), which sets that number
for the others, and each of those replays it from reset until --min-seconds were timed, so
that a point stays a few seconds long however many envs and threads it has.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from functools import partial

import gymnasium
import numpy as np

import compiler_gym

URIS = [
    "benchmark://builtin-v0/crc32",
    "benchmark://builtin-v0/qsort",
    "benchmark://builtin-v0/sha256",
    "benchmark://builtin-v0/bitcount",
]


def _make_vec(env_id, n, threads, steps, benchmarks=URIS, **kwargs):
    vec = compiler_gym.make_vec(
        env_id,
        num_envs=n,
        num_threads=threads,
        benchmarks=benchmarks,
        max_episode_steps=steps,
        **kwargs,
    )
    vec.reset()
    return vec


def vec_steps(
    env_id,
    n,
    threads,
    steps,
    rng,
    isolation="none",
    benchmarks=URIS,
    until=0.0,
    at_least=0.0,
    array_type="torch",
):
    """make_vec's sync step: (env steps/s, steps per env timed) over ``steps`` steps of every
    env from reset. ``until`` > 0 stops after the first step that ends past ``until`` seconds;
    ``at_least`` > 0 replays the same steps from reset until that many seconds were timed."""
    vec = _make_vec(
        env_id, n, threads, steps, benchmarks, isolation=isolation, array_type=array_type
    )
    actions = rng.integers(vec.single_action_space.n, size=(steps, n))
    timed, done = 0.0, 0
    while True:
        start = time.perf_counter()
        for t in range(steps):
            vec.step(actions[t])
            if until and time.perf_counter() - start >= until:
                steps = t + 1
                break
        timed += time.perf_counter() - start
        done += steps
        if timed >= at_least:
            break
        vec.reset()
    vec.close()
    return n * done / timed, steps


def vec_sync(env_id, n, threads, steps, rng, isolation="none", benchmarks=URIS):
    return vec_steps(env_id, n, threads, steps, rng, isolation, benchmarks)[0]


def parallel_efficiency(rate: float, threads: int, rate_one: float) -> float:
    """Parallel efficiency: the rate on ``threads`` threads over ``threads`` times one's."""
    return rate / (threads * rate_one)


def vec_async(env_id, n, threads, steps, rng, benchmarks=URIS):
    vec = _make_vec(env_id, n, threads, steps, benchmarks, batch_size=max(1, n // 2))
    k = vec.single_action_space.n
    vec.send(rng.integers(k, size=n))
    done = 0
    start = time.perf_counter()
    while done < n * steps:
        _, _, _, _, info = vec.recv()
        ids = info["env_id"]
        done += len(ids)
        vec.send(rng.integers(k, size=len(ids)), ids)
    elapsed = time.perf_counter() - start
    in_flight = n  # every env received was sent again: all n are in flight
    while in_flight:
        in_flight -= len(vec.recv()[4]["env_id"])
    vec.close()
    return done / elapsed


def python_loop(env_id, n, steps, rng, benchmarks=URIS):
    envs = [compiler_gym.make(env_id, benchmark=benchmarks[i % len(benchmarks)]) for i in range(n)]
    for env in envs:
        env.reset()
    actions = rng.integers(envs[0].action_space.n, size=(steps, n))
    start = time.perf_counter()
    for t in range(steps):
        for i, env in enumerate(envs):
            env.step(int(actions[t, i]))
    rate = n * steps / (time.perf_counter() - start)
    for env in envs:
        env.close()
    return rate


def _single(env_id, uri):
    return lambda: gymnasium.make(f"compiler_gym/{env_id}", benchmark=uri)


def async_vector_env(env_id, n, steps, rng, benchmarks=URIS):
    vec = gymnasium.vector.AsyncVectorEnv(
        [_single(env_id, benchmarks[i % len(benchmarks)]) for i in range(n)]
    )
    vec.reset(seed=0)
    actions = rng.integers(vec.single_action_space.n, size=(steps, n))
    start = time.perf_counter()
    for t in range(steps):
        vec.step(actions[t])
    rate = n * steps / (time.perf_counter() - start)
    vec.close()
    return rate


def _number(value: float):
    """A JSON number, None for NaN (JSON has none)."""
    return None if value != value else value


def _write_json(path: str, header: dict, rows: list) -> None:
    with open(path, "w") as f:
        json.dump({**header, "rows": rows}, f, indent=1)
    print(f"json: {path}")


def scaling(args) -> int:
    """The --threads table: steps/s and efficiency per (num_envs, threads), and the isolated
    executor beside in-process with --isolated."""
    cores = os.cpu_count() or 1
    threads = sorted(set(args.threads))
    modes = ["none", "process"] if args.isolated else ["none"]
    print(
        f"{args.env}, {cores} cores, {len(args.benchmarks)} benchmarks; env steps/s (parallel "
        f"efficiency), median of {args.repeats} rounds"
    )
    rows = []
    for n in args.num_envs:
        samples = {(t, mode): [] for t in threads for mode in modes}
        steps = None  # per env, set by the first point
        for _ in range(args.repeats):
            for t, mode in samples:
                rng = np.random.default_rng(0)  # every point replays the same actions
                run = partial(vec_steps, args.env, n, t, rng=rng, isolation=mode)
                run = partial(run, benchmarks=args.benchmarks, array_type=args.array_type)
                if steps is None:
                    rate, steps = run(args.steps, until=args.seconds)
                else:
                    rate, _ = run(steps, at_least=args.min_seconds)
                samples[t, mode].append(rate)
        rate = {key: float(np.median(values)) for key, values in samples.items()}
        cells = []
        for t in threads:
            row = {
                "num_envs": n,
                "threads": t,
                "steps_per_env": steps,
                "steps_per_s": rate[t, "none"],
                "efficiency": parallel_efficiency(rate[t, "none"], t, rate[1, "none"])
                if 1 in threads
                else None,
            }
            cell = f"{t} thr {row['steps_per_s']:.0f}"
            if row["efficiency"] is not None:
                cell += f" ({row['efficiency']:.2f})"
            if args.isolated:
                row["isolated_steps_per_s"] = rate[t, "process"]
                row["isolated_ratio"] = rate[t, "process"] / rate[t, "none"]
                cell += f" iso {row['isolated_steps_per_s']:.0f} ({row['isolated_ratio']:.2f}x)"
            rows.append(row)
            cells.append(cell)
        print(f"{n:>6} envs, {steps} steps/env: " + ", ".join(cells), flush=True)
        if args.json:  # after each size: a run stopped at its time limit keeps what it measured
            header = {"env": args.env, "cores": cores, "benchmarks": args.benchmarks}
            _write_json(args.json, {**header, "repeats": args.repeats}, rows)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="llvm-autophase-ic-v0")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--num-envs", type=int, nargs="+", default=[1, 4, 16, 64])
    parser.add_argument("--repeats", type=int, default=3, help="rounds; the median is reported")
    parser.add_argument("--plot", default="")
    parser.add_argument(
        "--isolation-only",
        action="store_true",
        help="only the isolated engine and the in-process ones it is compared with, in more "
        "rounds for the same time (the ratio's spread on a shared machine is wide)",
    )
    parser.add_argument(
        "--benchmarks", nargs="+", default=URIS, help="URIs, files too (file:///path/prog.bc)"
    )
    parser.add_argument("--json", default="", help="also write the table to this file")
    scaling_flags = parser.add_argument_group("the scaling table (--threads)")
    scaling_flags.add_argument(
        "--threads", type=int, nargs="+", help="thread counts (efficiency needs 1 among them)"
    )
    scaling_flags.add_argument(
        "--isolated", action="store_true", help='also isolation="process" at each thread count'
    )
    scaling_flags.add_argument(
        "--seconds", type=float, default=3.0, help="the first thread count's time per point"
    )
    scaling_flags.add_argument(
        "--min-seconds", type=float, default=1.0, help="the other points' least timed seconds"
    )
    scaling_flags.add_argument(
        "--array-type",
        choices=["torch", "numpy"],
        default="torch",
        help="make_vec's outputs (numpy: no torch needed)",
    )
    args = parser.parse_args(argv)
    if args.threads:
        return scaling(args)
    skipped = {"asy", "loop", "subproc"} if args.isolation_only else set()
    cores = os.cpu_count() or 1
    nan = float("nan")
    rows = []

    def rng():
        # Every configuration replays the same random actions.
        return np.random.default_rng(0)

    print(
        f"{args.env}, {args.steps} steps per env, {cores} cores; env steps/s, "
        f"median of {args.repeats} rounds"
    )
    print(
        f"{'num_envs':>8} {'vec 1 thr':>10} {'vec all':>10} {'vec async':>10} "
        f"{'py loop':>10} {'AsyncVecEnv':>12} {'eff':>6} {'vs Async':>9} {'isolated':>9} "
        f"{'iso/all':>8} {'iso 1 thr':>10} {'iso1/1':>7}"
    )
    for n in args.num_envs:
        e, k, b = args.env, args.steps, args.benchmarks
        runs = {
            "one": partial(vec_sync, e, n, 1, k, benchmarks=b),
            "full": partial(vec_sync, e, n, cores, k, benchmarks=b),
            "asy": partial(vec_async, e, n, cores, k, benchmarks=b) if n > 1 else None,
            "loop": partial(python_loop, e, n, k, benchmarks=b),
            "subproc": partial(async_vector_env, e, n, k, benchmarks=b) if n <= 64 else None,
            # num_threads=0: the default, which for isolated envs is two threads per core.
            "iso": partial(vec_sync, e, n, 0, k, isolation="process", benchmarks=b),
            "iso1": partial(vec_sync, e, n, 1, k, isolation="process", benchmarks=b),
        }
        # Rounds interleave the configurations, so that a slow spell of a shared machine
        # does not fall on one of them only; each reports its median round.
        samples = {name: [] for name in runs}
        for _ in range(args.repeats):
            for name, run in runs.items():
                samples[name].append(run(rng()) if run and name not in skipped else nan)
        one, full, asy, loop, subproc, iso, iso1 = (
            float(np.median(samples[name])) for name in runs
        )
        efficiency = full / (one * min(cores, n))
        rows.append((n, one, full, asy, loop, subproc, iso, iso1))
        print(
            f"{n:>8} {one:>10.0f} {full:>10.0f} {asy:>10.0f} {loop:>10.0f} {subproc:>12.0f} "
            f"{efficiency:>6.2f} {full / subproc:>8.2f}x {iso:>9.0f} {iso / full:>8.2f} "
            f"{iso1:>10.0f} {iso1 / one:>7.2f}"
        )
    if args.json:
        names = ("num_envs", "vec_1_thread", "vec_all", "vec_async", "python_loop")
        names += ("async_vector_env", "isolated", "isolated_1_thread")
        table = [{k: _number(v) for k, v in zip(names, row, strict=True)} for row in rows]
        _write_json(args.json, {"env": args.env, "steps": args.steps, "cores": cores}, table)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        data = np.array(rows, dtype=float)
        labels = [
            "vec, 1 thread",
            f"vec, {cores} threads",
            "vec async",
            "Python loop",
            "AsyncVectorEnv",
            "vec, isolated",
            "vec, isolated, 1 thread",
        ]
        for k, label in enumerate(labels, start=1):
            plt.plot(data[:, 0], data[:, k], marker="o", label=label)
        plt.xscale("log")
        plt.xlabel("num_envs")
        plt.ylabel("env steps / s")
        plt.title(args.env)
        plt.legend()
        plt.savefig(args.plot, dpi=120, bbox_inches="tight")
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
