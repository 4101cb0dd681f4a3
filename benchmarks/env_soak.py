"""Soak of the single-env API: nothing may leak over thousands of episodes.

    python benchmarks/env_soak.py [--episodes 10000] [--steps 8] [--seed 0] [--no-crashes]
        [--isolation none|process]

Each episode makes an env (or reuses a long-lived one), resets it on a random built-in or
generated program, steps it, forks it and steps the fork, sometimes measures Runtime (a program
run in the sandbox), sometimes hits an error on purpose (an out-of-range action, a corrupt
benchmark, a crashing test pass), and closes what it made. After every tenth of the run it
records the process's resident memory, threads, open file descriptors, child processes and the
compiler_gym temporary directories. Reported: RSS growth between the second and the last tenth
(target under 1%; the first tenth is warm-up: caches, pools, the inst2vec model), the same for
the memory still held after a garbage collection and ``malloc_trim`` (RSS also counts freed
memory that malloc keeps), the Python heap's block count, and the change
of every count from the second tenth (target: none). With ``--isolation process`` every env
runs in a worker process; the figures are this process's, whose children are then the workers
of the envs alive at the time.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import compiler_gym
from compiler_gym.envs.llvm_env import clear_benchmark_cache
from compiler_gym.errors import BenchmarkInitError, ServiceError


def rss_mib() -> float:
    status = Path("/proc/self/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024


def resources() -> dict:
    status = Path("/proc/self/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    raw = rss_mib()
    # RSS also counts memory that was freed but that malloc keeps for reuse; after a collection
    # and malloc_trim, what is left is what the process still holds.
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    children = 0
    for task in Path("/proc").iterdir():
        if task.name.isdigit():
            try:
                ppid = int((task / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children += ppid == os.getpid()
    temp = Path(os.environ.get("TMPDIR", tempfile.gettempdir()))
    return {
        "rss_mib": raw,
        "held_mib": rss_mib(),
        "python_blocks": sys.getallocatedblocks(),
        "threads": int(fields["Threads"]),
        "fds": len(os.listdir("/proc/self/fd")),
        "children": children,
        "temp_dirs": sum(1 for p in temp.glob("compiler_gym-*") if f".pid{os.getpid()}." in p.name),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runtime-every", type=int, default=50)
    parser.add_argument("--error-every", type=int, default=20)
    parser.add_argument(
        "--no-crashes",
        action="store_true",
        help="leave out the crashing test pass (needs a test build: CG_BUILD_TESTS)",
    )
    parser.add_argument("--isolation", choices=["none", "process"], default="none")
    args = parser.parse_args(argv)
    os.environ["COMPILER_GYM_ISOLATION"] = args.isolation

    rng = np.random.default_rng(args.seed)
    corrupt = Path(tempfile.mkdtemp(prefix="env-soak-")) / "corrupt.bc"
    corrupt.write_bytes(b"BC\xc0\xde" + bytes(rng.integers(256, size=2000, dtype=np.uint8)))
    long_lived = compiler_gym.make("llvm-v0")
    builtin = [str(u) for u in long_lived.datasets.dataset("builtin-v0").benchmark_uris()]
    # A small pool of generated programs: the benchmark cache reaches its working size early.
    generated = [f"generator://llvm-stress-v0/{s}" for s in range(20)]
    n = long_lived.action_space.n
    counts = {"steps": 0, "forks": 0, "runtimes": 0, "errors": 0, "made": 0}
    samples = []
    tenth = max(1, args.episodes // 10)
    start = time.perf_counter()
    for episode in range(1, args.episodes + 1):
        fresh = episode % 2 == 0
        env = compiler_gym.make("llvm-v0") if fresh else long_lived
        counts["made"] += fresh
        try:
            uri = builtin[episode % len(builtin)] if episode % 3 else generated[episode % 20]
            env.reset(benchmark=uri)
            for _ in range(args.steps):
                _, _, done, _ = env.step(int(rng.integers(n)))
                counts["steps"] += 1
                if done:
                    counts["errors"] += 1
                    break
            if not done:
                fork = env.fork()
                fork.step(int(rng.integers(n)))
                fork.close()
                counts["forks"] += 1
            if episode % args.runtime_every == 0 and env.in_episode and not done:
                env.runtime_observation_count = 1
                if "builtin" in uri:
                    env.observation["Runtime"]
                    counts["runtimes"] += 1
            if episode % args.error_every == 0:
                kind = (episode // args.error_every) % (2 if args.no_crashes else 3)
                try:
                    if kind == 0:
                        env.step(n + 7)
                    elif kind == 1:
                        clear_benchmark_cache()
                        env.reset(benchmark=f"file://{corrupt}")
                    else:
                        env.reset(benchmark=uri)
                        # The test builds' hook (CG_BUILD_TESTS): the next step crashes.
                        env.unwrapped._env.set_parameter(
                            "testing.next_step_pipeline", "compiler-gym-test-segfault"
                        )
                        env.step(0)
                except (ValueError, BenchmarkInitError, ServiceError):
                    pass
                counts["errors"] += 1
        finally:
            if fresh:
                env.close()
        if episode % tenth == 0:
            samples.append(resources())
            s = samples[-1]
            print(
                f"episode {episode:6d}  RSS {s['rss_mib']:7.1f} MiB  "
                f"held {s['held_mib']:7.1f} MiB  "
                f"Python blocks {s['python_blocks']}  threads {s['threads']:3d}  "
                f"fds {s['fds']:4d}  children {s['children']}  temp dirs {s['temp_dirs']}",
                flush=True,
            )
    long_lived.close()
    elapsed = time.perf_counter() - start
    print(
        f"\n{args.episodes} episodes in {elapsed:.0f} s: {counts['steps']} steps, "
        f"{counts['forks']} forks, {counts['made']} envs made and closed, "
        f"{counts['runtimes']} Runtime observations, {counts['errors']} errors"
    )
    if len(samples) >= 3:
        base, last = samples[1], samples[-1]
        growth = (last["rss_mib"] - base["rss_mib"]) / base["rss_mib"]
        held = (last["held_mib"] - base["held_mib"]) / base["held_mib"]
        print(
            f"RSS second tenth -> last: {base['rss_mib']:.1f} -> {last['rss_mib']:.1f} MiB "
            f"({growth:+.2%}; target < 1%)\n"
            f"held (after gc and malloc_trim): {base['held_mib']:.1f} -> "
            f"{last['held_mib']:.1f} MiB "
            f"({held:+.2%}); Python blocks {base['python_blocks']} -> {last['python_blocks']}"
        )
        for key in ("threads", "fds", "children", "temp_dirs"):
            print(f"{key}: {base[key]} -> {last[key]} ({last[key] - base[key]:+d}; target 0)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
