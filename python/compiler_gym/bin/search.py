"""Search baselines from the command line: the best state per benchmark, as a CSV that
``compiler_gym.bin.validate`` replays, and a plot of each search's progress.

    python -m compiler_gym.bin.search --search greedy --env llvm-ic-v0 \\
        --benchmark builtin-v0/qsort --output results.csv --plot progress.png
    python -m compiler_gym.bin.search --search random --dataset builtin-v0 --episodes 200

``--search random`` is CompilerGym's random search (episodes of random actions that end after
``--patience`` steps without improvement; ``--num-envs`` of them side by side in one vector
engine; a budget of ``--episodes`` and/or ``--runtime`` seconds per benchmark). ``--search
greedy`` is CompilerGym's leaderboard greedy on ``env.try_actions``. ``--search nevergrad``
searches sequences of ``--episode-length`` actions with a nevergrad ``--optimizer`` for
``--budget`` trials or ``--runtime`` seconds. ``python -m compiler_gym.bin.random_search`` and
``python -m compiler_gym.bin.greedy`` (CompilerGym's tool names) are this tool with
``--search`` set, taking CompilerGym's flags too (``--nproc``, ``--output_dir``: the best
actions, their replay and, for LLVM, ``optimized.bc`` per search). Rewards are the env's
reward space (``--reward`` to choose another). Prints one line per benchmark and a summary.

``--ray-address`` runs the searches on a Ray cluster (``auto``: the one ``ray start`` made on
this machine; ``local``: a Ray of this machine's own) with the same results: one task per
benchmark (``--ray-split programs``, the default for several benchmarks, any search), or one
search split over ``--ray-workers`` actors (``--ray-split search``, the default for one
benchmark: greedy's candidate evaluations, random search's episodes). Benchmarks are prepared
here and shipped through Ray's object store (see ``compiler_gym.search.distributed``).
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from tqdm import tqdm

import compiler_gym
from compiler_gym.compiler_env_state import CompilerEnvState, CompilerEnvStateWriter
from compiler_gym.datasets import BenchmarkUri
from compiler_gym.search import greedy_search, nevergrad_search, random_search
from compiler_gym.util.cli import user_errors
from compiler_gym.util.statistics import geometric_mean


def _greedy(
    args, benchmark: str, try_actions=None
) -> tuple[CompilerEnvState, list[tuple[float, float]], list[int]]:
    """The greedy search, its progress as (seconds, reward so far) after each step, and its
    actions."""
    with compiler_gym.make(
        args.env, benchmark=benchmark, reward_space=args.reward or "default"
    ) as env:
        env.reset()
        start = time.perf_counter()
        history = [(0.0, 0.0)]

        def record(env) -> None:
            history.append((time.perf_counter() - start, env.episode_reward))

        state = greedy_search(env, callback=record, try_actions=try_actions)
        return state, history, env.actions


def _run(
    search, args, benchmark, **kwargs
) -> tuple[CompilerEnvState, list[tuple[float, float]], list[int]]:
    """A search that counts its progress (random, nevergrad), on the arguments they share: its
    best state, its progress as (seconds, best reward) at each improvement, and its best
    actions."""
    state, progress = search(
        args.env,
        benchmark,
        reward_space=args.reward,
        runtime=args.runtime,
        num_envs=args.num_envs,
        num_threads=args.num_threads,
        seed=args.seed,
        **kwargs,
    )
    history = [(seconds, reward) for seconds, _, reward in progress.history]
    return state, history, progress.best_actions


def _random(args, benchmark: str, search=random_search, **ray_kwargs):
    return _run(
        search, args, benchmark, patience=args.patience, episodes=args.episodes, **ray_kwargs
    )


def _nevergrad(args, benchmark: str):
    return _run(
        nevergrad_search,
        args,
        benchmark,
        episode_length=args.episode_length,
        budget=args.budget,
        optimizer=args.optimizer,
    )


def _ray_results(args, benchmarks: list[str], search) -> Iterator[tuple]:
    """(benchmark, state, history, actions) per benchmark, in order, from the Ray cluster."""
    from compiler_gym.search import distributed

    distributed.init(args.ray_address)
    split = args.ray_split
    if split == "auto":
        split = "programs" if len(benchmarks) > 1 or args.search == "nevergrad" else "search"
    if split == "programs":
        if not args.num_threads:  # a task's engine on the CPUs Ray gave it
            args.num_threads = max(1, int(args.ray_cpus))
        tasks = distributed.map_benchmarks(
            functools.partial(search, args), args.env, benchmarks, cpus_per_task=args.ray_cpus
        )
        finished: dict[int, tuple] = {}
        written = 0
        for i, result in tasks:  # in the order of the benchmarks, each as soon as it can be
            finished[i] = result
            while written in finished:
                yield benchmarks[written], *finished.pop(written)
                written += 1
        return
    for benchmark in benchmarks:
        ref = distributed.put_benchmark(args.env, benchmark)
        if args.search == "greedy":
            # Its actors end before the result goes out: a caller that stops here holds none.
            with distributed.RayTryActions(
                args.env, ref, args.reward, args.ray_workers, args.ray_cpus
            ) as try_actions:
                result = _greedy(args, benchmark, try_actions=try_actions)
        else:
            result = _random(
                args,
                ref,
                search=distributed.ray_random_search,
                num_workers=args.ray_workers,
                cpus_per_worker=args.ray_cpus,
            )
        yield benchmark, *result


def _write_logs(args, benchmark: str, actions: list[int], history, several: bool) -> None:
    """CompilerGym's random search logs of one search, from its best actions replayed."""
    from compiler_gym.random_search import write_search_logs

    outdir = Path(args.output_dir)
    if several:
        outdir /= BenchmarkUri.from_string(benchmark).path.replace("/", "_")
    with compiler_gym.make(
        args.env, benchmark=benchmark, reward_space=args.reward or "default"
    ) as env:
        settings = {"search": args.search, "patience": args.patience, "runtime": args.runtime}
        write_search_logs(outdir, env, actions, history, settings)


