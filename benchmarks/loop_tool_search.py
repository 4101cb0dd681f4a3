"""loop_tool-v0: how close a schedule search gets to the device's peak, and measurement throughput.

    python3 benchmarks/loop_tool_search.py [--device cpu|cuda|all] [--log2-size 26]
        [--budget 1000] [--repetitions 20] [--vec-envs 4] [--sequential]
        [--timing-budget SECONDS] [--ptxas auto|PATH] [--out results.json]

1. Peak: the device's copy bandwidth on arrays of the program's size (a device-to-device copy
   on the GPU, memcpy on the CPU), measured in the same run.
2. Search: a hill climb over the loop tree of ``C[a] = A[a] + B[a]`` (float32, N = 2^26 by
   default) with at most ``--budget`` measured schedules: from the best schedule so far, each
   neighbour moves one loop's size by 1, 2, 4, ... steps up or down (the parent absorbs the
   rest), toggles its thread, or splits it; the best neighbour is taken while it improves, else
   a random unmeasured one. Each round's unmeasured neighbours are measured as one batch
   (``try_actions``: compiled in parallel on the engine's threads, checked and timed one at a
   time through the device's queue); ``--sequential`` measures them one fork at a time, as
   before batching. On the GPU, schedules on fewer than ``--min-gpu-threads`` threads are not
   measured (nor counted): they cannot fill the device. Reported: the best schedule's
   bandwidth, measured again after the search (the median of five fresh measurements,
   alternating with the starting schedule's), as a share of the copy peak; the search's wall
   time and schedules/s; and where the time went per schedule (compile, of which the GPU
   driver's JIT, reference, check, timing).
   ``--timing-budget`` cuts each schedule's timed runs to that many seconds (the env's
   ``timing_budget_seconds``; one run always stays, and a schedule far slower than the best
   needs no twenty); ``--ptxas`` assembles CUDA kernels with the toolkit's ptxas in the
   compiling threads (``cuda_ptxas``) instead of the driver's JIT in the load.
3. CPU only: the same best schedule against NumPy's ``np.add(a, b, out=c)`` on the same arrays.
4. Measurements per second of one env against ``make_vec`` (compiles in parallel on the engine's
   threads, timings serialized through the device queue), on programs of 2^16 elements.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import time

import numpy as np

import compiler_gym
from compiler_gym.envs.loop_tool import cache_stats, copy_bandwidth, devices

TOGGLE_MODE, UP, DOWN, TOGGLE_THREAD, SPLIT = range(5)
STEPS = [1, 2, 4, 8, 16, 32, 64, 128, 256]


def goto(cursor: int) -> list[int]:
    """Actions that move the cursor from 0 to ``cursor`` and return to size mode."""
    return [TOGGLE_MODE] + [UP] * cursor + [TOGGLE_MODE]


def neighbours(num_loops: int) -> list[list[int]]:
    moves = []
    for c in range(num_loops):
        moves.append(goto(c) + [TOGGLE_THREAD])
        moves.append(goto(c) + [SPLIT])
        for k in STEPS:
            moves.append(goto(c) + [UP] * k)
            moves.append(goto(c) + [DOWN] * k)
    return moves


def remeasure(env, repetitions: int) -> float:
    """A fresh measurement of the env's loop tree (new timing options drop the cached one)."""
    fork = env.fork()
    try:
        fork.send_param("timing_repetitions", str(repetitions))
        fork.send_param("timing_budget_seconds", "1")  # every repetition, whatever the search's
        return fork.observation["bandwidth"]
    finally:
        fork.close()


def parallel_threads(env) -> int:
    """How many threads the schedule runs on (the product of its threaded loops' sizes)."""
    threads = 1
    for loop in env.schedule["loops"]:
        if loop["thread"]:
            threads *= loop["size"]
    return threads


def measure_batch(current, todo: list[tuple[str, list[int]]], sequential: bool) -> list[float]:
    """The bandwidth of each candidate ``(loop tree, move from current)``, 0 where the device
    refused it. Batched (the default): one ``try_actions`` call, whose candidates the engine
    compiles in parallel on its threads while their checks and timings wait their turn in the
    device's queue. Sequential (the path before batching): one fork measured after another."""
    if not sequential:
        _, values = current.try_actions(
            [move for _, move in todo], reward_space="flops", observation_space="bandwidth"
        )
        return [0.0 if v is None else float(v) for v in values]
    found = []
    for _, move in todo:
        fork = current.fork()
        try:
            fork.multistep(move)
            found.append(fork.observation["bandwidth"])
        except Exception:  # a schedule the device refuses: never the best
            found.append(0.0)
        finally:
            fork.close()
    return found


