"""Describe an environment: its ids, datasets, action, observation and reward spaces.

python -m compiler_gym.bin.service --ls_env              # the environment ids
python -m compiler_gym.bin.service --env llvm-v0         # its spaces and datasets
python -m compiler_gym.bin.service --env gcc-v0 --actions  # and every action
"""

from __future__ import annotations

import argparse
import sys

from tabulate import tabulate

import compiler_gym
from compiler_gym.util.cli import user_errors
from compiler_gym.util.truncate import truncate


def describe(env, actions: bool = False) -> str:
    """The tables the tool prints for ``env``."""
    sections = []
    datasets = [(d.name, d.size_text, d.description) for d in env.datasets]
    sections.append(("Datasets", tabulate(datasets, ("Dataset", "Benchmarks", "Description"))))
    spaces = [(s.name, s.n) for s in env.action_spaces]
    sections.append(("Action spaces", tabulate(spaces, ("Action space", "Actions"))))
    if actions:
        for space in env.action_spaces:
            rows = list(enumerate(space.flags))
            sections.append((f"Actions of {space.name}", tabulate(rows, ("Index", "Action"))))
    observations = [
        (
            s.id,
            truncate(repr(s.space), max_line_len=48),
            "yes" if s.deterministic else "no",
            "yes" if s.platform_dependent else "no",
        )
        for s in env.observation.spaces.values()
    ]
    header = ("Observation space", "Space", "Deterministic", "Platform dependent")
    sections.append(("Observation spaces", tabulate(observations, header)))
    rewards = [
        (
            r.name,
            f"({r.reward_range[0]}, {r.reward_range[1]})",
            "yes" if r.deterministic else "no",
            "yes" if r.platform_dependent else "no",
            r.doc,
        )
        for r in env.reward.spaces.values()
    ]
    header = ("Reward space", "Range", "Deterministic", "Platform dependent", "What")
    sections.append(("Reward spaces", tabulate(rewards, header)))
    return "\n\n".join(f"{title}\n{'=' * len(title)}\n{table}" for title, table in sections)


@user_errors
def main(argv=None) -> int:
    """Runs the tool on ``argv`` (default: the command line): prints the environment ids or one
    environment's tables; returns 0, or 2 for an unknown environment."""
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env", default="llvm-v0", help="environment id (default llvm-v0)")
    parser.add_argument("--ls_env", action="store_true", help="list the environment ids")
    parser.add_argument("--actions", action="store_true", help="list every action too")
    args = parser.parse_args(argv)
    if args.ls_env:
        print("\n".join(compiler_gym.env_ids()))
        return 0
    try:
        env = compiler_gym.make(args.env)
    except LookupError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    with env:
        print(f"{args.env}\n\n{describe(env, actions=args.actions)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
