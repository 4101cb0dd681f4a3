"""Soak test of the vector engine: thousands of envs, many steps, memory watched.

    python benchmarks/vec_env_soak.py [--num-envs 4096] [--env-steps 100000]
        [--benchmark benchmark://builtin-v0/bitcount] [--max-episode-steps 8]

Steps every env with random actions until ``--env-steps`` env steps are done; episodes end at
``--max-episode-steps`` and reset automatically, so modules are created and destroyed all the
way through. Prints the resident memory after each vector step's tenth and the growth over the
second half of the run (a leak grows linearly; a healthy engine levels off once every env has
reached its working size).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from compiler_gym import make_vec


def rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--env-steps", type=int, default=100_000)
    parser.add_argument("--benchmark", default="benchmark://builtin-v0/bitcount")
    parser.add_argument("--max-episode-steps", type=int, default=8)
    parser.add_argument("--env", default="llvm-autophase-ic-v0")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    venv = make_vec(
        args.env,
        args.num_envs,
        benchmarks=[args.benchmark],
        max_episode_steps=args.max_episode_steps,
    )
    venv.reset()
    print(
        f"{args.num_envs} envs of {args.benchmark} made and reset in "
        f"{time.perf_counter() - start:.1f} s; RSS {rss_mib():.0f} MiB"
    )
    rng = np.random.default_rng(0)
    n = venv.single_action_space.n
    vector_steps = max(1, args.env_steps // args.num_envs)
    samples = []
    start = time.perf_counter()
    errors = 0
    for t in range(1, vector_steps + 1):
        _, _, terminated, _, info = venv.step(rng.integers(n, size=args.num_envs))
        errors += int(terminated.sum())
        samples.append(rss_mib())
        if t % max(1, vector_steps // 10) == 0 or t == vector_steps:
            print(
                f"vector step {t:5d}  env steps {t * args.num_envs:8d}  RSS {samples[-1]:7.0f} MiB"
            )
    elapsed = time.perf_counter() - start
    half = samples[len(samples) // 2]
    print(
        f"\n{vector_steps * args.num_envs} env steps in {elapsed:.0f} s "
        f"({vector_steps * args.num_envs / elapsed:.0f} steps/s); episodes that ended in an "
        f"error: {errors}"
    )
    print(
        f"RSS: peak {max(samples):.0f} MiB; second half growth {samples[-1] - half:+.0f} MiB "
        f"({(samples[-1] - half) / max(half, 1):+.1%})"
    )
    venv.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
