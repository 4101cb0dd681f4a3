"""The nevergrad leaderboard entry: fixed-length action sequences searched by a nevergrad
optimizer (DiscreteLenglerOnePlusOne by default) for ``--search_time`` seconds per
benchmark, its trials side by side in one vector engine.

    python benchmarks/leaderboard/nevergrad_search.py --search_time=10 --n=1 \\
        --leaderboard_results=benchmarks/leaderboard/nevergrad-10s-llvm_instcount.csv

The search validates its trials (a trial becomes the best only once its program runs like
the unoptimized one); the entry keeps the best trial's best prefix, which is checked too: when
its program does not run like the unoptimized one, the whole trial is kept instead.
"""

import argparse
import sys

import numpy as np

from compiler_gym.errors import ServiceError
from compiler_gym.leaderboard.llvm_instcount import ENV_ID, eval_llvm_instcount_policy
from compiler_gym.search import nevergrad_search
from compiler_gym.search.checking import program_problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=False)
    parser.add_argument("--search_time", type=float, default=60.0, help="seconds per benchmark")
    parser.add_argument("--episode_length", type=int, default=30)
    parser.add_argument("--optimizer", default="DiscreteLenglerOnePlusOne")
    parser.add_argument("--seed", type=int, default=0)
    flags, harness_flags = parser.parse_known_args()

    def policy(env) -> None:
        state, progress = nevergrad_search(
            ENV_ID,
            env.benchmark,
            episode_length=flags.episode_length,
            budget=10**9,  # the time ends the search
            runtime=flags.search_time,
            optimizer=flags.optimizer,
            seed=flags.seed,
        )
        # The trial's best prefix (the empty one included): its later actions may lose.
        actions = env.action_space.from_string(state.commandline)
        rewards = [0.0]
        for action in actions:
            env.step(action)
            rewards.append(env.episode_reward)
        env.reset()
        prefix = actions[: int(np.argmax(rewards))]
        env.multistep(prefix)
        # The search validated the whole trial, not its prefix: check the prefix's program.
        prefix_refused = False
        if progress.validated and prefix and len(prefix) < len(actions):
            try:
                prefix_refused = bool(program_problems(env))
            except (ServiceError, RuntimeError) as e:  # a program that cannot be built or run
                print(f"{env.benchmark.uri}: prefix not checked: {e}", file=sys.stderr)
                prefix_refused = True
            if prefix_refused:
                env.reset()
                env.multistep(actions)
        print(
            f"{env.benchmark.uri}: {progress.episodes} trials, validated {progress.validated}, "
            f"{progress.refused} refused of {progress.checks} checked "
            f"({progress.check_seconds:.1f} s checking), prefix of {len(prefix)} of "
            f"{len(actions)} actions{' refused: whole trial kept' if prefix_refused else ''}",
            file=sys.stderr,
        )

    eval_llvm_instcount_policy(policy, harness_flags)


if __name__ == "__main__":
    main()