def search(
    device: str,
    program: str,
    budget: int,
    repetitions: int,
    seed: int = 0,
    max_seconds: float | None = None,
    min_threads: int = 1,
    sequential: bool = False,
    timing_budget: float | None = None,
    ptxas: str = "",
) -> dict:
    """The hill climb; then the best and the initial schedule measured again, alternately, five
    times each: the maximum of many noisy measurements is biased upwards, so the figures
    reported are these medians. Each round measures the current state's unmeasured neighbours
    as one batch (see ``measure_batch``); which neighbour is taken depends only on the
    measurements and the seed, not on the order they finished in."""
    rng = random.Random(seed)
    stats_before = cache_stats()
    start = time.time()
    measured: dict[str, float] = {}
    # No reward space: the default one (flops) would measure every fork's tree as it steps,
    # schedules this search skips (too few GPU threads, trees measured before) included.
    env = compiler_gym.make(
        "loop_tool-v0", benchmark=f"loop_tool-{device}-v0/{program}", reward_space=None
    )
    env.send_param("timing_repetitions", str(repetitions))
    if timing_budget is not None:
        env.send_param("timing_budget_seconds", str(timing_budget))
    env.send_param("cuda_ptxas", ptxas)
    env.reset(action_space="split")
    current = env  # the state whose neighbours are tried next, cursor at 0 in size mode
    best_tree, best = env.observation["loop_tree"], env.fork()
    measured[best_tree] = env.observation["bandwidth"]
    reported, rounds = 0, 0
    while len(measured) < budget:
        elapsed = time.time() - start
        if max_seconds is not None and elapsed > max_seconds:
            print(f"  search stopped at its {max_seconds:.0f} s limit", flush=True)
            break
        if len(measured) >= reported + 50:  # progress, so a run cut short still tells
            reported = len(measured)
            print(
                f"  {reported} schedules in {elapsed:.0f} s, best {measured[best_tree]:.1f} GB/s",
                flush=True,
            )
        candidates: list[tuple[str, list[int]]] = []  # (loop tree, move), first move per tree
        for move in neighbours(len(current.schedule["loops"])):
            fork = current.fork()
            fork.multistep(move)  # no reward space: nothing is measured here
            tree = fork.observation["loop_tree"]
            if (
                tree not in measured
                and all(tree != t for t, _ in candidates)
                and parallel_threads(fork) >= min_threads
            ):
                candidates.append((tree, move))
            fork.close()
        if not candidates:
            break
        todo = candidates[: budget - len(measured)]
        for (tree, _), value in zip(todo, measure_batch(current, todo, sequential), strict=True):
            measured[tree] = value
        rounds += 1
        # The first of the best (as the sequential climb took it), else a random measured one.
        chosen = max(todo, key=lambda c: measured[c[0]])
        if measured[chosen[0]] <= measured[best_tree]:  # no neighbour improves: leave the optimum
            chosen = rng.choice([c for c in candidates if c[0] in measured])
        following = current.fork()
        following.multistep(chosen[1])
        if measured[chosen[0]] > measured[best_tree]:
            best_tree = chosen[0]
            best.close()
            best = following.fork()
        loops = len(following.schedule["loops"])
        cursor = following.schedule["cursor"]
        following.multistep([TOGGLE_MODE] + [UP] * ((loops - cursor) % loops) + [TOGGLE_MODE])
        if current is not env:
            current.close()
        current = following
    searched = time.time() - start
    spent = spent_since(stats_before)
    if current is not env:
        current.close()
    initial, final = [], []
    for _ in range(5):
        initial.append(remeasure(env, 3 * repetitions))
        final.append(remeasure(best, 3 * repetitions))
    best.close()
    env.close()
    found = {
        "mode": "sequential" if sequential else "batched",
        "measured": len(measured),
        "rounds": rounds,
        "seconds": searched,
        "schedules_per_s": len(measured) / searched,
        "best_bandwidth_gbps": statistics.median(final),
        "best_during_search_gbps": measured[best_tree],
        "best_loop_tree": best_tree,
        "initial_bandwidth_gbps": statistics.median(initial),
        "search_time_spent": spent,
    }
    found["split_ms_per_schedule"] = split_per_schedule(found)
    return found


