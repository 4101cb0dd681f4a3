"""Random episodes on the built-in benchmarks: the project's main job, in one command.

    python -m compiler_gym.bin.demo [--env llvm-ic-v0] [--episodes 2] [--steps 30] [--seed 0]

For each benchmark of builtin-v0 it runs random episodes and prints the episode reward, the
instruction count against -Oz, and the environment's steps per second.
"""

from __future__ import annotations

import time

import numpy as np

import compiler_gym
from compiler_gym.util.cli import argument_parser, check_dataset, parse_args, user_errors


@user_errors
def main(argv=None) -> int:
    """Runs the demo on ``argv`` (default: the command line), printing a line per episode and the
    overall steps per second; returns 0."""
    parser = argument_parser("compiler_gym.bin.demo", __doc__)
    parser.add_argument("--env", default="llvm-ic-v0", help="environment id (default llvm-ic-v0)")
    parser.add_argument(
        "--episodes", type=int, default=2, help="episodes per benchmark (default 2)"
    )
    parser.add_argument(
        "--steps", type=int, default=30, help="random actions per episode (default 30)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the actions (default 0)")
    parser.add_argument(
        "--dataset",
        default="builtin-v0",
        help="the finite dataset whose benchmarks to run (default builtin-v0)",
    )
    args = parse_args(parser, argv)

    rng = np.random.default_rng(args.seed)
    total_steps = 0
    total_time = 0.0
    with compiler_gym.make(args.env) as env:
        print(
            f"{'benchmark':<40} {'episode':>7} {'reward':>9} {'insts':>7} {'-Oz':>7} {'steps/s':>9}"
        )
        for uri in check_dataset(env, args.dataset).benchmark_uris():
            for episode in range(args.episodes):
                env.reset(benchmark=uri)
                start = time.perf_counter()
                for _ in range(args.steps):
                    _, _, done, info = env.step(int(rng.integers(env.action_space.n)))
                    if done:
                        print(f"  error: {info['error_type']}: {info['error_details']}")
                        break
                elapsed = time.perf_counter() - start
                total_steps += args.steps
                total_time += elapsed
                print(
                    f"{uri:<40} {episode:>7} {env.episode_reward or 0:>9.3f} "
                    f"{env.observation['IrInstructionCount']:>7} "
                    f"{env.observation['IrInstructionCountOz']:>7} "
                    f"{args.steps / elapsed:>9.0f}"
                )
    print(f"\n{total_steps} steps in {total_time:.2f} s: {total_steps / total_time:.0f} steps/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
