"""Learns the sequence library of the sequence_library leaderboard entry
(compiler_gym.search.sequence_library) from training programs, never builtin-v0:

    python benchmarks/leaderboard/sequence_library/train.py \\
        --output=benchmarks/leaderboard/sequence_library/library.txt
    python benchmarks/leaderboard/sequence_library/train.py --action-space=PassesParameterized \\
        --output=python/compiler_gym/data/policies/pipelines-v0.txt

Programs: csmith-v0 seeds, gcc-torture-v0, pypi-c-v0 and llvm-stress-v0 benchmarks of
--min-size to --max-size IR instructions (every k-th in URI order, so the set is fixed).
Candidates start from LLVM 19's ``default<Oz>`` pipeline flattened into the action table
(``opt-19 -passes='default<Oz>' -print-pipeline-passes``, each pass mapped to the action
that runs it, without the passes -Oz runs in modes no action has), and each program's best start is
climbed (:func:`improve_sequences`); every candidate is then scored on every program and the
library chosen greedily (:func:`select_library`). The same arguments give the same library.
In the PassesParameterized space (``--action-space``) the starts are ``default<Oz>`` itself
and twice, and the mutants draw from its 195 pipeline elements.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import compiler_gym
from compiler_gym.datasets.corpus import group_of
from compiler_gym.envs.llvm_env import pass_table
from compiler_gym.search.sequence_library import (
    SequenceLibrary,
    improve_sequences,
    reward_matrix,
    select_library,
)
from compiler_gym.third_party.llvm import opt_path

# Pipeline elements that are adaptors or analyses, not passes.
ADAPTORS = {"function", "cgscc", "loop", "loop-mssa", "devirt", "require", "invalidate", "module"}


# Each training program's IR instructions at its start, after default<O0> and after -Oz.
COUNTS = ("IrInstructionCount", "IrInstructionCountO0", "IrInstructionCountOz")

# Passes that -Oz runs in modes no action has: inlining at its size threshold, vectorizing only
# where forced, unrolling under the optsize attribute. As actions they grow programs.
OZ_ONLY_MODES = ("-inline", "-loop-vectorize", "-loop-unroll")


def default_pipeline_actions(level: str = "Oz", skip: tuple[str, ...] = OZ_ONLY_MODES) -> list[str]:
    """LLVM 19's ``default<level>`` pipeline as action flags, in order: each pass that an
    action runs (an action whose pipeline names the pass with the same options first, else
    one with the pass's bare name); passes no action runs are left out."""
    text = subprocess.run(
        [opt_path(), f"-passes=default<{level}>", "-print-pipeline-passes", "-disable-output"],
        input=b"",
        capture_output=True,
        check=True,
    ).stdout.decode()
    exact, by_name = {}, {}
    for flag, pipeline, name in pass_table():
        element = re.sub(r"^(?:\w[\w-]*\()+|\)+$", "", pipeline)  # function(loop(x)) -> x
        exact.setdefault(element, flag)
        if element == name or name not in by_name:  # the bare pass before a variant
            by_name[name] = flag
    flags = []
    for element in re.findall(r"[\w-]+(?:<[^<>]*(?:<[^<>]*>)?[^<>]*>)?", text):
        name = element.split("<", 1)[0]
        if name in ADAPTORS:
            continue
        flag = exact.get(element) or by_name.get(name)
        if flag and flag not in skip:
            flags.append(flag)
    return flags


def training_programs(env, args) -> tuple[list[str], np.ndarray]:
    """The training benchmarks: every k-th of each dataset's programs on the corpus's train
    side (docs/corpus.md: never a held-out group's), in URI order, sized in range; and their
    :data:`COUNTS` (rows)."""
    uris = [f"generator://csmith-v0/{s}" for s in range(args.csmith)]
    uris += [f"generator://llvm-stress-v0/{s}" for s in range(args.llvm_stress)]
    for name, count in (("gcc-torture-v0", args.gcc_torture), ("pypi-c-v0", args.pypi_c)):
        listed = sorted(u for u in env.datasets[name].benchmark_uris() if _train_side(u))
        uris += listed[:: max(1, len(listed) // max(1, count))][:count]
    kept, counts = [], []
    for uri in uris:
        try:
            env.reset(benchmark=uri)
        except Exception as e:  # a benchmark that does not build is not a training program
            print(f"skipped {uri}: {type(e).__name__}", file=sys.stderr)
            continue
        if args.min_size <= env.observation["IrInstructionCount"] <= args.max_size:
            kept.append(uri)
            counts.append([int(env.observation[n]) for n in COUNTS])
    return kept, np.array(counts, dtype=np.int64).reshape(-1, len(COUNTS))


def _train_side(uri: str) -> bool:
    """Whether ``uri`` is in a training group of the corpus."""
    try:
        return group_of(uri).split == "train"
    except LookupError:
        return False


def start_relative(
    programs: list[str], rewards: np.ndarray, counts: np.ndarray
) -> tuple[list[int], np.ndarray]:
    """The columns of ``rewards`` (candidates x programs, IrInstructionCountOz) to learn
    from, rescaled so that -Oz scores 1 on every program: the reward is relative to the
    default<O0> baseline, which on a program with always_inline functions (brotli, lz4,
    xxhash) is larger than the unoptimized start, so there even -Oz scores far below 1 and
    the cover would chase those programs' scale. A program that -Oz leaves no smaller than
    its start is left out."""
    kept, scale = [], []
    for j, (uri, (start, o0, oz)) in enumerate(zip(programs, counts, strict=True)):
        if start > oz:
            kept.append(j)
            scale.append((o0 - oz) / (start - oz))
        else:
            print(f"left out {uri}: -Oz gives {oz} instructions from {start}", file=sys.stderr)
    return kept, rewards[:, kept] * np.asarray(scale)[None, :]


def learn(space: str, programs: list[str], args) -> tuple[list[list[str]], np.ndarray]:
    """The candidates of one action space (its starts and each program's best start climbed)
    as flags, and their rewards on every program (candidates x programs)."""
    with compiler_gym.make(
        "llvm-v0", reward_space="IrInstructionCountOz", action_space=space
    ) as env:
        flags = {f: i for i, f in enumerate(env.action_space.flags)}
        if space == "PassesParameterized":
            oz = [flags["default<Oz>"]]
        else:
            oz = [flags[f] for f in default_pipeline_actions()]
        starts = [oz, oz + oz]
        if args.starts:
            library = SequenceLibrary.load(args.starts)
            kept = [i for i in range(len(library.sequences)) if library.space(i) == space]
            starts += library.actions(env, kept)
        climbed = improve_sequences(env, programs, starts, args.seed, args.rounds, args.batch)
        pool = [list(s) for s in dict.fromkeys(tuple(s) for s in starts + climbed)]
        print(f"{space}: {len(pool)} candidates", flush=True)
        rewards = reward_matrix(env, pool, programs)
        names = env.action_space.flags
        return [[names[a] for a in s] for s in pool], rewards


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", type=Path, required=True, help="library file to write")
    parser.add_argument("--size", type=int, default=32, help="sequences in the library")
    parser.add_argument("--seed", type=int, default=0, help="seed of the climbs")
    parser.add_argument("--rounds", type=int, default=6, help="climbing rounds per program")
    parser.add_argument("--batch", type=int, default=24, help="mutants per climbing round")
    parser.add_argument("--csmith", type=int, default=40, help="csmith-v0 seeds 0..N-1")
    parser.add_argument("--llvm-stress", type=int, default=30, help="llvm-stress-v0 seeds")
    parser.add_argument("--gcc-torture", type=int, default=120, help="gcc-torture-v0 programs")
    parser.add_argument("--pypi-c", type=int, default=30, help="pypi-c-v0 programs")
    parser.add_argument("--min-size", type=int, default=50, help="fewest IR instructions")
    parser.add_argument("--max-size", type=int, default=15000, help="most IR instructions")
    parser.add_argument("--json", type=Path, help="also write the training figures here")
    parser.add_argument(
        "--matrix", type=Path, help="also write every candidate's rewards here (.npz)"
    )
    parser.add_argument(
        "--from-matrix",
        type=Path,
        help="choose the library from a --matrix file of an earlier run (no climbing)",
    )
    parser.add_argument(
        "--starts", type=Path, help="a library whose sequences are starts too (a previous run's)"
    )
    parser.add_argument(
        "--action-space",
        help="the llvm-v0 action space (default PassesAll), or several separated by commas:"
        " a library that spans them, chosen from all their candidates",
    )
    args = parser.parse_args(argv)
    started = time.time()
    spaces = (args.action_space or "PassesAll").split(",")
    if args.from_matrix:  # a saved run's candidates and rewards: only the choice again
        saved = np.load(args.from_matrix)
        programs = [str(p) for p in saved["programs"]]
        pool = [str(c).split() for c in saved["candidates"]]
        pool_spaces = [str(s) for s in saved["spaces"]]
        rewards = saved["rewards"]
        matrix_seconds = float(saved["seconds"]) if "seconds" in saved else None
        matrix_argv = [str(a) for a in saved["argv"]] if "argv" in saved else None
        counts = saved["counts"]
    else:
        with compiler_gym.make("llvm-v0") as env:
            programs, counts = training_programs(env, args)
        print(f"{len(programs)} training programs", flush=True)
        pool, pool_spaces, matrices = [], [], []
        for space in spaces:
            candidates, space_rewards = learn(space, programs, args)
            pool += candidates
            pool_spaces += [space] * len(candidates)
            matrices.append(space_rewards)
        rewards = np.vstack(matrices)
        matrix_seconds = time.time() - started
        matrix_argv = sys.argv[1:] if argv is None else list(argv)
    kept, relative = start_relative(programs, rewards, counts)
    chosen = select_library(relative, args.size)
    mixed = len(spaces) > 1
    library = SequenceLibrary(
        tuple(tuple(pool[i]) for i in chosen),
        spaces[0] if mixed else args.action_space,
        tuple(pool_spaces[i] for i in chosen) if mixed else (),
    )
    floor = np.maximum(np.nan_to_num(relative, nan=0.05), 0.05)
    geomean = float(np.exp(np.log(floor[chosen].max(axis=0)).mean()))
    figures = {
        "programs": len(programs),
        "programs_learned_from": len(kept),
        "candidates": len(pool),
        "library": len(chosen),
        "train_geomean_library": geomean,
        "train_geomean_oz_sequence": float(np.exp(np.log(floor[0]).mean())),
        "seconds": time.time() - started,
        "seconds_of_candidates_and_rewards": matrix_seconds,
        "argv_of_candidates_and_rewards": matrix_argv,
        "argv": sys.argv[1:] if argv is None else list(argv),
    }
    header = "\n".join(
        ["A sequence library learned by benchmarks/leaderboard/sequence_library/train.py"]
        + [f"{k}: {v}" for k, v in figures.items()]
    )
    library.save(args.output, header)
    if args.matrix:
        np.savez_compressed(
            args.matrix,
            rewards=rewards,
            programs=np.array(programs),
            spaces=np.array(pool_spaces),
            candidates=np.array([" ".join(c) for c in pool]),
            seconds=np.array(matrix_seconds if matrix_seconds is not None else np.nan),
            argv=np.array(matrix_argv or []),
            counts=counts,
        )
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    print(json.dumps(figures, indent=1))


if __name__ == "__main__":
    main()
