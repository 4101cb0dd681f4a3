"""Search baselines from the command line: the best state per benchmark, as a CSV that
``compiler_gym.bin.validate`` replays, and a plot of each search's progress.

    python -m compiler_gym.bin.search --search greedy --env llvm-ic-v0 \\
        --benchmark builtin-v0/qsort --output results.csv --plot progress.png
    python -m compiler_gym.bin.search --search random --dataset builtin-v0 --episodes 200
    python -m compiler_gym.bin.search --benchmark prog.c --runtime 60    # a file of yours
    python -m compiler_gym.bin.search --benchmark-command "gcc -DN=8 -Iinc main.c util.c -lm"

A ``--benchmark`` is a URI of the env's datasets or the path of a program file (``.c .cc .cpp
.cxx .ll .bc``), searched as its ``file://`` URI, which the results CSV names and
``compiler_gym.bin.validate`` resolves. ``--benchmark-command`` is the command line that
builds a program (``make_benchmark_from_command_line``: its sources and flags, compiled with
clang-19), made into a ``benchmark://user-v0/<hash>`` benchmark in memory: the CSV names that
URI, so its states replay in Python on the benchmark made again from the same command.

``--search random`` is CompilerGym's random search (episodes of random actions that end after
``--patience`` steps without improvement or ``--max-episode-length`` steps; ``--num-envs`` of
them side by side in one vector engine). ``--search greedy`` is CompilerGym's leaderboard
greedy on ``env.try_actions``. ``--search nevergrad`` searches sequences of
``--episode-length`` actions with a nevergrad ``--optimizer``. The budget per benchmark, as
in every search (``docs/search.md``): ``--runtime`` seconds (all in: a round that would end
later is cut short), with ``--episodes`` (random) or ``--budget`` trials (nevergrad),
whichever runs out first; a runtime alone is a time budget, neither is 100 episodes or 1000
trials.
``python -m compiler_gym.bin.random_search`` and ``python -m compiler_gym.bin.greedy`` are
this tool with ``--search`` set, offering only that search's options. CompilerGym's flags work
too (``--nproc``, ``--output_dir``: the best actions, their replay and, for LLVM,
``optimized.bc`` per search). Rewards are the env's reward space (``--reward`` to choose
another). With ``--output``, prints one line per benchmark and a summary; on a terminal, progress
bars (``--quiet``: none).

``--validate`` (the default for runnable benchmarks of a family that can check them, LLVM's;
``--no-validate`` to turn it off) makes every search take a candidate as its best only once
the program runs like its unoptimized build (``--sanitizer address``/``undefined`` for a
stricter check), so a state that breaks the program cannot win; each benchmark's line says
how many candidates were refused and the time spent checking, and a last line on stderr
sums them (``compiler_gym.search.checking``). A program that cannot run in the sandbox (its
unoptimized build exits non-zero or crashes there) cannot be validated: the search warns and
goes on unvalidated, and its line says why (``--on-unrunnable raise``: an error instead).

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
from typing import Optional, Union

from tqdm import tqdm

import compiler_gym
from compiler_gym.compiler_env_state import CompilerEnvState, CompilerEnvStateWriter
from compiler_gym.datasets import Benchmark, BenchmarkUri
from compiler_gym.datasets.make_benchmark import make_benchmark_from_command_line
from compiler_gym.datasets.user import PROGRAM_SUFFIXES
from compiler_gym.search import SearchProgress, greedy_search, nevergrad_search, random_search
from compiler_gym.util import cli
from compiler_gym.util.cli import argument_parser, parse_args, user_errors
from compiler_gym.util.statistics import geometric_mean


def _greedy(
    args, benchmark: Union[str, Benchmark], try_actions=None
) -> tuple[CompilerEnvState, list[tuple[float, float]], list[int], SearchProgress]:
    """The greedy search, its progress as (seconds, reward so far) after each step, its
    actions and its :class:`SearchProgress` (the candidates refused, the time checking)."""
    with compiler_gym.make(
        args.env, benchmark=benchmark, reward_space=args.reward or "default"
    ) as env:
        env.reset()
        start = time.perf_counter()
        history = [(0.0, 0.0)]

        def record(env) -> None:
            history.append((time.perf_counter() - start, env.episode_reward))

        progress = SearchProgress()
        state = greedy_search(
            env,
            callback=record,
            try_actions=try_actions,
            runtime=args.runtime,
            validate=args.validate,
            sanitizers=args.sanitizer,
            progress=progress,
            on_unrunnable=args.on_unrunnable,
        )
        return state, history, env.actions, progress


def _run(
    search, args, benchmark, **kwargs
) -> tuple[CompilerEnvState, list[tuple[float, float]], list[int], SearchProgress]:
    """A search that counts its progress (random, nevergrad), on the arguments they share: its
    best state, its progress as (seconds, best reward) at each improvement, its best actions
    and its :class:`SearchProgress`."""
    state, progress = search(
        args.env,
        benchmark,
        reward_space=args.reward,
        runtime=args.runtime,
        num_envs=args.num_envs,
        num_threads=args.num_threads,
        seed=args.seed,
        validate=args.validate,
        sanitizers=args.sanitizer,
        on_unrunnable=args.on_unrunnable,
        **kwargs,
    )
    history = [(seconds, reward) for seconds, _, reward in progress.history]
    return state, history, progress.best_actions, progress


def _random(args, benchmark: Union[str, Benchmark], search=random_search, **ray_kwargs):
    return _run(
        search,
        args,
        benchmark,
        patience=args.patience,
        episodes=args.episodes,
        max_episode_length=args.max_episode_length,
        **ray_kwargs,
    )


def _nevergrad(args, benchmark: Union[str, Benchmark]):
    return _run(
        nevergrad_search,
        args,
        benchmark,
        episode_length=args.episode_length,
        budget=args.budget,
        optimizer=args.optimizer,
    )


def _ray_results(args, benchmarks: list[str], search) -> Iterator[tuple]:
    """(benchmark, state, history, actions, progress) per benchmark, in order, from the Ray
    cluster."""
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


def _write_logs(
    args, benchmark: Union[str, Benchmark], actions: list[int], history, several: bool
) -> None:
    """CompilerGym's random search logs of one search, from its best actions replayed."""
    from compiler_gym.random_search import write_search_logs

    outdir = Path(args.output_dir)
    if several:
        outdir /= BenchmarkUri.from_string(str(benchmark)).name.replace("/", "_")
    with compiler_gym.make(
        args.env, benchmark=benchmark, reward_space=args.reward or "default"
    ) as env:
        settings = {"search": args.search, "patience": args.patience, "runtime": args.runtime}
        write_search_logs(outdir, env, actions, history, settings)


