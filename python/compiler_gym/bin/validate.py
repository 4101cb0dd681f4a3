"""Validate recorded states: replay each one and check its reward and its program.

    python -m compiler_gym.bin.validate --env llvm-ic-v0 states.csv [more.csv ...]
    python -m compiler_gym.bin.validate --env llvm-ic-v0 < states.csv    # or - for stdin

Each state (a CSV row: benchmark, reward, walltime, commandline, as
``compiler_gym.bin.search --output`` and ``CompilerEnvStateWriter`` write them) is replayed in a
fresh environment, which must reproduce the recorded reward; a runnable benchmark's program must
also behave like the unoptimized one (``--sanitizer address --sanitizer undefined`` adds
sanitizer builds). Prints one line per state (``✅  <benchmark>  <reward>`` or
``❌  <benchmark>  <what failed>``) and a summary; the exit status is 1 when any state fails, 2
on bad input.

As CompilerGym's tool, it is also an absl app's ``main``: its flags can be set with absl
(``flags.FLAGS(["argv0", "--env=llvm-ic-v0"])``) before ``main(["argv0", "states.csv"])``.
"""

from __future__ import annotations

import json
import sys
from statistics import mean

from absl import flags

import compiler_gym
import compiler_gym.util.flags.env_from_flags  # noqa: F401 (--env, as CompilerGym's)
import compiler_gym.util.flags.nproc  # noqa: F401 (--nproc, as CompilerGym's)
from compiler_gym.compiler_env_state import CompilerEnvStateReader
from compiler_gym.util.cli import argument_parser, parse_args, user_errors
from compiler_gym.util.statistics import geometric_mean

# CompilerGym's flags of this tool, for a caller that sets them with absl; the command line is
# parsed by the parser of main(), whose options of the same names they set the defaults of.
flags.DEFINE_boolean("inorder", False, "Print the results in the order of the states.")
flags.DEFINE_enum(
    "reward_aggregation", "geomean", ["geomean", "mean"], "How the summary aggregates rewards."
)
flags.DEFINE_boolean("summary_only", False, "Print only the summary, no line per state.")
flags.DEFINE_string("validation_logfile", None, "Also write every result to this JSON file.")
_ABSL_FLAGS = (
    "env",
    "nproc",
    "inorder",
    "reward_aggregation",
    "summary_only",
    "validation_logfile",
)


def _name(benchmark: str) -> str:
    """A benchmark as the result lines name it, as CompilerGym's: without ``benchmark://``."""
    return benchmark.removeprefix("benchmark://")


@user_errors
def main(argv=None) -> int:
    """Runs the tool on ``argv`` (default: the command line); returns 0 when every state
    validates, 1 when any fails, and 2 on bad input."""
    parser = argument_parser("compiler_gym.bin.validate", __doc__)
    parser.add_argument(
        "csv", nargs="*", help="state CSV files, - for standard input (default: standard input)"
    )
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
    parser.add_argument(
        "--nproc", type=int, help="states validated at once (default: one per core)"
    )
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
    args = parse_args(parser, argv, absl_flags=_ABSL_FLAGS)

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
        print(
            "error: No inputs to validate. Pass a CSV file path as an argument, or use - to "
            "read from stdin.",
            file=sys.stderr,
        )
        return 2

    compiler_gym.make(args.env).close()  # an unknown id is a clear error before any work
    width = max(len(_name(s.benchmark)) for s in states)
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
        # CompilerGym's lines: a failure says why in place of the reward.
        if not result.okay():
            line = f"❌  {_name(state.benchmark)}  {'; '.join(result.errors)}"
        elif state.reward is None:
            line = f"✅  {_name(state.benchmark)}"
        else:
            line = f"✅  {_name(state.benchmark):<{width}}  {state.reward:9.4f}"
        print(line, flush=True)
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
