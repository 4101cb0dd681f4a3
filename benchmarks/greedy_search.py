"""Greedy search on the engine (env.try_actions) beside the same search on the public API
(a fork per action per step), on builtin-v0, in one run on one machine.

    python benchmarks/greedy_search.py [--programs 0] [--reward IrInstructionCount]

Both searches take, at each step, the action of the highest reward (the lowest index among
equals) while it is positive, so they must end in the same state, which the script checks.
Reports per program the steps, both wall times and their ratio, the final IR instruction count
beside -Oz's, and the totals.
"""

from __future__ import annotations

import argparse
import math
import os
import time

import compiler_gym
from compiler_gym.search import greedy_search
from compiler_gym.util.statistics import geometric_mean


def naive_greedy(env) -> None:
    """CompilerGym's greedy on the public API: every action on a fork of its own."""
    while True:
        rewards = []
        for a in range(env.action_space.n):
            with env.fork() as fork:
                _, reward, done, _ = fork.step(a)
                rewards.append(-math.inf if done else reward)
        best = max(range(len(rewards)), key=lambda a: (rewards[a], -a))
        if not rewards[best] > 0:
            return
        env.step(best)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=0, help="the first N (0 = all)")
    parser.add_argument("--reward", default="IrInstructionCount")
    args = parser.parse_args()
    with compiler_gym.make("llvm-v0") as env:
        programs = list(env.datasets["benchmark://builtin-v0"].benchmark_uris())
    programs = programs[: args.programs or None]
    print(f"{len(programs)} programs, {os.cpu_count()} cores, reward {args.reward}")
    print(
        f"{'program':<36} {'steps':>5} {'engine s':>9} {'naive s':>8} {'ratio':>6} {'Oz/greedy':>9}"
    )
    totals = [0.0, 0.0]
    ratios = []
    for program in programs:
        with compiler_gym.make("llvm-v0", benchmark=program, reward_space=args.reward) as env:
            env.reset()
            start = time.perf_counter()
            greedy_search(env)
            engine_seconds = time.perf_counter() - start
            engine_actions = env.actions
            count, oz = (
                env.observation["IrInstructionCount"],
                env.observation["IrInstructionCountOz"],
            )
            env.reset()
            start = time.perf_counter()
            naive_greedy(env)
            naive_seconds = time.perf_counter() - start
            if env.actions != engine_actions:
                raise SystemExit(
                    f"{program}: the searches disagree: {engine_actions} vs {env.actions}"
                )
        totals[0] += engine_seconds
        totals[1] += naive_seconds
        ratios.append(oz / max(count, 1))
        print(
            f"{program:<36} {len(engine_actions):>5} {engine_seconds:>9.2f} {naive_seconds:>8.2f} "
            f"{naive_seconds / engine_seconds:>5.1f}x {oz / max(count, 1):>9.3f}"
        )
    geomean = geometric_mean(ratios)
    print(
        f"total: engine {totals[0]:.1f} s, naive {totals[1]:.1f} s: "
        f"{totals[1] / totals[0]:.1f}x faster, same results; geomean Oz/greedy {geomean:.3f}"
    )


if __name__ == "__main__":
    main()
