"""Replay the best actions of a random search and log the reward of each one.

    python -m compiler_gym.bin.random_replay --output_dir=/path/to/logs [--env llvm-ic-v0]

The directory is one that a random search wrote (``compiler_gym.random_search.random_search``
with ``outdir``, or CompilerGym's): ``random_search.json`` says the environment, benchmark and
reward space, ``random_search_best_actions.txt`` the actions. ``--env`` and ``--benchmark``
replay them elsewhere. The replay rewrites the directory's replay files
(``random_search_best_actions_progress.csv``, the command line, ``optimized.bc`` for LLVM) and
prints each step; the exit status is 2 on bad input.
"""

from __future__ import annotations

import csv
from pathlib import Path

import compiler_gym
from compiler_gym.random_replay import (
    BEST_ACTIONS_PROGRESS_FILE,
    METADATA_FILE,
    replay_actions,
)
from compiler_gym.random_search import read_search_logs
from compiler_gym.util.cli import argument_parser, parse_args, user_errors
from compiler_gym.util.shell_format import plural
from compiler_gym.util.tabulate import tabulate

# For an LLVM env, the sizes CompilerGym's tool printed after a replay: a row's label and its
# observation spaces at -O0, at -Oz and after the replay.
_LLVM_SIZES = [
    ("IR instruction count", "IrInstructionCountO0", "IrInstructionCountOz", "IrInstructionCount"),
    ("Object .text size (bytes)", "ObjectTextSizeO0", "ObjectTextSizeOz", "ObjectTextSizeBytes"),
]


def _read_logs(output_dir: Path) -> tuple[dict, list[str]]:
    """The search's metadata and its best actions; ValueError when the directory is not a
    random search's."""
    return read_search_logs(output_dir)


def _number(text: str) -> str:
    """A reward from the progress CSV, or "-" for an env without a reward space."""
    return f"{float(text):.4f}" if text else "-"


@user_errors
def main(argv=None) -> int:
    """Runs the tool on ``argv`` (default: the command line); returns 0, or 2 on bad input."""
    parser = argument_parser("compiler_gym.bin.random_replay", __doc__)
    parser.add_argument(
        "--output_dir", required=True, help="the directory of the random search to replay"
    )
    parser.add_argument("--env", help="environment id (default: the search's)")
    parser.add_argument("--benchmark", help="benchmark URI (default: the search's)")
    args = parse_args(parser, argv)

    output_dir = Path(args.output_dir).expanduser().resolve()
    metadata, actions = _read_logs(output_dir)
    env_id = args.env or metadata.get("env")
    benchmark = args.benchmark or metadata.get("benchmark")
    if not env_id or not benchmark:
        missing = "env" if not env_id else "benchmark"
        raise ValueError(f"{output_dir / METADATA_FILE} names no {missing}: pass --{missing}")

    with compiler_gym.make(
        env_id, benchmark=benchmark, reward_space=metadata.get("reward", "default")
    ) as env:
        reward = replay_actions(env, actions, output_dir)
        with open(output_dir / BEST_ACTIONS_PROGRESS_FILE, newline="") as f:
            steps = list(csv.DictReader(f))
        for i, step in enumerate(steps, start=1):
            print(
                f"Step [{i:03d} / {len(steps):03d}]: reward={_number(step['reward'])}   \t"
                f"episode={_number(step['cumulative reward'])}   \taction={step['action']}"
            )
        count = f"{len(actions)} {plural(len(actions), 'action', 'actions')}"
        print(f"Episode reward: {reward:.4f} ({count}, {env.benchmark.uri})")
        if all(name in env.observation.spaces for row in _LLVM_SIZES for name in row[1:]):
            rows = [
                (label, *(env.observation[name] for name in names)) for label, *names in _LLVM_SIZES
            ]
            print(tabulate(rows, headers=("", "-O0", "-Oz", "final"), tablefmt="simple"))
    print(f"Replay logs written to {output_dir}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
