"""The sequence-library policy on programs it was not trained on: builtin-v0, csmith-v0 seeds
and gcc-torture-v0 programs outside the training set of
benchmarks/leaderboard/sequence_library/train.py. Per set: the geometric mean of
IrInstructionCountOz, seconds per program, and how many states validate (runnable programs).

    python benchmarks/sequence_library_eval.py --csmith=1000:1020 --gcc-torture=30 --json=out.json
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

import compiler_gym
from compiler_gym.search.sequence_library import SequenceLibrary, library_policy

LIBRARY = Path(__file__).parent / "leaderboard" / "sequence_library" / "library.txt"


def held_out_gcc_torture(env, count: int, trained: int = 60) -> list[str]:
    """``count`` gcc-torture-v0 programs half a stride away from the training set's (every
    k-th of the sorted URIs for ``trained`` programs)."""
    listed = sorted(env.datasets["gcc-torture-v0"].benchmark_uris())
    stride = max(1, len(listed) // trained)
    return listed[stride // 2 :: stride][:count]


def evaluate(env, library, uris, budget: float, validate: bool, min_size: int = 50) -> dict:
    """The policy on each of ``uris`` of at least ``min_size`` IR instructions (training's
    bound: smaller ones -Oz leaves as they are); the figures of the set."""
    rewards, seconds, valid, runnable = [], [], 0, 0
    for uri in uris:
        try:
            env.reset(benchmark=uri)
        except Exception as e:  # a program that does not build is not evaluated
            print(f"skipped {uri}: {type(e).__name__}", file=sys.stderr)
            continue
        if env.observation["IrInstructionCount"] < min_size:
            continue
        start = time.perf_counter()
        state = library_policy(env, library, refine_seconds=budget, validate=validate)
        seconds.append(time.perf_counter() - start)
        rewards.append(state.reward)
        if validate and env.benchmark.runnable:
            runnable += 1
            valid += env.validate(state).okay()
    floor = np.maximum(np.asarray(rewards), 1e-3)  # a reward <= 0 counts as 0.001
    return {
        "programs": len(rewards),
        "geomean": float(np.exp(np.log(floor).mean())),
        "mean_seconds": float(np.mean(seconds)),
        "runnable": runnable,
        "validated": valid,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", type=Path, default=LIBRARY, help="library file")
    parser.add_argument("--budget", type=float, default=0.0, help="climbing seconds")
    parser.add_argument("--csmith", default="1000:1020", help="held-out csmith seeds A:B")
    parser.add_argument("--gcc-torture", type=int, default=30, help="held-out programs")
    parser.add_argument("--no-validate", action="store_true", help="skip program checks")
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    library = SequenceLibrary.load(args.library)
    first, last = (int(x) for x in args.csmith.split(":"))
    figures = {}
    with compiler_gym.make("llvm-v0", reward_space="IrInstructionCountOz") as env:
        sets = {
            "builtin-v0": sorted(env.datasets["builtin-v0"].benchmark_uris()),
            "csmith-v0 (held out)": [f"generator://csmith-v0/{s}" for s in range(first, last)],
            "gcc-torture-v0 (held out)": held_out_gcc_torture(env, args.gcc_torture),
        }
        for name, uris in sets.items():
            figures[name] = evaluate(env, library, uris, args.budget, not args.no_validate)
            print(name, json.dumps(figures[name]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
