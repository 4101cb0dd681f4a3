"""Optimize a program with a learned policy shipped in the package, and write the result.

    python -m compiler_gym.bin.optimize prog.c -o prog.bc
    python -m compiler_gym.bin.optimize prog.bc -o prog.opt.ll --search-seconds 10
    python -m compiler_gym.bin.optimize prog.c --metric ObjectTextSizeBytes --json result.json

Prints the pass pipeline chosen (an ``opt -passes=...`` that gives the same module from the
unoptimized one), the program's size against LLVM 19's ``-Oz`` and ``-O0``, and whether the
optimized program still behaves like the unoptimized build (run in the sandbox, where it can
be run), and writes the optimized module (``.ll``: text IR; otherwise bitcode). The input is a
C or C++ source (compiled with clang-19 at ``-O0``, with ``--copt`` flags) or LLVM IR
(``.ll``/``.bc``). See :func:`compiler_gym.optimize.optimize` for the policy and the options.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Optional

from compiler_gym.optimize import DEFAULT_METRIC, DEFAULT_POLICY, describe, optimize, policies
from compiler_gym.util.cli import program_name, user_errors


def make_parser() -> argparse.ArgumentParser:
    """The command's argument parser."""
    parser = argparse.ArgumentParser(
        prog=program_name("compiler_gym.bin.optimize"),
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("program", help="a C/C++ source, or LLVM IR (.ll) or bitcode (.bc)")
    parser.add_argument("-o", "--output", help="write the optimized module here (.ll: text)")
    parser.add_argument(
        "--policy",
        default=DEFAULT_POLICY,
        help=f"a shipped policy ({', '.join(policies())}) or a library file "
        f"(default: {DEFAULT_POLICY})",
    )
    parser.add_argument(
        "--metric",
        default=DEFAULT_METRIC,
        help="what to minimize: IrInstructionCount (default) or ObjectTextSizeBytes, ...",
    )
    parser.add_argument(
        "--search-seconds",
        type=float,
        default=0.0,
        help="refine the best pipeline by a local search until this many seconds (default 0)",
    )
    parser.add_argument("--max-seconds", type=float, help="bound the whole run (seconds)")
    parser.add_argument(
        "--no-validate",
        dest="validate",
        action="store_false",
        default=None,
        help="do not run the candidates against the unoptimized build",
    )
    parser.add_argument("--copt", action="append", default=[], help="a flag for clang (repeatable)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the local search")
    parser.add_argument("--json", help="also write the result as JSON here")
    return parser


@user_errors(absl=False)
def main(argv: Optional[list[str]] = None) -> int:
    """Runs the command on ``argv`` (default: the command line)."""
    args = make_parser().parse_args(argv)
    result = optimize(
        args.program,
        args.output,
        policy=args.policy,
        metric=args.metric,
        search_seconds=args.search_seconds,
        max_seconds=args.max_seconds,
        validate=args.validate,
        copt=args.copt or None,
        seed=args.seed,
    )
    print(describe(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result.to_dict(), f, indent=2)
    return 1 if result.runs is False else 0


if __name__ == "__main__":
    sys.exit(main())
