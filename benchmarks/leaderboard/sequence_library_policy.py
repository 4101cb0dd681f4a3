"""The sequence-library leaderboard entry: the library learned from csmith-v0, gcc-torture-v0,
pypi-c-v0 and llvm-stress-v0 programs (sequence_library/library.txt, by
sequence_library/train.py) tried whole on each program in one ``try_actions`` call, with
``--budget`` the best sequence climbed until that many seconds from the start, and the best
candidate whose program runs like the unoptimized one taken
(compiler_gym.search.sequence_library). ``--runtime`` bounds each program's policy, checks
included (default: none, the whole library tried).

    python benchmarks/leaderboard/sequence_library_policy.py --n=1 \\
        --leaderboard_results=benchmarks/leaderboard/sequence_library-llvm_instcount.csv
"""

import argparse
from pathlib import Path

from compiler_gym.leaderboard.llvm_instcount import eval_llvm_instcount_policy
from compiler_gym.search.sequence_library import (
    SequenceLibrary,
    add_policy_flags,
    policy_from_flags,
)

LIBRARY = Path(__file__).parent / "sequence_library" / "library.txt"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=False)
    parser.add_argument("--library", type=Path, default=LIBRARY, help="library file")
    add_policy_flags(parser)
    flags, harness_flags = parser.parse_known_args()
    policy = policy_from_flags(SequenceLibrary.load(flags.library), flags)
    eval_llvm_instcount_policy(policy, harness_flags)


if __name__ == "__main__":
    main()
