"""Trains an agent (the Autophase MLP or the ProGraML GNN) with PPO on the vector engine.

    python -m compiler_gym.bin.train --agent mlp --out run --max-seconds 600
    python -m compiler_gym.bin.train --config train.json --out run --resume

Settings come from ``--config`` (JSON or TOML, see ``compiler_gym.train.config``), then the
options given. Writes into ``--out``: ``curve.csv`` (per update: env steps, seconds, mean
reward of the last 100 episodes, losses, errors), ``curve.png`` (its plot), ``checkpoint.pt``
every ``checkpoint_every`` updates and at the end (weights, optimizer, random state,
counters), ``policy.pt`` and ``actions.txt`` (the weights and the action table they index)
and ``config.json`` (the settings of the run). ``--resume`` continues from ``--out``'s
checkpoint, with the run's ``config.json`` unless ``--config`` is given. ``--overlap``
collects each rollout while the learner updates on the last one, with the weights from
before that update (see ``compiler_gym.train.trainer``). Without
``--programs`` (or the config's) the run trains on gcc-torture-v0 when it is installed, else on
csmith-v0 programs; never on builtin-v0, the leaderboard's suite.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Optional

from compiler_gym.util.cli import argument_parser, parse_args, progress, user_errors

CURVE_FIELDS = [
    "steps",
    "seconds",
    "mean_episode_reward",
    "policy_loss",
    "value_loss",
    "entropy",
    "approx_kl",
    "clip_fraction",
    "errors",
]


def write_curve(rows: list[dict], path: Path) -> None:
    """The learning curve as CSV, one row per update (:data:`CURVE_FIELDS`)."""
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, CURVE_FIELDS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def plot_curve(rows: list[dict], path: Path, title: str) -> None:
    """The mean episode reward against env steps (and the losses beside it) as a PNG."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    from matplotlib import pyplot as plt

    steps = [r["steps"] for r in rows]
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(steps, [r["mean_episode_reward"] for r in rows])
    left.set_xlabel("env steps")
    left.set_ylabel("mean episode reward (last 100)")
    left.set_title(title)
    for key in ("policy_loss", "value_loss", "entropy"):
        right.plot(steps, [r[key] for r in rows], label=key)
    right.set_xlabel("env steps")
    right.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)


@user_errors
def main(argv: Optional[list[str]] = None) -> int:
    """The command line (see the module's docstring); returns the exit status."""
    parser = argument_parser("compiler_gym.bin.train", __doc__)
    parser.add_argument("--config", type=Path, help="settings file, JSON or TOML")
    parser.add_argument("--agent", choices=["mlp", "gnn"], help="the policy (default mlp)")
    parser.add_argument("--out", type=Path, required=True, help="folder of the run's files")
    parser.add_argument("--resume", action="store_true", help="continue from --out's checkpoint")
    parser.add_argument("--max-seconds", type=float, help="stop after this many seconds")
    parser.add_argument("--total-steps", type=int, help="stop after this many env steps in all")
    parser.add_argument("--device", help="where the network runs: cpu or cuda")
    parser.add_argument("--num-envs", type=int, help="envs stepped in parallel")
    parser.add_argument("--batch-size", type=int, help="envs per recv (< num-envs: async)")
    parser.add_argument(
        "--overlap",
        action="store_true",
        help="collect the next rollout during each update, one update stale",
    )
    parser.add_argument("--seed", type=int, help="the run's seed")
    parser.add_argument("--programs", nargs="+", help="training program URIs (file:// too)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parse_args(parser, argv)

    import torch  # noqa: F401  (a missing PyTorch is an ImportError the user sees plainly)

    from compiler_gym.train.config import TrainConfig
    from compiler_gym.train.trainer import CHECKPOINT, Trainer

    out: Path = args.out
    if args.resume and not (out / CHECKPOINT).is_file():
        raise FileNotFoundError(f"--resume: no checkpoint in {out}")
    if args.config:
        config = TrainConfig.load(args.config)
    elif args.resume:  # the run's own settings, as it wrote them
        config = TrainConfig.load(out / "config.json")
    else:
        config = TrainConfig()
    config = config.replace(
        agent=args.agent,
        max_seconds=args.max_seconds,
        total_steps=args.total_steps,
        device=args.device,
        num_envs=args.num_envs,
        batch_size=args.batch_size,
        overlap=args.overlap or None,  # unset: the config's (or the resumed run's) setting
        seed=args.seed,
        programs=args.programs,
    )
    config.__post_init__()  # the options' values checked as the file's
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(config.to_dict(), indent=1) + "\n")
    with Trainer(config) as trainer:
        if args.resume:
            trainer.load_checkpoint(out / CHECKPOINT)
        total = config.total_steps
        bar = progress(
            total=total if total else (round(config.max_seconds) if config.max_seconds else None),
            initial=min(trainer.timesteps, total) if total else 0,
            unit="step" if total else "s",
            desc=f"training {config.agent}",
            quiet=args.quiet,
        )

        def on_update(trainer: Trainer, row: dict) -> None:
            write_curve(trainer.curve, out / "curve.csv")
            bar.set_postfix(
                steps=row["steps"], reward=f"{row['mean_episode_reward']:.4f}", refresh=False
            )
            done = min(row["steps"], total) if total else round(trainer.seconds - start)
            bar.update(max(done - bar.n, 0))

        start = trainer.seconds
        seconds = trainer.train(checkpoint_dir=out, on_update=on_update)
        bar.close()
        trainer.save_checkpoint(out)
        trainer.save_policy(out)
        write_curve(trainer.curve, out / "curve.csv")
        if trainer.curve:
            plot_curve(trainer.curve, out / "curve.png", f"PPO, {config.agent} agent")
        reward = trainer.mean_episode_reward()
        print(
            f"trained {trainer.timesteps} steps ({trainer.updates} updates) on "
            f"{len(trainer.programs)} programs; this run {seconds:.0f} s; mean episode reward "
            f"{'n/a' if math.isnan(reward) else f'{reward:.4f}'}; files in {out}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
