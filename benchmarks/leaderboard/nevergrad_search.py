"""The nevergrad leaderboard entry: fixed-length action sequences searched by a nevergrad
optimizer (DiscreteLenglerOnePlusOne by default) for ``--search_time`` seconds per
benchmark, its trials side by side in one vector engine.

    python benchmarks/leaderboard/nevergrad_search.py --search_time=60 --n=1 \\
        --leaderboard_results=benchmarks/leaderboard/nevergrad-60s-llvm_instcount.csv
"""

import argparse

import numpy as np

from compiler_gym.leaderboard.llvm_instcount import ENV_ID, eval_llvm_instcount_policy
from compiler_gym.search import nevergrad_search


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=False)
    parser.add_argument("--search_time", type=float, default=60.0, help="seconds per benchmark")
    parser.add_argument("--episode_length", type=int, default=30)
    parser.add_argument("--optimizer", default="DiscreteLenglerOnePlusOne")
    parser.add_argument("--seed", type=int, default=0)
    flags, harness_flags = parser.parse_known_args()

    def policy(env) -> None:
        state, _ = nevergrad_search(
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
        env.multistep(actions[: int(np.argmax(rewards))])

    eval_llvm_instcount_policy(policy, harness_flags)


if __name__ == "__main__":
    main()
