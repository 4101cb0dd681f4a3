"""Throughput of the vector engine, side by side with the alternatives users would pick.

    python benchmarks/vec_env_throughput.py [--env llvm-autophase-ic-v0] [--steps 40]
        [--num-envs 1 4 16 64] [--repeats 3] [--plot vec_env_throughput.png]
        [--isolation-only]

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
"""

from __future__ import annotations

import argparse
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


def _make_vec(env_id, n, threads, steps, **kwargs):
    vec = compiler_gym.make_vec(
        env_id,
        num_envs=n,
        num_threads=threads,
        benchmarks=URIS,
        max_episode_steps=steps,
        **kwargs,
    )
    vec.reset()
    return vec


def vec_sync(env_id, n, threads, steps, rng, isolation="none"):
    vec = _make_vec(env_id, n, threads, steps, isolation=isolation)
    actions = rng.integers(vec.single_action_space.n, size=(steps, n))
    start = time.perf_counter()
    for t in range(steps):
        vec.step(actions[t])
    rate = n * steps / (time.perf_counter() - start)
    vec.close()
    return rate


def vec_async(env_id, n, threads, steps, rng):
    vec = _make_vec(env_id, n, threads, steps, batch_size=max(1, n // 2))
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


def python_loop(env_id, n, steps, rng):
    envs = [compiler_gym.make(env_id, benchmark=URIS[i % len(URIS)]) for i in range(n)]
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


def async_vector_env(env_id, n, steps, rng):
    vec = gymnasium.vector.AsyncVectorEnv([_single(env_id, URIS[i % len(URIS)]) for i in range(n)])
    vec.reset(seed=0)
    actions = rng.integers(vec.single_action_space.n, size=(steps, n))
    start = time.perf_counter()
    for t in range(steps):
        vec.step(actions[t])
    rate = n * steps / (time.perf_counter() - start)
    vec.close()
    return rate


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
    args = parser.parse_args(argv)
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
        e, k = args.env, args.steps
        runs = {
            "one": partial(vec_sync, e, n, 1, k),
            "full": partial(vec_sync, e, n, cores, k),
            "asy": partial(vec_async, e, n, cores, k) if n > 1 else None,
            "loop": partial(python_loop, e, n, k),
            "subproc": partial(async_vector_env, e, n, k) if n <= 64 else None,
            # num_threads=0: the default, which for isolated envs is two threads per core.
            "iso": partial(vec_sync, e, n, 0, k, isolation="process"),
            "iso1": partial(vec_sync, e, n, 1, k, isolation="process"),
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
