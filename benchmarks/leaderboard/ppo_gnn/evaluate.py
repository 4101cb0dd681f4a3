"""The GNN agent's leaderboard entry: the trained policy zero-shot (the most probable action at
each step, rewound to the episode's best prefix), in the llvm_instcount harness.

    python benchmarks/leaderboard/ppo_gnn/evaluate.py --n=1 \\
        --leaderboard_results=benchmarks/leaderboard/ppo_gnn-llvm_instcount.csv

``--weights`` picks other weights (``actions.txt`` beside them), ``--device cuda`` runs the
network on the GPU; the other flags are the harness's (``--max_benchmarks``, ``--novalidate``,
...).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from agent import WEIGHTS, GnnAgent, run_agent  # noqa: E402

from compiler_gym.leaderboard.llvm_instcount import eval_llvm_instcount_policy  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=False)
    parser.add_argument("--weights", type=Path, default=WEIGHTS)
    parser.add_argument("--device", default="cpu")
    flags, harness_flags = parser.parse_known_args()
    agent = GnnAgent(flags.weights, device=flags.device)
    eval_llvm_instcount_policy(lambda env: run_agent(env, agent=agent), harness_flags)


if __name__ == "__main__":
    main()
