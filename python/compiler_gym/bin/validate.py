"""Validate recorded states: replay each one and check its reward and its program.

    python -m compiler_gym.bin.validate --env llvm-ic-v0 states.csv [more.csv ...]
    python -m compiler_gym.bin.validate --env llvm-ic-v0 < states.csv

Each state (a CSV row: benchmark, reward, walltime, commandline) is replayed in a fresh
environment, which must reproduce the recorded reward; a runnable benchmark's program must
also behave like the unoptimized one (``--sanitizer address --sanitizer undefined`` adds
sanitizer builds). Prints one ✅/❌ line per state and a summary; the exit status is 1 when
any state fails, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from statistics import mean

import compiler_gym
from compiler_gym.compiler_env_state import CompilerEnvStateReader
from compiler_gym.util.cli import user_errors
from compiler_gym.util.statistics import geometric_mean


@user_errors
def main(argv=None) -> int:
    """Runs the tool on ``argv`` (default: the command line); returns 0 when every state
    validates, 1 when any fails, and 2 on bad input."""
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("csv", nargs="*", help="state CSV files (standard input when none)")
    parser.add_argument("--env", default="llvm-ic-v0", help="environment id (default llvm-ic-v0)")
    parser.add_argument(
        "--sanitizer",
        "--sanitizers",
        dest="sanitizers",
        action="append",
        default=[],
        choices=["address", "undefined"],
        help="also run this sanitizer's build of runnable programs (repeat for both)",
    )
    parser.add_argument("--nproc", type=int, help="states validated at once (default: cores)")
    # CompilerGym's flags.
    parser.add_argument(
        "--inorder", action="store_true", help="print in the CSV's order (default: as they end)"
    )
    parser.add_argument(
        "--summary_only", action="store_true", help="print only the summary, no line per state"
    )
    parser.add_argument(
        "--reward_aggregation",
        choices=["geomean", "mean"],
        default="geomean",
        help="how the summary aggregates the states' rewards (default geomean)",
    )
    parser.add_argument("--validation_logfile", help="also write every result to this JSON file")
    args = parser.parse_args(argv)

    try:
        states = list(
            CompilerEnvStateReader.read_paths(args.csv)
            if args.csv
            else CompilerEnvStateReader(sys.stdin)
        )
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not states:
        print("error: no states to validate", file=sys.stderr)
        return 2

    compiler_gym.make(args.env).close()  # an unknown id is a clear error before any work
    width = max(len(s.benchmark) for s in states)
    results = []
    for result in compiler_gym.validate_states(
        lambda: compiler_gym.make(args.env),
        states,
        nproc=args.nproc,
        inorder=args.inorder,
        sanitizers=args.sanitizers,
    ):
        results.append(result)
        if args.summary_only:
            continue
        state = result.state
        reward = "" if state.reward is None else f"{state.reward:9.4f}"
        line = f"{'✅' if result.okay() else '❌'}  {state.benchmark:<{width}}  {reward}"
        if not result.okay():
            line += "  " + "; ".join(result.errors)
        print(line.rstrip(), flush=True)
    if args.validation_logfile:
        with open(args.validation_logfile, "w") as f:
            json.dump([r.dict() for r in results], f, indent=2)

    passed = sum(r.okay() for r in results)
    print(f"\n{passed} of {len(results)} states validated")
    rewards = [s.reward for s in states if s.reward is not None]
    if rewards:  # CompilerGym's geomean: 0 when any state's reward is 0 or less
        value = geometric_mean(rewards) if args.reward_aggregation == "geomean" else mean(rewards)
        print(f"{args.reward_aggregation} reward: {value:.4f} (over {len(rewards)} states)")
    walltimes = [r.walltime for r in results]
    print(f"mean validation time: {sum(walltimes) / len(walltimes):.3f} s per state")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
