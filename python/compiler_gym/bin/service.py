"""Describe an environment: its ids, datasets, action, observation and reward spaces.

python -m compiler_gym.bin.service --ls_env              # the environment ids
python -m compiler_gym.bin.service --env llvm-v0         # its spaces and datasets
python -m compiler_gym.bin.service --env gcc-v0 --actions  # and every action
"""

from __future__ import annotations

import sys

import gymnasium
import numpy as np
from tabulate import tabulate

import compiler_gym
from compiler_gym.util.cli import argument_parser, clip, parse_args, user_errors

_INT64_MAX = np.iinfo(np.int64).max


def _number(value) -> str:
    """A bound: ``inf`` for none or the largest int64 (the engine's "no bound")."""
    if value is None or (isinstance(value, (int, np.integer)) and value >= _INT64_MAX):
        return "inf"
    return f"{value:g}" if isinstance(value, (float, np.floating)) else str(value)


def space_text(space) -> str:
    """How the tables show an observation space, without its name (the row's): its kind, the
    type of its values and their bounds, ``Sequence(str, length 40)``, ``Scalar(int64, 0 to
    inf)``, ``Box(float32, shape (69,), 0 to 1)``, ``Dict(56 entries: ArgsPhi, ...)``, on one
    line of at most 60 characters."""
    kind = type(space).__name__
    dtype = getattr(space, "dtype", None)
    dtype = getattr(dtype, "__name__", None) or (str(dtype) if dtype is not None else None)
    if isinstance(space, gymnasium.spaces.Dict):
        keys = list(space.spaces)
        text = (
            f"{kind}({len(keys)} entries: {', '.join(keys[:3])}{', ...' if len(keys) > 3 else ''})"
        )
    elif isinstance(space, gymnasium.spaces.Box):
        low, high = np.min(space.low), np.max(space.high)
        text = f"{kind}({dtype}, shape {space.shape}, {_number(low)} to {_number(high)})"
    elif hasattr(space, "size_range"):  # a sequence of values
        low, high = space.size_range
        if low == high:
            length = f", length {low}"
        elif not low and _number(high) == "inf":
            length = ""
        else:
            length = f", length {low} to {_number(high)}"
        of = dtype or type(getattr(space, "space", space)).__name__
        text = f"{kind}({of}{length})"
    elif hasattr(space, "min") and hasattr(space, "max"):  # a scalar
        text = f"{kind}({dtype}, {_number(space.min)} to {_number(space.max)})"
    else:
        text = repr(space)
    return clip(text, 60)


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
            space_text(s.space),
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


def print_service_capabilities(env) -> None:
    """Prints what ``env`` offers (CompilerGym's function): its datasets, action spaces with
    every action, and observation and reward spaces, as the tool's tables."""
    print(describe(env, actions=True))


@user_errors
def main(argv=None) -> int:
    """Runs the tool on ``argv`` (default: the command line): prints the environment ids or one
    environment's tables; returns 0, or 2 for an unknown environment."""
    parser = argument_parser("compiler_gym.bin.service", __doc__)
    parser.add_argument("--env", default="llvm-v0", help="environment id (default llvm-v0)")
    parser.add_argument("--ls_env", action="store_true", help="list the environment ids")
    parser.add_argument("--actions", action="store_true", help="list every action too")
    args = parse_args(parser, argv)
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
