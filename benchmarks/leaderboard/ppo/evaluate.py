"""The PPO leaderboard entries: the trained agent zero-shot, and PPO + guided search.

    # zero-shot: the most probable action at each step, rewound to the episode's best prefix
    python benchmarks/leaderboard/ppo/evaluate.py --n=1 \\
        --leaderboard_results=benchmarks/leaderboard/ppo-llvm_instcount.csv
    # PPO + guided search: random search whose actions are drawn from the policy (mixed with
    # the uniform distribution by --uniform_mix), seeded with the zero-shot episode, for
    # --search_time seconds per benchmark
    python benchmarks/leaderboard/ppo/evaluate.py --search_time=10 --n=1 \\
        --leaderboard_results=benchmarks/leaderboard/ppo_guided_search-10s-llvm_instcount.csv
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent import WEIGHTS, PpoAgent, run_agent  # noqa: E402

from compiler_gym.leaderboard.llvm_instcount import eval_llvm_instcount_policy  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=False)
    parser.add_argument("--weights", type=Path, default=WEIGHTS)
    parser.add_argument(
        "--search_time", type=float, default=0.0, help="guided search seconds (0: zero-shot)"
    )
    parser.add_argument(
        "--uniform_mix",
        type=float,
        default=0.0,
        help="weight of the uniform distribution in the guide (default 0: the policy alone)",
    )
    parser.add_argument("--patience", type=int, default=25)
    parser.add_argument("--seed", type=int, default=0)
    flags, harness_flags = parser.parse_known_args()
    agent = PpoAgent(flags.weights)
    if not 0 <= flags.uniform_mix <= 1:
        parser.error("--uniform_mix must be in [0, 1]")

    def policy(env) -> None:
        run_agent(
            env,
            search_time=flags.search_time,
            uniform_mix=flags.uniform_mix,
            patience=flags.patience,
            seed=flags.seed,
            agent=agent,
        )

    eval_llvm_instcount_policy(policy, harness_flags)


if __name__ == "__main__":
    main()
