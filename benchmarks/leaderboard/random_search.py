"""The random search leaderboard entries: CompilerGym's random search (random episodes that
end after ``--patience`` steps without improvement, the best prefix kept) for
``--search_time`` seconds per benchmark, its episodes side by side in one vector engine.

    python benchmarks/leaderboard/random_search.py --search_time=10 --n=1 \\
        --leaderboard_results=benchmarks/leaderboard/random_search-10s-llvm_instcount.csv
"""

import argparse
import sys

from compiler_gym.leaderboard.llvm_instcount import ENV_ID, eval_llvm_instcount_policy
from compiler_gym.search import random_search


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=False)
    parser.add_argument("--search_time", type=float, default=10.0, help="seconds per benchmark")
    parser.add_argument("--patience", type=int, default=25)
    parser.add_argument("--seed", type=int, default=0)
    flags, harness_flags = parser.parse_known_args()

    def policy(env) -> None:
        _, progress = random_search(
            ENV_ID,
            env.benchmark,
            patience=flags.patience,
            episodes=None,
            runtime=flags.search_time,
            seed=flags.seed,
            record=False,  # the env replays the best actions: once is enough
        )
        if progress.best_actions:
            env.multistep(progress.best_actions)
        print(
            f"{env.benchmark.uri}: {progress.episodes} episodes, validated {progress.validated}, "
            f"{progress.refused} refused of {progress.checks} checked "
            f"({progress.check_seconds:.1f} s checking)",
            file=sys.stderr,
        )

    eval_llvm_instcount_policy(policy, harness_flags)


if __name__ == "__main__":
    main()
