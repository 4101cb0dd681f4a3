"""Searches GCC's options for the smallest object file, per builtin-v0 program.

    python benchmarks/gcc_search.py [--budget 1000] [--programs 0] [--jobs 2]
        [--optimizer DiscreteLenglerOnePlusOne] [--seed 0]

Two searches of ``--budget`` compilations each per program, scored by ``obj_size``:
  * random: each trial is a state of 1 to 32 random actions from the reset state;
  * nevergrad (``--optimizer``, default DiscreteLenglerOnePlusOne, a (1+1) evolutionary
    search whose mutation rate adapts), starting from -Os, over each option's candidate
    values ("off the command line" and its values; integers with more than 16 values: GCC's
    default times 2^k, k in -3..3, clamped to the range) as one ``CategoricalVector``
    (compiler_gym.search). (One ``ng.p.Choice`` per option cost 0.35 s of nevergrad time per
    trial on 515 options, ten times the compile; on 300 trials of adpcm the vector gave
    DiscreteOnePlusOne 1.00x, DoubleFastGA 1.08x, Portfolio 1.17x, Lengler 1.18x of -Os.)
Reports per program and as a geomean the ratio ``-Os size / best size`` (above 1 = smaller
than -Os), and the time taken. ``--programs N`` takes the first N programs (0 = all).
"""

from __future__ import annotations

import argparse
import math
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

import compiler_gym
from compiler_gym.errors import ServiceError
from compiler_gym.search import CategoricalVector
from compiler_gym.util.statistics import geometric_mean


def _size(env, choices) -> float:
    """obj_size of a state; infinity when GCC refuses it."""
    try:
        env.choices = choices
        return float(env.obj_size)
    except (ServiceError, TimeoutError):
        return math.inf


def random_search(env, budget: int, rng: np.random.Generator) -> float:
    best = math.inf
    for _ in range(budget):
        env.reset()
        actions = rng.integers(env.action_space.n, size=int(rng.integers(1, 33)))
        for a in actions:  # the state the actions reach, without compiling on the way
            env.step(int(a))
        best = min(best, _size(env, env.choices))
    return best


def _candidates(option) -> list[int]:
    """Choices a search considers for one option: -1 and its values (a window of them for a
    large integer range)."""
    if len(option) <= 16:
        return [-1, *range(len(option))]
    try:
        default = int(option.default)
    except ValueError:
        default = option.min
    values = {min(max(round(default * 2.0**k), option.min), option.max) for k in range(-3, 4)}
    return [-1, *sorted(v - option.min for v in values)]


def nevergrad_search(env, budget: int, optimizer: str, seed: int) -> float:
    candidates = [_candidates(o) for o in env.gcc_spec.options]
    start = [0] * len(candidates)  # every option off the command line, then -Os
    start[0] = candidates[0].index(env.gcc_spec.options[0].args.index("-Os"))
    vector = CategoricalVector([len(c) for c in candidates], start=start, seed=seed)
    opt = vector.optimizer(optimizer, budget)
    best = math.inf
    for _ in range(budget):
        candidate = opt.ask()
        choices = [c[i] for c, i in zip(candidates, vector.decode(candidate.value), strict=True)]
        size = _size(env, choices)
        # A state GCC refuses scores worse than any it accepts.
        opt.tell(candidate, size if math.isfinite(size) else 1e12)
        best = min(best, size)
    return best


def search_program(job: tuple) -> dict:
    program, budget, optimizer, seed = job
    with compiler_gym.make("gcc-v0") as env:
        env.reset(benchmark=program)
        os_size = env.observation["obj_size_Os"]
        o0_size = env.observation["obj_size_O0"]
        out = {"program": program, "Os": os_size, "O0": o0_size}
        start = time.time()
        out["random"] = random_search(env, budget, np.random.default_rng(seed))
        out["random_seconds"] = time.time() - start
        start = time.time()
        out["nevergrad"] = nevergrad_search(env, budget, optimizer, seed)
        out["nevergrad_seconds"] = time.time() - start
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--programs", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--optimizer", default="DiscreteLenglerOnePlusOne")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with compiler_gym.make("gcc-v0") as env:
        programs = list(env.datasets["benchmark://builtin-v0"].benchmark_uris())
        version = env.gcc_spec.version
    if args.programs:
        programs = programs[: args.programs]
    print(f"{version}; {len(programs)} programs, {args.budget} compilations per search")
    start = time.time()
    jobs = [(p, args.budget, args.optimizer, args.seed) for p in programs]
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(search_program, jobs))
    print(f"{'program':<36} {'-O0':>7} {'-Os':>7} {'random':>7} {args.optimizer:>9}")
    for r in results:
        print(
            f"{r['program']:<36} {r['O0']:>7} {r['Os']:>7} {r['random']:>7.0f} "
            f"{r['nevergrad']:>9.0f}"
        )
    for method in ("random", "nevergrad"):
        ratio = geometric_mean([r["Os"] / r[method] for r in results])
        seconds = sum(r[f"{method}_seconds"] for r in results)
        print(
            f"{method}: geomean -Os size / best size = {ratio:.4f}x; "
            f"{seconds:.0f} s of search ({seconds / len(results):.0f} s per program)"
        )
    print(f"wall time {time.time() - start:.0f} s with {args.jobs} jobs")


if __name__ == "__main__":
    main()
