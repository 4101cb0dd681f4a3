"""Greedy search from the command line: at each step, take the action of the highest reward,
until no action improves it; the best state per benchmark as a CSV that
``compiler_gym.bin.validate`` replays.

    python -m compiler_gym.bin.greedy --benchmark builtin-v0/qsort --output results.csv
    python -m compiler_gym.bin.greedy --dataset builtin-v0 --runtime 60 --plot progress.png

Each step tries every action from the current state in one ``env.try_actions`` call (CompilerGym's
leaderboard greedy). ``--runtime`` bounds each benchmark's search, checks included: a step
that would end later is cut short, and takes the best of the actions tried.
This is ``compiler_gym.bin.search --search greedy``: the options are that tool's, less those of
the other searches (see its ``--help`` for ``--benchmark``, validation and Ray).
"""

from __future__ import annotations

import sys

from compiler_gym.bin import search
from compiler_gym.util.cli import user_errors


@user_errors
def main(argv=None) -> int:
    """Runs the greedy search tool on ``argv`` (default: the command line)."""
    return search.run(search.make_parser("compiler_gym.bin.greedy", __doc__, "greedy"), argv)


if __name__ == "__main__":
    sys.exit(main())
