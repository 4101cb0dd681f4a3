"""Trains the GNN agent of the llvm_instcount leaderboard with the package's PPO trainer
(:mod:`compiler_gym.train`; settings in ``config.json``).

    python benchmarks/leaderboard/ppo_gnn/train.py [--device cpu|cuda] [--max-seconds S]
        [--config config.json] [--out DIR]

One ``make_vec`` engine of ``num_envs`` envs steps the MLP agent's training programs
(``../ppo/training_programs.txt``: csmith-v0, gcc-torture-v0 and pypi-c-v0 programs of at most
15,000 instructions; builtin-v0, the leaderboard's suite, is never seen) with
``observation_space="Programl"`` on ``--device``; see :class:`compiler_gym.train.trainer.
Trainer` for the rollouts (each state embedded once) and updates. Writes the network's
``state_dict`` (``ppo_gnn-llvm_instcount.pt``), the action table it indexes (``actions.txt``)
and the learning curve (``training_curve.csv``: time steps, seconds, mean episode reward of
the last 100 episodes, errors in the rollout) to ``--out``. ``python -m
compiler_gym.bin.train --config config.json`` runs the same training with checkpoints.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import torch

from compiler_gym.agents.table import ACTIONS
from compiler_gym.train.config import TrainConfig
from compiler_gym.train.trainer import Trainer
from compiler_gym.util.cli import progress

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "config.json"
WEIGHTS = HERE / "ppo_gnn-llvm_instcount.pt"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=CONFIG)
    parser.add_argument("--out", type=Path, default=HERE)
    parser.add_argument("--device", default="cpu", help="cpu or cuda")
    parser.add_argument("--max-seconds", type=float, help="the config's max_seconds otherwise")
    parser.add_argument(
        "--quiet", action="store_true", help="no progress bar (none either off a terminal)"
    )
    flags = parser.parse_args()
    config = TrainConfig.load(flags.config).replace(
        agent="gnn", device=flags.device, max_seconds=flags.max_seconds
    )
    flags.out.mkdir(parents=True, exist_ok=True)
    rows = []
    bar = progress(total=round(config.max_seconds), unit="s", desc="training", quiet=flags.quiet)

    def save(trainer: Trainer) -> None:
        state = {k: v.detach().cpu() for k, v in trainer.policy.state_dict().items()}
        torch.save(state, flags.out / WEIGHTS.name)
        (flags.out / ACTIONS).write_text("\n".join(trainer.flags) + "\n")

    def on_update(trainer: Trainer, row: dict) -> None:
        rows.append((row["steps"], row["seconds"], row["mean_episode_reward"], row["errors"]))
        with open(flags.out / "training_curve.csv", "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["timesteps", "seconds", "mean_episode_reward", "errors"])
            writer.writerows(rows)
        bar.write(
            f"{row['steps']} steps, {row['seconds']:.0f} s, mean episode reward "
            f"{row['mean_episode_reward']:.4f}, entropy {row['entropy']:.3f}",
        )
        sys.stdout.flush()  # a log file sees each rollout as it ends
        bar.update(min(round(row["seconds"]), bar.total) - bar.n)
        save(trainer)

    with Trainer(config) as trainer:
        seconds = trainer.train(on_update=on_update)
        bar.close()
        save(trainer)
        embed = trainer.embed_seconds
        print(
            f"trained {trainer.timesteps} steps on {len(trainer.programs)} programs in "
            f"{seconds:.0f} s ({trainer.timesteps / seconds:.1f} steps/s; GNN "
            f"{trainer.embedded} graphs in {embed:.0f} s, {trainer.embedded / embed:.0f} "
            f"graphs/s); last mean episode reward {trainer.mean_episode_reward():.4f}"
        )


if __name__ == "__main__":
    main()
