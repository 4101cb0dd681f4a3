"""A policy trained by ``python -m compiler_gym.bin.train`` as a leaderboard entry: the run's
network zero-shot (the most probable action at each step, rewound to the episode's best
prefix), in the llvm_instcount harness.

    python benchmarks/leaderboard/trained_agent.py --run RUN_DIR --n=1 \\
        --leaderboard_results=benchmarks/leaderboard/ppo_mlp-llvm_instcount.csv

``RUN_DIR`` is the trainer's ``--out`` folder (``policy.pt``, ``actions.txt``, ``config.json``);
its config says the agent (``mlp`` or ``gnn``). ``--device cuda`` runs a GNN on the GPU; the
other flags are the harness's (``--max_benchmarks``, ``--novalidate``, ...).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from compiler_gym.leaderboard.llvm_instcount import eval_llvm_instcount_policy


def load_agent(run: Path, device: str = "cpu"):
    """The trained agent of a trainer's output folder."""
    config = json.loads((run / "config.json").read_text())
    if config["agent"] == "gnn":
        from compiler_gym.agents.gnn import GnnAgent

        return GnnAgent(run / "policy.pt", config, device=device)
    from compiler_gym.agents.mlp import MlpAgent

    return MlpAgent(run / "policy.pt", config)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=False)
    parser.add_argument("--run", type=Path, required=True, help="the trainer's --out folder")
    parser.add_argument("--device", default="cpu")
    flags, harness_flags = parser.parse_known_args()
    from compiler_gym.agents.table import run_agent

    agent = load_agent(flags.run, flags.device)
    eval_llvm_instcount_policy(lambda env: run_agent(env, agent=agent), harness_flags)


if __name__ == "__main__":
    main()
