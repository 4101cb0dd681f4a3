"""Random search from the command line (CompilerGym's ``random_search`` tool): random episodes
that end after ``--patience`` steps without improvement, the best prefix of any episode kept; the
best state per benchmark as a CSV that ``compiler_gym.bin.validate`` replays.

    python -m compiler_gym.bin.random_search --benchmark builtin-v0/qsort --output results.csv
    python -m compiler_gym.bin.random_search --dataset builtin-v0 --runtime 10 --output_dir logs

``--num-envs`` (CompilerGym's ``--nproc``) episodes run side by side in one vector engine. The
budget per benchmark is ``--episodes`` and ``--runtime`` seconds, whichever runs out first (a
runtime alone is a time budget; neither is 100 episodes). ``--output_dir`` writes CompilerGym's
log files of each search, which ``compiler_gym.bin.random_replay`` replays and
``compiler_gym.bin.random_eval`` summarizes. This is ``compiler_gym.bin.search --search random``:
the options are that tool's, less those of the other searches (see its ``--help`` for
``--benchmark``, validation and Ray).
"""

from __future__ import annotations

import sys

from compiler_gym.bin import search
from compiler_gym.util.cli import user_errors


@user_errors
def main(argv=None) -> int:
    """Runs the random search tool on ``argv`` (default: the command line)."""
    return search.run(search.make_parser("compiler_gym.bin.random_search", __doc__, "random"), argv)


if __name__ == "__main__":
    sys.exit(main())
