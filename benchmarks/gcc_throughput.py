"""Compiles per second of gcc-v0, and what the engine adds to each of GCC's compiles.

    python benchmarks/gcc_throughput.py [--programs 8] [--steps 24] [--repeats 3]

Measured in one run, on builtin-v0 programs and random flag actions (every step makes a state
not compiled before, so each row is one real compile; the compile cache's counter checks it):
  * one env, stepped with reward ``obj_size``: compiles/s;
  * the same command lines run directly (``subprocess`` in a scratch dir on the same source):
    GCC's own time, and the engine's overhead per compile beside it (target: under 2%);
  * make_vec with 1 thread and with all cores (num_envs = --envs-per-core x cores, so that one
    slow program does not leave a core idle at each synchronous step): compiles/s and parallel
    efficiency = rate(all cores) / (cores x rate(1 thread)) (target: >= 0.9).
Configurations are interleaved over ``--repeats`` rounds; medians are reported.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time

import numpy as np

import compiler_gym


def flag_actions(env) -> list[int]:
    """Actions that set a -f flag on or off: nearly every combination compiles."""
    return [i for i, f in enumerate(env.action_space.flags) if f.startswith("-f") and "=" not in f]


def compiles(env) -> int:
    return json.loads(env._env.call("cache_stats"))["compiles"]


def single_env(programs, steps, rng):
    """Returns (compiles/s, seconds per compile, the command lines and sources compiled)."""
    env = compiler_gym.make("gcc-v0", reward_space="obj_size")
    actions = flag_actions(env)
    jobs, n, seconds = [], 0, 0.0
    for program in programs:
        env.reset(benchmark=program)
        source = env.source
        before = compiles(env)
        start = time.perf_counter()
        for a in rng.choice(actions, size=steps):
            _, _, done, _ = env.step(int(a))
            if done:
                env.reset(benchmark=program)
            jobs.append((source, env.command_line))
        seconds += time.perf_counter() - start
        n += compiles(env) - before
    env.close()
    return n / seconds, seconds / max(n, 1), jobs


def direct_gcc(jobs):
    """GCC alone on the same command lines: seconds per compile."""
    scratch = tempfile.mkdtemp(prefix="gcc-throughput-")
    try:
        src = os.path.join(scratch, "src.c")
        start = time.perf_counter()
        for source, command_line in jobs:
            with open(src, "w") as f:
                f.write(source)
            args = command_line.split()
            args[0] = shutil.which(args[0])
            subprocess.run(args, cwd=scratch, capture_output=True, check=False)
        return (time.perf_counter() - start) / len(jobs)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def vec(programs, steps, threads, num_envs, rng):
    v = compiler_gym.make_vec(
        "gcc-v0",
        num_envs=num_envs,
        num_threads=threads,
        benchmarks=programs,
        reward_space="obj_size",
    )
    with compiler_gym.make("gcc-v0") as probe:
        actions = flag_actions(probe)
        before = compiles(probe)
        v.reset()
        start = time.perf_counter()
        for _ in range(steps):
            v.step(rng.choice(actions, size=num_envs))
        seconds = time.perf_counter() - start
        n = compiles(probe) - before
    v.close()
    return n / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=8)
    parser.add_argument("--steps", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--envs-per-core", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    with compiler_gym.make("gcc-v0") as env:
        programs = list(env.datasets["benchmark://builtin-v0"].benchmark_uris())[: args.programs]
        print(f"{env.gcc_spec.version}; {len(programs)} programs; {cores} cores")
    rng = np.random.default_rng(args.seed)
    rows = {k: [] for k in ("single", "engine_s", "gcc_s", "overhead", "vec1", "vecN")}
    num_envs = args.envs_per_core * cores
    for r in range(args.repeats):
        rate, per_compile, jobs = single_env(programs, args.steps, rng)
        rows["single"].append(rate)
        rows["engine_s"].append(per_compile)
        rows["gcc_s"].append(direct_gcc(jobs))
        rows["overhead"].append((per_compile - rows["gcc_s"][-1]) / rows["gcc_s"][-1])
        rows["vec1"].append(vec(programs, args.steps, 1, num_envs, rng))
        rows["vecN"].append(vec(programs, args.steps, cores, num_envs, rng))
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.4g}" for k, v in rows.items()))
    m = {k: statistics.median(v) for k, v in rows.items()}
    overhead = m["overhead"]  # the median of the rounds' ratios, each measured side by side
    efficiency = m["vecN"] / (cores * m["vec1"])
    print(f"single env: {m['single']:.1f} compiles/s ({m['engine_s'] * 1e3:.1f} ms per step)")
    print(
        f"gcc alone: {m['gcc_s'] * 1e3:.1f} ms per compile; engine overhead "
        f"{overhead * 100:+.1f}% {'✅' if overhead < 0.02 else '❌'} (target < 2%)"
    )
    print(
        f"make_vec: {m['vec1']:.1f} compiles/s on 1 thread, {m['vecN']:.1f} on {cores}; "
        f"parallel efficiency {efficiency:.2f} {'✅' if efficiency >= 0.9 else '❌'} (>= 0.9)"
    )


if __name__ == "__main__":
    main()
