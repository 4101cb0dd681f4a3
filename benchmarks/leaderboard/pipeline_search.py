"""The pipeline-search leaderboard entry, in the PassesParameterized action space (LLVM 19's
passes with their options, and ``default<O1..Oz>``; results are ``opt -passes=...`` command
lines): a (1+32) evolutionary climb over pass pipelines from ``default<Oz>`` (and it twice)
for ``--search_time`` seconds per program, taking the best candidate whose program runs like
the unoptimized one (compiler_gym.search.sequence_library.library_policy). The search time is
its budget too: rounds are cut short, and time is kept to check and take the result, so a
program takes about ``--search_time`` seconds whatever its size (before, the clock was read
between rounds of 32 pipelines only: "10 s" took up to 165 s on large programs).

    python benchmarks/leaderboard/pipeline_search.py --search_time=10 --n=1 \\
        --leaderboard_results=benchmarks/leaderboard/pipeline_search-10s-llvm_instcount.csv

Its scores are not comparable with the entries in the classic single-pass space (PassesAll),
whose actions cannot express -Oz's inliner, unroller and vectorizer settings.
"""

import argparse

from compiler_gym.leaderboard.llvm_instcount import eval_llvm_instcount_policy
from compiler_gym.search.sequence_library import SequenceLibrary, library_policy

STARTS = SequenceLibrary(
    (("default<Oz>",), ("default<Oz>", "default<Oz>")), action_space="PassesParameterized"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=False)
    parser.add_argument("--search_time", type=float, default=10.0, help="seconds per program")
    parser.add_argument("--seed", type=int, default=0, help="seed of the climb")
    flags, harness_flags = parser.parse_known_args()

    def policy(env) -> None:
        library_policy(
            env,
            STARTS,
            refine_seconds=flags.search_time,
            runtime=flags.search_time,
            seed=flags.seed,
        )

    eval_llvm_instcount_policy(policy, harness_flags)


if __name__ == "__main__":
    main()