def _benchmark_uri(env, name: str) -> str:
    """A ``--benchmark`` as a URI of ``env``'s datasets: the path of a program file as its
    ``file://`` URI (which states name and ``validate`` resolves, unlike a benchmark made in
    memory)."""
    path = Path(name).expanduser()
    if "://" not in name and path.suffix in PROGRAM_SUFFIXES and path.is_file():
        name = f"file://{path.resolve()}"
    return str(env.datasets.benchmark(name).uri)


def _plot(path: str, histories: dict[str, list[tuple[float, float]]], title: str) -> None:
    """Each search's best reward over time, a line per benchmark, named in a legend beside
    the axes (in columns of at most 18 names: builtin-v0's 26 take two)."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    columns = max(1, -(-len(histories) // 18))
    fig, ax = plt.subplots(figsize=(8 + 2 * columns, 5))
    for benchmark, history in histories.items():
        seconds, rewards = zip(*history, strict=True) if history else ((), ())
        ax.step(seconds, rewards, where="post", label=benchmark.split("/")[-1])
    ax.set_xlabel("seconds")
    ax.set_ylabel("best episode reward")
    ax.set_title(title)
    if histories:
        ax.legend(
            title="benchmark",
            fontsize="small",
            ncols=columns,
            loc="upper left",
            bbox_to_anchor=(1.01, 1.0),
        )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


#: The searches of ``--search``, each with the options only it reads.
SEARCHES = ("greedy", "random", "nevergrad")


def make_parser(module: str, doc: str, search: Optional[str] = None) -> argparse.ArgumentParser:
    """The options of the tool of ``module`` (its ``--help`` is ``doc``): with ``search``
    set (``greedy``, ``random``), the tool that runs only that search, offering only the
    options it reads (the others keep their defaults); else ``--search`` chooses."""
    parser = argument_parser(module, doc)

    def offered(*searches: str) -> bool:
        return search is None or search in searches

    if search is None:
        parser.add_argument(
            "--search",
            choices=SEARCHES,
            default="greedy",
            help="the search to run on each benchmark (default greedy)",
        )
    else:
        parser.set_defaults(search=search)
    parser.add_argument("--env", default="llvm-ic-v0", help="environment id (default llvm-ic-v0)")
    parser.add_argument(
        "--benchmark",
        action="append",
        default=[],
        help="a benchmark URI or the path of a program file to search (repeat for several; "
        "default: the env's benchmark)",
    )
    parser.add_argument(
        "--benchmark-command",
        action="append",
        default=[],
        help='a command line that builds a program to search, e.g. "gcc -DN=8 main.c" '
        "(repeat for several)",
    )
    parser.add_argument(
        "--dataset", help="search every benchmark of a finite dataset, e.g. builtin-v0"
    )
    parser.add_argument("--reward", help="the reward space to maximize (default: the env's)")
    parser.add_argument(
        "--runtime",
        type=float,
        help="the seconds each benchmark's search may take (default: no time limit)",
    )
    if not offered("random"):
        parser.set_defaults(patience=None, episodes=None, max_episode_length=None)
    if not offered("nevergrad"):
        parser.set_defaults(budget=None, episode_length=None, optimizer=None)
    if not offered("random", "nevergrad"):
        parser.set_defaults(num_envs=8, num_threads=0, seed=0)
    if offered("random"):
        parser.add_argument(
            "--patience",
            type=int,
            default=25,
            help="random search: end an episode after this many steps without improvement "
            "(default 25; 0: the number of actions)",
        )
        parser.add_argument(
            "--episodes",
            type=int,
            help="random search: episodes per benchmark (default 100, or no limit with --runtime)",
        )
        parser.add_argument(
            "--max-episode-length",
            type=int,
            help="random search: the most steps of an episode (default: twice the number of "
            "actions or of --patience, whichever is more)",
        )
    if offered("nevergrad"):
        parser.add_argument(
            "--budget",
            type=int,
            help="nevergrad search: trials per benchmark (default 1000, or no limit with "
            "--runtime)",
        )
        parser.add_argument(
            "--episode-length",
            type=int,
            default=30,
            help="nevergrad search: the actions of each trial (default 30)",
        )
        parser.add_argument(
            "--optimizer",
            default="DiscreteLenglerOnePlusOne",
            help="nevergrad search: the nevergrad optimizer (default DiscreteLenglerOnePlusOne)",
        )
    if offered("random", "nevergrad"):
        parser.add_argument(
            "--num-envs",
            "--nproc",
            type=int,
            default=8,
            help="episodes or trials run side by side in one vector engine (default 8; "
            "CompilerGym's --nproc)",
        )
        parser.add_argument(
            "--num-threads",
            type=int,
            default=0,
            help="threads of that engine (default 0: one per core)",
        )
        parser.add_argument(
            "--seed", type=int, default=0, help="seed of the random choices (default 0)"
        )
    parser.add_argument(
        "--validate",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="take a candidate only once its program runs like the unoptimized one (default: "
        "on for runnable benchmarks of a family that can check them, LLVM's)",
    )
    parser.add_argument(
        "--sanitizer",
        action="append",
        default=[],
        choices=["address", "undefined"],
        help="validate under this sanitizer's build too (repeat for both)",
    )
    parser.add_argument(
        "--on-unrunnable",
        choices=["warn", "raise"],
        default="warn",
        help="where a program cannot run in the sandbox, so cannot be validated: warn and "
        "search unvalidated (default), or stop with an error",
    )
    parser.add_argument(
        "--ray-address",
        help="run the searches on Ray: auto (the cluster of this machine), local (a Ray of "
        "this process's own) or host:port",
    )
    parser.add_argument(
        "--ray-split",
        choices=["auto", "programs", "search"],
        default="auto",
        help="a Ray task per benchmark (programs), or each search split over --ray-workers "
        "actors (search); default auto: programs for several benchmarks, else search",
    )
    parser.add_argument(
        "--ray-workers", type=int, help="Ray actors per search (default: all the CPUs)"
    )
    parser.add_argument(
        "--ray-cpus", type=float, default=1, help="CPUs per Ray task or actor (default 1)"
    )
    parser.add_argument(
        "--output", help="write the best states to this CSV file (default: standard output)"
    )
    parser.add_argument("--plot", help="draw each search's best reward over time to this PNG")
    parser.add_argument(
        "--output-dir",
        "--output_dir",
        help="write CompilerGym's log files of each search here (in a folder per benchmark "
        "when there are several): the best actions, their replay, optimized.bc for LLVM",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress bars (none either off a terminal)"
    )
    return parser


@user_errors
def main(argv=None) -> int:
    """Runs the tool on ``argv`` (default: the command line): searches each benchmark, writes the
    best states as CSV and, with ``--plot``, the progress plot; returns 0, or 2 on bad arguments."""
    return run(make_parser("compiler_gym.bin.search", __doc__), argv)


def run(parser: argparse.ArgumentParser, argv=None) -> int:
    """The tool with the options of ``parser`` (:func:`make_parser`), on ``argv``."""
    args = parse_args(parser, argv)
    cli.QUIET = args.quiet

    try:
        with compiler_gym.make(args.env) as env:
            cli.check_spaces(env, reward=args.reward)
            benchmarks: list[Union[str, Benchmark]] = [
                _benchmark_uri(env, b) for b in args.benchmark
            ]
            benchmarks += [make_benchmark_from_command_line(c) for c in args.benchmark_command]
            if args.dataset:
                dataset = cli.check_dataset(env, args.dataset)
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
    except (ImportError, LookupError, ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    search = {"greedy": _greedy, "random": _random, "nevergrad": _nevergrad}[args.search]
    if args.ray_address:
        results = _ray_results(args, benchmarks, search)
    else:
        results = ((benchmark, *search(args, benchmark)) for benchmark in benchmarks)
    histories = {}
    refused, checking, validated = 0, 0.0, 0
    # The writer is not a context manager here: it would close standard output.
    out = open(args.output, "w") if args.output else sys.stdout  # noqa: SIM115
    try:
        writer = CompilerEnvStateWriter(out)
        progress = cli.progress(
            results, total=len(benchmarks), desc=f"{args.search} search", unit="benchmark"
        )
        for benchmark, state, history, actions, search_progress in progress:
            histories[str(benchmark)] = history
            rewards = [h[-1][1] for h in histories.values() if h]
            # Shown with the count, which tqdm advances when the next result is asked for.
            progress.set_postfix(geomean=f"{geometric_mean(rewards):.4f}", refresh=False)
            writer.write_state(state, flush=True)
            if args.output_dir:
                _write_logs(args, benchmark, actions, history, several=len(benchmarks) > 1)
            refused += search_progress.refused
            checking += search_progress.check_seconds
            validated += search_progress.validated
            if args.output:
                checked = (
                    f"  refused {search_progress.refused}, checking "
                    f"{search_progress.check_seconds:.1f} s"
                    if search_progress.validated
                    else "  not validated"
                    + (
                        f" ({search_progress.validation})"
                        if search_progress.validation.startswith("unavailable")
                        else ""
                    )
                )
                tqdm.write(
                    f"{benchmark}  reward {state.reward:.4f}  {state.walltime:.1f} s{checked}"
                )
    finally:
        if args.output:
            out.close()
    if args.plot:
        _plot(args.plot, histories, f"{args.search} search on {args.env}")
    rewards = [h[-1][1] for h in histories.values() if h]
    if args.output and rewards:
        geomean = geometric_mean(rewards)
        print(f"geomean reward {geomean:.4f} over {len(rewards)} benchmarks; wrote {args.output}")
    # On stderr: stdout may be the results CSV.
    print(
        f"validated {validated} of {len(histories)} searches: {refused} candidates refused, "
        f"{checking:.1f} s checking",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
