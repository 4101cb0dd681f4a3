"""A sequence-library policy on programs it was not trained on: the corpus's held-out groups
(docs/corpus.md: builtin-v0, and the pypi-c-v0 libraries no training program comes from), and
train-side programs outside a library's training list (csmith-v0 seeds, gcc-torture-v0 half a
stride from train.py's picks) for choosing settings without looking at a held-out group. Per
set: the geometric mean of IrInstructionCountOz, seconds per program (median, mean, most), and
how many states validate (runnable programs). Each state is checked in the loop; with --csv the
states are written per set in CompilerGym's state format, which ``compiler_gym.bin.validate``
(and the tests) replay.

    python benchmarks/sequence_library_eval.py \\
        --library=python/compiler_gym/data/policies/mixed-v0.txt --runtime=2.5 \\
        --group=pypi-c-v0/zopfli --group=pypi-c-v0/cmark-gfm --json=out.json
    python benchmarks/sequence_library_eval.py --csmith=1000:1020 --gcc-torture=30 --group=
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

import compiler_gym
from compiler_gym.compiler_env_state import CompilerEnvStateWriter
from compiler_gym.datasets.corpus import corpus_uris, group, groups
from compiler_gym.search.sequence_library import (
    SequenceLibrary,
    add_policy_flags,
    policy_from_flags,
)

LIBRARY = Path(__file__).parent / "leaderboard" / "sequence_library" / "library.txt"
HELD_OUT = [g.name for g in groups("held-out")]


def held_out_gcc_torture(env, count: int, trained: int = 60) -> list[str]:
    """``count`` gcc-torture-v0 programs half a stride away from the training set's (every
    k-th of the sorted URIs for ``trained`` programs)."""
    listed = sorted(env.datasets["gcc-torture-v0"].benchmark_uris())
    stride = max(1, len(listed) // trained)
    return listed[stride // 2 :: stride][:count]


def evaluate(env, policy, uris, args, writer=None) -> dict:
    """The policy on each of ``uris`` of ``--min-size`` to ``--max-size`` IR instructions
    (smaller ones -Oz leaves as they are); the figures of the set."""
    rewards, seconds, valid, runnable, rows = [], [], 0, 0, []
    for uri in uris:
        try:
            env.reset(benchmark=uri)
        except Exception as e:  # a program that does not build is not evaluated
            print(f"skipped {uri}: {type(e).__name__}", file=sys.stderr)
            continue
        size = int(env.observation["IrInstructionCount"])
        if not args.min_size <= size <= args.max_size:
            continue
        start = time.perf_counter()
        state = policy(env)
        seconds.append(time.perf_counter() - start)
        state.walltime = seconds[-1]
        rewards.append(state.reward)
        ok = None
        if not args.no_validate and env.benchmark.runnable:
            runnable += 1
            ok = env.validate(state).okay()
            valid += ok
        rows.append(
            {
                "benchmark": uri,
                "instructions": size,
                "reward": state.reward,
                "seconds": seconds[-1],
                "valid": ok,
                "space": env.action_space.name,
            }
        )
        if writer is not None:
            writer.write_state(state, flush=True)
        print(f"  {uri} {size} {state.reward:.4f} {seconds[-1]:.2f}s {ok}", flush=True)
    floor = np.maximum(np.asarray(rewards), 1e-3)  # a reward <= 0 counts as 0.001
    return {
        "programs": len(rewards),
        "geomean": float(np.exp(np.log(floor).mean())) if rewards else None,
        "median_seconds": statistics.median(seconds) if seconds else None,
        "mean_seconds": float(np.mean(seconds)) if seconds else None,
        "max_seconds": max(seconds, default=None),
        "runnable": runnable,
        "validated": valid,
        "per_program": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", type=Path, default=LIBRARY, help="library file")
    add_policy_flags(parser)
    parser.add_argument(
        "--group",
        action="append",
        help=f"a corpus group (repeat; default the held-out ones: {', '.join(HELD_OUT)});"
        " an empty name for none",
    )
    parser.add_argument("--csmith", help="train-side csmith seeds A:B outside the training list")
    parser.add_argument("--gcc-torture", type=int, default=0, help="train-side programs")
    parser.add_argument("--min-size", type=int, default=50, help="fewest IR instructions")
    parser.add_argument("--max-size", type=float, default=float("inf"), help="most")
    parser.add_argument("--no-validate", action="store_true", help="skip program checks")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--csv", type=Path, help="a folder for each set's states (CSV)")
    args = parser.parse_args()
    library = SequenceLibrary.load(args.library)
    policy = policy_from_flags(library, args, validate=not args.no_validate)
    names = [g for g in (HELD_OUT if args.group is None else args.group) if g]
    figures = {}
    with compiler_gym.make("llvm-v0", reward_space="IrInstructionCountOz") as env:
        sets = {name: list(corpus_uris(group(name).split, group_names=[name])) for name in names}
        if args.csmith:
            first, last = (int(x) for x in args.csmith.split(":"))
            sets["csmith-v0 (train side)"] = [
                f"generator://csmith-v0/{s}" for s in range(first, last)
            ]
        if args.gcc_torture:
            sets["gcc-torture-v0 (train side)"] = held_out_gcc_torture(env, args.gcc_torture)
        if args.csv:
            args.csv.mkdir(parents=True, exist_ok=True)
        for name, uris in sets.items():
            print(name, flush=True)
            if args.csv:
                path = args.csv / (name.split(" ")[0].replace("/", "_") + ".csv")
                with open(path, "w") as f, CompilerEnvStateWriter(f) as writer:
                    figures[name] = evaluate(env, policy, uris, args, writer)
            else:
                figures[name] = evaluate(env, policy, uris, args)
            summary = {k: v for k, v in figures[name].items() if k != "per_program"}
            print(name, json.dumps(summary), flush=True)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    main()