def numpy_add_gbps(n: int, repetitions: int) -> float:
    rng = np.random.default_rng(0)
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    c = np.empty_like(a)
    times = []
    for i in range(repetitions + 3):
        t = time.perf_counter()
        np.add(a, b, out=c)
        if i >= 3:
            times.append(time.perf_counter() - t)
    return 3 * n * 4 / statistics.median(times) / 1e9


def throughput(device: str, num_envs: int, steps: int) -> dict:
    """Measurements per second: every step grows loop 1, a new loop tree (a compile and a
    timing); each env has a program of its own size, so no two compile the same kernel."""
    benchmarks = [f"loop_tool-{device}-v0/{65536 + 64 * i}" for i in range(num_envs)]
    with compiler_gym.make("loop_tool-v0", benchmark=benchmarks[0]) as env:
        env.send_param("timing_repetitions", "5")
        env.reset()
        env.multistep(goto(1))
        before = cache_stats()
        start = time.time()
        for _ in range(steps):
            env.step(UP)
            env.observation["flops"]
        single = steps / (time.time() - start)
        single_spent = spent_since(before)
    with compiler_gym.make_vec(
        "loop_tool-v0",
        num_envs=num_envs,
        benchmarks=benchmarks,
        observation_space="flops",
        parameters={"timing_repetitions": 5},
    ) as vec:
        vec.reset()
        for action in goto(1):
            vec.step(np.full(num_envs, action))
        rounds = max(1, steps // num_envs)
        before = cache_stats()
        start = time.time()
        for _ in range(rounds):
            vec.step(np.full(num_envs, UP))
        batched = rounds * num_envs / (time.time() - start)
        vec_spent = spent_since(before)
    return {
        "single_per_s": single,
        "vec_per_s": batched,
        "num_envs": num_envs,
        # Where each measurement's time went, to tell what keeps make_vec from scaling (a
        # kernel load the driver serializes shows as a longer load per kernel in make_vec).
        "single_spent": single_spent,
        "vec_spent": vec_spent,
    }


def spent_since(before: dict[str, float]) -> dict[str, float]:
    """The loop_tool cache counters' growth since ``before`` (a ``cache_stats()``)."""
    return {k: v - before[k] for k, v in cache_stats().items()}


def split_per_schedule(found: dict) -> dict[str, float]:
    """Where the search's time went, in ms per measured schedule: thread-seconds of each part
    (compiles run in parallel in a batch, so the parts may add up to more than the wall time),
    and the wall time itself."""
    spent, n = found["search_time_spent"], max(found["measured"], 1)
    parts = ("compile", "module_load", "reference", "check", "timing")
    split = {k: 1e3 * spent[f"{k}_seconds"] / n for k in parts}
    split["wall"] = 1e3 * found["seconds"] / n
    return split


def print_split(found: dict) -> None:
    spent, split = found["search_time_spent"], found["split_ms_per_schedule"]
    print(
        f"  {found['mode']} search: {found['measured']} schedules in {found['seconds']:.1f} s, "
        f"{found['schedules_per_s']:.2f} schedules/s ({found['rounds']} rounds)\n"
        f"  time (thread-seconds): compiling {spent['compile_seconds']:.1f} s "
        f"({spent['compiles']} kernels; of which loading them into the GPU driver "
        f"{spent['module_load_seconds']:.1f} s), reference {spent['reference_seconds']:.1f} s, "
        f"checking {spent['check_seconds']:.1f} s ({spent['checks']}), timing "
        f"{spent['timing_seconds']:.1f} s ({spent['timings']})\n"
        f"  per schedule: compile {split['compile']:.1f} ms (driver JIT "
        f"{split['module_load']:.1f}), reference {split['reference']:.1f}, check "
        f"{split['check']:.1f}, timing {split['timing']:.1f}; wall {split['wall']:.1f} ms"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=["cpu", "cuda", "all"], default="all")
    parser.add_argument("--log2-size", type=int, default=26)
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--repetitions", type=int, default=20)
    parser.add_argument("--vec-envs", type=int, default=4)
    parser.add_argument(
        "--throughput-steps", type=int, default=200, help="0 skips the measurements/s part"
    )
    parser.add_argument(
        "--min-gpu-threads",
        type=int,
        default=1 << 14,
        help="on the GPU, schedules on fewer threads are not measured: they cannot fill the "
        "device (an H100 holds 132 x 2048 threads) and one of them walking 2^26 elements "
        "takes seconds per run",
    )
    parser.add_argument(
        "--max-search-seconds",
        type=float,
        help="stop each search after this wall time (a lent machine's command has a limit)",
    )
    parser.add_argument(
        "--sequential",
        action="store_true",
        help="measure each round's neighbours one fork at a time (the search before batching, "
        "for a comparison)",
    )
    parser.add_argument(
        "--timing-budget",
        type=float,
        help="seconds of timed runs per schedule during the search (default: the env's, 1 s)",
    )
    parser.add_argument(
        "--ptxas",
        default="",
        help="assemble CUDA kernels with this ptxas ('auto': the one on PATH or in "
        "/usr/local/cuda/bin) before the driver loads them; default: the driver's JIT",
    )
    parser.add_argument("--out", help="write the results as JSON here")
    args = parser.parse_args(argv)
    if args.ptxas == "auto":
        args.ptxas = shutil.which("ptxas") or shutil.which("ptxas", path="/usr/local/cuda/bin")
        if not args.ptxas:
            parser.error("--ptxas auto: no ptxas on PATH or in /usr/local/cuda/bin")
    available = devices()
    wanted = ["cpu", "cuda"] if args.device == "all" else [args.device]
    n = 1 << args.log2_size
    results = {}
    for device in wanted:
        if available[device]:
            print(f"{device}: skipped ({available[device]})")
            continue
        peak = copy_bandwidth(device, n * 4)
        print(f"{device}: copy peak {peak:.1f} GB/s", flush=True)
        found = search(
            device,
            str(n),
            args.budget,
            args.repetitions,
            max_seconds=args.max_search_seconds,
            min_threads=args.min_gpu_threads if device == "cuda" else 1,
            sequential=args.sequential,
            timing_budget=args.timing_budget,
            ptxas=args.ptxas if device == "cuda" else "",
        )
        row = {
            "log2_size": args.log2_size,
            "timing_budget_s": args.timing_budget,
            "ptxas": bool(args.ptxas) and device == "cuda",
            "copy_peak_gbps": peak,
            **found,
            "share_of_peak": found["best_bandwidth_gbps"] / peak,
        }
        if device == "cpu":
            row["numpy_add_gbps"] = numpy_add_gbps(n, args.repetitions)
            row["share_of_numpy"] = found["best_bandwidth_gbps"] / row["numpy_add_gbps"]
        if args.throughput_steps > 0:
            row["throughput"] = throughput(device, args.vec_envs, args.throughput_steps)
        results[device] = row
        print(
            f"{device}: N=2^{args.log2_size} copy peak {peak:.1f} GB/s; best of "
            f"{found['measured']} schedules {found['best_bandwidth_gbps']:.1f} GB/s "
            f"({100 * row['share_of_peak']:.1f}% of peak) in {found['seconds']:.0f} s "
            f"(initial schedule {found['initial_bandwidth_gbps']:.1f} GB/s)"
        )
        if "numpy_add_gbps" in row:
            print(
                f"  NumPy add {row['numpy_add_gbps']:.1f} GB/s: {100 * row['share_of_numpy']:.1f}%"
            )
        print_split(found)
        t = row.get("throughput", {})
        if t:
            print(
                f"  measurements/s: one env {t['single_per_s']:.1f}, make_vec x{t['num_envs']} "
                f"{t['vec_per_s']:.1f}"
            )
        for label, s in (("one env", t.get("single_spent")), ("make_vec", t.get("vec_spent"))):
            if s is None:
                continue
            kernels = max(s["compiles"], 1)
            print(
                f"    {label}, per kernel: compile {1e3 * s['compile_seconds'] / kernels:.1f} ms "
                f"(of which loading {1e3 * s['module_load_seconds'] / kernels:.1f} ms), check "
                f"{1e3 * s['check_seconds'] / max(s['checks'], 1):.1f} ms, timing "
                f"{1e3 * s['timing_seconds'] / max(s['timings'], 1):.1f} ms (thread-seconds)"
            )
        print("  best loop tree:\n    " + found["best_loop_tree"].replace("\n", "\n    "))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