def _plot(path: str, histories: dict[str, list[tuple[float, float]]], title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    for benchmark, history in histories.items():
        seconds, rewards = zip(*history, strict=True) if history else ((), ())
        ax.step(seconds, rewards, where="post", label=benchmark.split("/")[-1])
    ax.set_xlabel("seconds")
    ax.set_ylabel("best episode reward")
    ax.set_title(title)
    if len(histories) <= 12:
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


@user_errors
def main(argv=None) -> int:
    """Runs the tool on ``argv`` (default: the command line): searches each benchmark, writes the
    best states as CSV and, with ``--plot``, the progress plot; returns 0, or 2 on bad arguments."""
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--search", choices=["greedy", "random", "nevergrad"], default="greedy")
    parser.add_argument("--env", default="llvm-ic-v0", help="environment id (default llvm-ic-v0)")
    parser.add_argument("--benchmark", action="append", default=[], help="a benchmark (repeat)")
    parser.add_argument("--dataset", help="every benchmark of a finite dataset, e.g. builtin-v0")
    parser.add_argument("--reward", help="reward space (default: the env's)")
    parser.add_argument("--patience", type=int, default=25, help="random: steps without gain")
    parser.add_argument("--episodes", type=int, help="random: episodes per benchmark")
    parser.add_argument("--runtime", type=float, help="random, nevergrad: seconds per benchmark")
    parser.add_argument("--budget", type=int, default=1000, help="nevergrad: trials")
    parser.add_argument("--episode-length", type=int, default=30, help="nevergrad: actions")
    parser.add_argument("--optimizer", default="DiscreteLenglerOnePlusOne", help="nevergrad's")
    parser.add_argument(
        "--num-envs",
        "--nproc",
        type=int,
        default=8,
        help="episodes side by side (CompilerGym's --nproc)",
    )
    parser.add_argument("--num-threads", type=int, default=0, help="engine threads (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ray-address", help="run on Ray: auto, local or host:port")
    parser.add_argument(
        "--ray-split",
        choices=["auto", "programs", "search"],
        default="auto",
        help="a Ray task per benchmark, or each search over --ray-workers actors",
    )
    parser.add_argument("--ray-workers", type=int, help="actors per search (default: all CPUs)")
    parser.add_argument("--ray-cpus", type=float, default=1, help="CPUs per Ray task or actor")
    parser.add_argument("--output", help="results CSV of the best states (default: stdout)")
    parser.add_argument("--plot", help="PNG of each search's best reward over time")
    parser.add_argument(
        "--output-dir",
        "--output_dir",
        help="CompilerGym's log files of each search here (in a folder per benchmark when "
        "there are several): the best actions, their replay, optimized.bc for LLVM",
    )
    args = parser.parse_args(argv)
    if args.search == "random" and args.episodes is None and args.runtime is None:
        args.episodes = 100

    try:
        with compiler_gym.make(args.env) as env:
            benchmarks = [str(env.datasets.benchmark(b).uri) for b in args.benchmark]
            if args.dataset:
                dataset = env.datasets[args.dataset]
                if dataset.size == 0:
                    raise ValueError(f"{args.dataset} is infinite: give --benchmark instead")
                benchmarks += list(dataset.benchmark_uris())
            if not benchmarks:
                benchmarks = [str(env.benchmark.uri)]
            if (args.reward or env.reward_space) is None:
                raise ValueError(f"{args.env} has no reward space: give --reward")
            if args.ray_address:
                if args.ray_split == "search" and args.search == "nevergrad":
                    raise ValueError("--ray-split search splits greedy and random searches")
                from compiler_gym.search.distributed import require_ray

                require_ray()
    except (ImportError, LookupError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    search = {"greedy": _greedy, "random": _random, "nevergrad": _nevergrad}[args.search]
    if args.ray_address:
        results = _ray_results(args, benchmarks, search)
    else:
        results = ((benchmark, *search(args, benchmark)) for benchmark in benchmarks)
    histories = {}
    out = open(args.output, "w") if args.output else sys.stdout  # noqa: SIM115
    try:
        with CompilerEnvStateWriter(out) as writer:
            progress = tqdm(
                results, total=len(benchmarks), desc=f"{args.search} search", disable=None
            )
            for benchmark, state, history, actions in progress:
                histories[benchmark] = history
                writer.write_state(state, flush=True)
                if args.output_dir:
                    _write_logs(args, benchmark, actions, history, several=len(benchmarks) > 1)
                if args.output:
                    tqdm.write(f"{benchmark}  reward {state.reward:.4f}  {state.walltime:.1f} s")
    finally:
        if args.output:
            out.close()
    if args.plot:
        _plot(args.plot, histories, f"{args.search} search on {args.env}")
    rewards = [h[-1][1] for h in histories.values() if h]
    if args.output and rewards:
        geomean = geometric_mean(rewards)
        print(f"geomean reward {geomean:.4f} over {len(rewards)} benchmarks; wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
