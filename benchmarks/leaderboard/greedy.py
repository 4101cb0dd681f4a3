"""The greedy leaderboard entry: CompilerGym's leaderboard greedy (try every action, keep the
best, stop when none improves), on the engine's try_actions.

    python benchmarks/leaderboard/greedy.py --n=1 \\
        --leaderboard_results=benchmarks/leaderboard/greedy-llvm_instcount.csv
"""

from compiler_gym.leaderboard.llvm_instcount import eval_llvm_instcount_policy
from compiler_gym.search import greedy_search


def greedy_policy(env) -> None:
    greedy_search(env)


if __name__ == "__main__":
    eval_llvm_instcount_policy(greedy_policy)
