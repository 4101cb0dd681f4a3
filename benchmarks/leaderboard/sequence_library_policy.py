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
from compiler_gym.search.sequence_library import SequenceLibrary, library_policy, size_runtime

LIBRARY = Path(__file__).parent / "sequence_library" / "library.txt"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=False)
    parser.add_argument("--library", type=Path, default=LIBRARY, help="library file")
    parser.add_argument("--budget", type=float, default=0.0, help="climbing seconds")
    parser.add_argument("--seed", type=int, default=0, help="seed of the climb")
    parser.add_argument("--runtime", type=float, help="seconds per program, all in")
    parser.add_argument(
        "--runtime-per-1000",
        type=float,
        default=0.0,
        help="with --runtime: seconds per 1,000 IR instructions where that is more",
    )
    parser.add_argument("--max-runtime", type=float, help="with --runtime: the most seconds")
    flags, harness_flags = parser.parse_known_args()
    library = SequenceLibrary.load(flags.library)

    def policy(env) -> None:
        runtime = flags.runtime
        if runtime is not None:
            size = int(env.observation["IrInstructionCount"])
            runtime = size_runtime(size, runtime, flags.runtime_per_1000, flags.max_runtime)
        library_policy(env, library, refine_seconds=flags.budget, seed=flags.seed, runtime=runtime)

    eval_llvm_instcount_policy(policy, harness_flags)


if __name__ == "__main__":
    main()
