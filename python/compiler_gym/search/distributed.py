"""Search on a Ray cluster: programs, greedy candidates and random episodes spread over nodes,
with exactly the results of the local search.

    from compiler_gym.search import distributed, greedy_search

    distributed.init("auto")                                  # the cluster `ray start` joined
    ref = distributed.put_benchmark("llvm-ic-v0", "builtin-v0/qsort")
    with distributed.RayTryActions("llvm-ic-v0", ref, num_workers=8) as try_actions:
        state = greedy_search(env, try_actions=try_actions)   # env on that benchmark
    state, progress = distributed.ray_random_search("llvm-ic-v0", ref, episodes=1000)
    for i, result in distributed.map_benchmarks(my_search, "llvm-ic-v0", uris): ...

Three ways to spread a search:

- :func:`map_benchmarks`: one Ray task per program (any search function), for datasets.
- :class:`RayTryActions`: greedy's candidate evaluations of one program split over actors,
  each holding an engine at greedy's current state (``greedy_search(try_actions=...)``).
- :func:`ray_random_search`: the random search's env slots split over actors. A slot's
  episodes depend only on the seed and the slot (:class:`RandomEpisodes`), so the episodes,
  their order and the best state are those of :func:`random_search` with the same arguments.

Benchmarks are prepared once, on the driver (:func:`prepare_benchmark`: the program's
normalized bitcode, its hash and its O0/O3/Oz instruction counts) and shared through Ray's
object store: a node fetches the object once and never needs the dataset or runs clang.

Faults: an actor whose process or node dies restarts (elsewhere if its node is gone), and
the driver sends it again the call it did not answer, once it is back: every call carries the
state it starts from (greedy's actions so far, a random worker's checkpoint), so a restarted
actor rebuilds that state by replaying actions and answers what the lost one would have. A
call is sent at most :data:`CALL_ATTEMPTS` times: one that ends its actor's process each time
raises :class:`WorkerCrashError` instead of restarting it forever. Tasks of
:func:`map_benchmarks` rerun when their worker or node dies; finished results stay with the
driver. Requires ``ray`` (``pip install compiler_gym[ray]``), imported on first use.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Optional, Union

import numpy as np

from compiler_gym._engine import _C
from compiler_gym.compiler_env_state import CompilerEnvState
from compiler_gym.datasets import Benchmark
from compiler_gym.search.checking import search_checker
from compiler_gym.search.random_search import (
    DEFAULT_EPISODES,
    RandomEpisodes,
    SearchProgress,
    SearchRun,
    check_budget,
    random_search,
    search_budget,
    search_defaults,
    search_target,
)

#: Instruction-count baselines a prepared LLVM benchmark carries.
BASELINES = ("IrInstructionCountO0", "IrInstructionCountO3", "IrInstructionCountOz")

#: How many times a search sends one call to its actor: a call whose actor dies is sent again
#: once the actor is back, and one that ends its actor's process every time (a crash in the
#: engine, the OOM killer) stops the search after this many tries.
CALL_ATTEMPTS = 3


class WorkerCrashError(RuntimeError):
    """A search's call to one of its Ray actors ended the actor's process on each of its
    :data:`CALL_ATTEMPTS` tries (each on a restart of the actor); the last failure is the
    cause."""


def require_ray() -> Any:
    """The ``ray`` module, or an ImportError that says how to install it."""
    try:
        import ray
    except ImportError as e:
        raise ImportError(
            "distributed search needs Ray: pip install 'compiler_gym[ray]' (or ray[default])"
        ) from e
    return ray


def init(address: Optional[str] = None, **kwargs: Any) -> None:
    """Connects this process to Ray, once: ``address`` is a cluster's (``"auto"``: the one
    ``ray start`` started or joined on this machine; ``"host:6379"``), or None or ``"local"``
    for a new single-machine Ray. A new one starts without the dashboard; ``kwargs`` go to
    ``ray.init`` (``num_cpus``, ``object_store_memory``, ...)."""
    ray = require_ray()
    if ray.is_initialized():
        return
    if address in (None, "local"):
        kwargs.setdefault("include_dashboard", False)
        ray.init(**kwargs)
    else:
        ray.init(address=address, **kwargs)


@dataclass(frozen=True)
class PreparedBenchmark:
    """A benchmark in the form any node can use as it is: for LLVM, the program's normalized
    bitcode in memory (what the engine's benchmark cache holds after loading it: no source
    files, no clang, no dataset needed), with how to build and run it, ``ir_sha1`` (the hash
    of the program before any action) and ``baselines`` (its instruction counts after
    ``default<O0>``, ``<O3>`` and ``<Oz>``, :data:`BASELINES`). Other families' benchmarks
    are kept by URI: their programs ship with the package (builtin data) or are generated."""

    uri: str
    benchmark: Optional[Benchmark] = None
    ir_sha1: str = ""
    baselines: dict[str, int] = field(default_factory=dict)

    def load(self) -> Union[Benchmark, str]:
        """What ``compiler_gym.make`` and ``make_vec`` take: the Benchmark, or the URI."""
        return self.benchmark if self.benchmark is not None else self.uri


def prepare_benchmark(env_id: str, benchmark: Any) -> PreparedBenchmark:
    """Loads ``benchmark`` (a URI, resolved by this machine's datasets, or a Benchmark) in an
    env of ``env_id`` and returns it prepared (:class:`PreparedBenchmark`); a benchmark
    prepared already is returned as it is."""
    from compiler_gym.registration import make

    if isinstance(benchmark, PreparedBenchmark):
        return benchmark
    family = _C.env_spec(env_id)["family"]
    with make(env_id) as env:
        resolved = (
            benchmark if isinstance(benchmark, Benchmark) else env.datasets.benchmark(benchmark)
        )
        uri = str(resolved.uri)
        if family != "llvm":
            return PreparedBenchmark(uri)
        env.reset(benchmark=resolved)
        baselines = {name: int(env.observation[name]) for name in BASELINES}
        prepared = Benchmark(
            uri,
            data=env.observation["Bitcode"],
            link_args=resolved.link_args,
            run_args=resolved.run_args,
            buildable=resolved.buildable,
            runnable=resolved.runnable,
            expected_output=resolved.expected_output,
            # "IrInstructionCountOz" -> "Oz/IrInstructionCount": nodes take the driver's
            # baselines instead of running the O0/O3/Oz pipelines again.
            known_costs={f"{n[-2:]}/{n[:-2]}": v for n, v in baselines.items()},
        )
        return PreparedBenchmark(uri, prepared, env.observation["IrSha1"], baselines)


def put_benchmark(env_id: str, benchmark: Any) -> Any:
    """Prepares ``benchmark`` (unless it is already) and puts it in Ray's object store;
    returns the reference, which tasks, actors and env configs take in place of the
    benchmark (keep it alive while they run: Ray drops the object with its last reference)."""
    return require_ray().put(prepare_benchmark(env_id, benchmark))


def put_benchmarks(env_id: str, benchmarks: Sequence[Any]) -> Any:
    """All ``benchmarks`` prepared, as one object-store reference to their list (an RLlib env
    config's ``benchmarks``)."""
    ray = require_ray()
    return ray.put([prepare_benchmark(env_id, b) for b in benchmarks])


# (uri, ir_sha1) of the prepared programs this process has checked.
_CHECKED: set[tuple[str, str]] = set()


def load_benchmark(benchmark: Any) -> Union[Benchmark, str]:
    """What a worker makes its env with, from a :class:`PreparedBenchmark` (checked, once per
    process, to load on this node's engine as the program the driver prepared), a Benchmark or
    a URI (as they are)."""
    if not isinstance(benchmark, PreparedBenchmark):
        return benchmark
    if benchmark.ir_sha1 and (benchmark.uri, benchmark.ir_sha1) not in _CHECKED:
        from compiler_gym.registration import make

        # A node with another engine build would search another program, and its results
        # would not reproduce on the driver: refuse instead.
        with make("llvm-v0", benchmark=benchmark.benchmark) as env:
            env.reset()
            sha1 = env.observation["IrSha1"]
        if sha1 != benchmark.ir_sha1:
            raise RuntimeError(
                f"{benchmark.uri}: this node's engine loads the prepared bitcode as {sha1}, "
                f"the driver's as {benchmark.ir_sha1}: install the same compiler_gym everywhere"
            )
        _CHECKED.add((benchmark.uri, benchmark.ir_sha1))
    return benchmark.load()


def _load_ref(boxed: list[Any]) -> Union[Benchmark, str]:
    """An actor's benchmark, sent with each call as ``[reference]`` (inside a list, Ray passes
    the reference, not the object): the actor fetches it on its first call, a restarted actor
    on the first call it answers, and no actor needs constructor arguments that a restart
    could find gone."""
    return load_benchmark(require_ray().get(boxed[0]))


def is_object_ref(value: Any) -> bool:
    """Whether ``value`` is a Ray object reference, without importing Ray (a process that
    holds a reference has imported it)."""
    ray = sys.modules.get("ray")
    return ray is not None and isinstance(value, ray.ObjectRef)


def _benchmark_ref(env_id: str, benchmark: Any) -> Any:
    """``benchmark`` as a reference to it prepared: as it is if it is one already."""
    return benchmark if is_object_ref(benchmark) else put_benchmark(env_id, benchmark)


@functools.cache
def _remote(target: Any) -> Any:
    """``ray.remote(target)``, made once per process (Ray exports each one it makes)."""
    return require_ray().remote(target)


def cluster_cpus() -> int:
    """The CPUs of the Ray cluster this process is connected to."""
    return int(require_ray().cluster_resources().get("CPU", 1))


def _run_on(fn: Callable[[Any], Any], benchmark: Any) -> Any:
    """The body of :func:`map_benchmarks`' tasks."""
    return fn(load_benchmark(benchmark))


def map_benchmarks(
    fn: Callable[[Union[Benchmark, str]], Any],
    env_id: str,
    benchmarks: Iterable[Union[str, Benchmark]],
    cpus_per_task: float = 1,
    max_retries: int = 3,
) -> Iterator[tuple[int, Any]]:
    """Runs ``fn(benchmark)`` for each benchmark as a Ray task, anywhere on the cluster, and
    yields ``(index, result)`` as each finishes. Each benchmark is prepared on this machine
    and shipped through the object store (``fn`` gets the prepared Benchmark, or the URI for
    families other than LLVM); ``fn`` must be picklable (a module's function, or a
    ``functools.partial`` of one). A task whose worker or node dies runs again, up to
    ``max_retries`` times; an exception that ``fn`` raises is raised here.

    Benchmarks are taken from ``benchmarks`` and prepared as the cluster frees CPUs for them
    (one ahead of those it can run at once), not all before the first task. When ``fn``
    raises, or the caller stops iterating, the tasks still pending are cancelled."""
    ray = require_ray()
    task = _remote(_run_on).options(
        num_cpus=cpus_per_task, max_retries=max_retries, retry_exceptions=False
    )
    # One more than the cluster runs at once: its first free CPU never waits on a prepare.
    ahead = max(1, int(cluster_cpus() // cpus_per_task)) + 1
    todo = enumerate(benchmarks)
    pending: dict[Any, int] = {}

    def submit(count: int) -> None:
        for i, benchmark in itertools.islice(todo, count):
            pending[task.remote(fn, put_benchmark(env_id, benchmark))] = i

    try:
        submit(ahead)
        while pending:
            (ref,), _ = ray.wait(list(pending), num_returns=1)
            i = pending.pop(ref)
            result = ray.get(ref)
            submit(1)  # before the caller takes its time with the result
            yield i, result
    finally:
        # Their results would go nowhere; force: a task in the engine does not see an interrupt.
        refs = list(pending)
        for ref in refs:
            ray.cancel(ref, force=True)
        if refs:
            # A cancel that reaches a task while Ray hands it to a worker can be lost (it then
            # runs to its end, holding its CPU): ask again of those not ended a moment later.
            _, running = ray.wait(refs, num_returns=len(refs), timeout=1.0)
            for ref in running:
                ray.cancel(ref, force=True)


def _num_workers(num_workers: Optional[int], cpus_per_worker: float, most: int = 0) -> int:
    """How many actors a search starts: ``num_workers``, or as many as the cluster's CPUs hold,
    and at most ``most`` (0: no limit); more than the CPUs hold would wait forever for a CPU (no
    autoscaler here)."""
    cpus = cluster_cpus()
    count = num_workers or max(1, int(cpus // cpus_per_worker))
    if most:
        count = min(count, most)
    if count * cpus_per_worker > cpus:
        raise ValueError(
            f"{count} workers of {cpus_per_worker} CPUs do not fit the cluster's {cpus} CPUs"
        )
    return count


def _actor_options(cpus: float) -> dict[str, Any]:
    # Restarted without limit (a lost node is survived however long Ray takes to notice it),
    # but Ray sends no call again by itself: _call_actors does, a bounded number of times.
    return {"num_cpus": cpus, "max_restarts": -1, "max_task_retries": 0}


def _wait_until_up(actor: Any) -> int:
    """The actor's process id, once it answers: a restarting actor (on a lost node, until Ray
    notices the node is gone and starts it elsewhere) is waited for, an ended one raises."""
    return require_ray().get(actor.pid.options(max_task_retries=-1).remote())


def _call_actors(calls: Sequence[tuple[Any, str, tuple]]) -> list[Any]:
    """The answers of ``calls`` ((actor, method name, arguments), made at once), in order.

    A call whose actor did not answer (its process or node died) is sent again once the actor
    is back; the wait does not count, each try does: a call that ends its actor's process on
    each of :data:`CALL_ATTEMPTS` tries raises :class:`WorkerCrashError`. Every call carries
    the state it starts from, so a try on a restarted actor answers what the first would
    have. An exception the method raises is raised here."""
    ray = require_ray()
    from ray.exceptions import RayActorError

    answers: list[Any] = [None] * len(calls)
    tries = [1] * len(calls)

    def send(i: int) -> Any:
        actor, method, args = calls[i]
        return getattr(actor, method).remote(*args)

    pending = {send(i): i for i in range(len(calls))}
    while pending:
        (ref,), _ = ray.wait(list(pending), num_returns=1)
        i = pending.pop(ref)
        try:
            answers[i] = ray.get(ref)
        except RayActorError as e:
            actor, method, _ = calls[i]
            if tries[i] >= CALL_ATTEMPTS:
                raise WorkerCrashError(
                    f"{method}() lost its Ray actor (its process ended or could not be reached) "
                    f"on each of {tries[i]} tries, each on a restart of the actor"
                ) from e
            _wait_until_up(actor)
            tries[i] += 1
            pending[send(i)] = i
    return answers


class _GreedyWorker:
    """An actor of :class:`RayTryActions`: one engine env on the benchmark, kept at greedy's
    current state."""

    def __init__(self, env_id, reward_space, action_space, num_threads):
        self.args = (env_id, reward_space, action_space, num_threads)
        self.vec = None
        self.actions: Optional[list[int]] = None  # None: no episode yet

    def pid(self) -> int:
        import os

        return os.getpid()

    def try_actions(self, benchmark: list[Any], prefix: list[int], candidates: list[int]):
        if self.vec is None:
            from compiler_gym.vector import make_vec

            env_id, reward_space, action_space, num_threads = self.args
            self.vec = make_vec(
                env_id,
                1,
                num_threads=num_threads,
                benchmarks=[_load_ref(benchmark)],
                observation_space=None,
                reward_space=reward_space,
                action_space=action_space,
                array_type="numpy",
            )
        if self.actions is None or self.actions != prefix[: len(self.actions)]:
            self.vec.reset()
            self.actions = []
        for action in prefix[len(self.actions) :]:
            _, _, terminated, _, info = self.vec.step(np.array([action]))
            if terminated[0]:
                self.actions = None
                raise RuntimeError(f"action {action} failed on replay: {info['error_details'][0]}")
            self.actions.append(action)
        return self.vec.try_actions([candidates])[0]


class RayTryActions:
    """Greedy's candidate evaluations spread over ``num_workers`` Ray actors (default: one per
    CPU of the cluster), for ``greedy_search(env, try_actions=...)``.

    Each actor holds an engine env on the benchmark and follows the search's state: a call
    sends the env's actions so far, which the actor applies (only the new ones, normally),
    then it tries its share of the candidates with the engine's ``try_actions``. The rewards
    are the ones ``env.try_actions`` gives, so the search takes the same steps as on one
    machine. ``benchmark`` is a URI or Benchmark (prepared here) or what
    :func:`put_benchmark` returned; ``env`` must be on that benchmark, with ``reward_space``
    (default: the env id's) and the id's default action space or ``action_space``.
    """

    def __init__(
        self,
        env_id: str,
        benchmark: Any,
        reward_space: Optional[str] = None,
        num_workers: Optional[int] = None,
        cpus_per_worker: float = 1,
        action_space: Optional[str] = None,
    ):
        ray = require_ray()
        self.reward_space, default_space, _ = search_defaults("greedy_search", env_id, reward_space)
        self.action_space = action_space or default_space.name
        self._benchmark = _benchmark_ref(env_id, benchmark)
        self.uri = ray.get(self._benchmark).uri
        count = _num_workers(num_workers, cpus_per_worker)
        worker = _remote(_GreedyWorker).options(**_actor_options(cpus_per_worker))
        threads = max(1, int(cpus_per_worker))
        self.workers = [
            worker.remote(env_id, self.reward_space, action_space, threads) for _ in range(count)
        ]

    def __call__(self, env: Any, candidates: Sequence[int]) -> np.ndarray:
        """The rewards of ``candidates`` from ``env``'s current state, in order (NaN where one
        failed), as ``env.try_actions(candidates)`` gives them."""
        if str(env.benchmark.uri) != self.uri:
            raise ValueError(f"the workers search {self.uri}, the env is on {env.benchmark.uri}")
        if env.reward_space is None or env.reward_space.name != self.reward_space:
            raise ValueError(f"the workers' reward space is {self.reward_space}")
        if env.action_space.name != self.action_space:
            raise ValueError(f"the workers' action space is {self.action_space}")
        candidates = [int(c) for c in candidates]
        prefix = [int(a) for a in env.actions]
        parts = [p for p in np.array_split(np.arange(len(candidates)), len(self.workers)) if len(p)]
        answers = _call_actors(
            [
                (worker, "try_actions", ([self._benchmark], prefix, [candidates[i] for i in part]))
                for worker, part in zip(self.workers, parts, strict=False)
            ]
        )
        return np.concatenate(answers) if answers else np.zeros(0)

    def pids(self) -> list[int]:
        """The process id of each worker now (a restarted worker has a new one)."""
        return [_wait_until_up(w) for w in self.workers]

    def close(self) -> None:
        """Ends the workers."""
        ray = require_ray()
        for worker in self.workers:
            ray.kill(worker, no_restart=True)
        self.workers = []

    def __enter__(self) -> RayTryActions:
        return self

    def __exit__(self, *exc) -> None:
        """``with RayTryActions(...) as try_actions:`` ends the workers at the end."""
        self.close()


class _RandomWorker:
    """An actor of :func:`ray_random_search`: the search's episodes in some of its slots."""

    def __init__(self, config: dict[str, Any]):
        self.config = config
        self.vec = None
        self.episodes: Optional[RandomEpisodes] = None
        self.rng: Optional[np.random.Generator] = None

    def pid(self) -> int:
        import os

        return os.getpid()

    def run(self, benchmark: list[Any], checkpoint: Optional[dict[str, Any]], num_steps: int):
        """``num_steps`` steps from ``checkpoint`` (None: the search's start): the episodes
        they ended, as (step, slot, reward, best prefix), and the checkpoint after them."""
        c = self.config
        if self.vec is None:
            from compiler_gym.vector import make_vec

            self.vec = make_vec(
                c["env_id"],
                len(c["slots"]),
                num_threads=c["num_threads"],
                benchmarks=[_load_ref(benchmark)],
                observation_space=c["observation_space"],
                reward_space=c["reward_space"],
                seed=c["seed"],
                parameters=c["parameters"],
                array_type="numpy",
            )
        # A new actor, or one whose last answer never reached the driver: start over there.
        steps = checkpoint["steps"] if checkpoint else 0
        if self.episodes is None or self.episodes.steps != steps:
            self._restore(checkpoint)
        finished = []
        for _ in range(num_steps):
            for slot, reward, prefix in self.episodes.step(self.rng, c["guide"]):
                finished.append((self.episodes.steps, slot, reward, prefix))
        return finished, {**self.episodes.state(), "rng": self.rng.bit_generator.state}

    def _restore(self, checkpoint: Optional[dict[str, Any]]) -> None:
        """The slots and the random stream as they were at ``checkpoint`` (None: the start)."""
        c = self.config
        observe = c["observation_space"] is not None
        self.rng = np.random.default_rng(c["seed"])
        self.episodes = RandomEpisodes(
            self.vec,
            c["slots"],
            c["num_envs"],
            c["patience"],
            c["first"],
            c.get("max_episode_length"),  # None: the default, as in configs made before it
        )
        if checkpoint is None:
            self.episodes.reset(observe)
        else:
            self.rng.bit_generator.state = checkpoint["rng"]
            self.episodes.restore(checkpoint, observe)


def ray_random_search(
    env: Any,
    benchmark: Any = None,
    *args: Any,
    num_workers: Optional[int] = None,
    cpus_per_worker: float = 1,
    steps_per_round: Optional[int] = None,
    **kwargs: Any,
) -> tuple[Optional[CompilerEnvState], SearchProgress]:
    """:func:`~compiler_gym.search.random_search` (the same arguments, ``args`` and
    ``kwargs``, and results) with its ``num_envs`` slots split over ``num_workers`` Ray actors
    (default: one per cluster CPU, at most one per slot), each stepping its slots in an engine
    of its own with ``num_threads`` threads (default: its CPUs). The same arguments give the
    same episodes, in the same order, and so the same best state and progress (but for the
    seconds), with or without validation (``validate``: candidates are checked on the
    driver, one by one in the local search's order).

    The actors run ``steps_per_round`` steps (default ``patience``, or the number of actions
    where that is 0) between two calls; the search stops at the end of the round in which its
    budget ran out (counting episodes in the local search's order: by step, then slot; when
    time ran out, the best prefix of the episodes under way counts too, as in the local
    search). ``benchmark`` is a URI or Benchmark (prepared here) or what
    :func:`put_benchmark` returned. ``guide`` must be picklable and score each row alone (a
    policy does): each actor calls it on its own slots' rows.
    """
    ray = require_ray()
    bound = inspect.signature(random_search).bind(env, benchmark, *args, **kwargs)
    bound.apply_defaults()
    arg = SimpleNamespace(**bound.arguments)  # random_search's, defaults included
    env_id, benchmark, arg.reward_space, arg.parameters = search_target(
        "ray_random_search", env, benchmark, arg.reward_space, arg.parameters
    )
    arg.episodes, arg.runtime = search_budget(arg.episodes, arg.runtime, DEFAULT_EPISODES)
    check_budget(
        "ray_random_search", arg.patience, arg.episodes, arg.runtime, arg.max_episode_length
    )
    reward_space, action_space, _ = search_defaults(
        "ray_random_search", env_id, arg.reward_space, arg.parameters
    )
    ref = _benchmark_ref(env_id, benchmark)
    # Candidates are checked here, on the driver, in envs of its own (as random_search's).
    checker = search_checker(
        env,
        env_id,
        ray.get(ref).load(),
        arg.parameters,
        arg.validate,
        arg.sanitizers,
        arg.num_threads,
        action_space.name,
        arg.on_unrunnable,
        "ray_random_search",
    )
    run = SearchRun(arg.episodes, arg.runtime, arg.callback, checker)
    count = _num_workers(num_workers, cpus_per_worker, most=arg.num_envs)
    config = {
        "env_id": env_id,
        "reward_space": reward_space,
        "observation_space": arg.observation_space,
        "num_envs": arg.num_envs,
        "patience": arg.patience,
        "max_episode_length": arg.max_episode_length,
        "first": [int(action) for action in arg.first_episode],
        "seed": arg.seed,
        "num_threads": arg.num_threads or max(1, int(cpus_per_worker)),
        "guide": arg.guide,
        "parameters": arg.parameters,
    }
    worker = _remote(_RandomWorker).options(**_actor_options(cpus_per_worker))
    workers = [
        worker.remote({**config, "slots": [int(s) for s in slots]})
        for slots in np.array_split(np.arange(arg.num_envs), count)
    ]
    checkpoints: list[Optional[dict[str, Any]]] = [None] * count
    # patience=0 is as many steps as there are actions (RandomEpisodes'), not rounds of none.
    round_steps = steps_per_round or arg.patience or action_space.n
    run.begin()  # the budget is the search's, as random_search's: not the set-up's
    try:
        while True:  # at least one round, however short the budget
            results = _call_actors(
                [
                    (w, "run", ([ref], c, round_steps))
                    for w, c in zip(workers, checkpoints, strict=True)
                ]
            )
            checkpoints = [checkpoint for _, checkpoint in results]
            ended = sorted((e for finished, _ in results for e in finished), key=lambda e: e[:2])
            run.add_round([(reward, prefix) for _, _, reward, prefix in ended])
            if run.done():
                break
        if run.timed_out:  # the workers' slots are in slot order
            run.add_unfinished(
                np.concatenate([c["best"] for c in checkpoints]),
                [actions for c in checkpoints for actions in c["actions"]],
                [length for c in checkpoints for length in c["best_length"]],
            )
    finally:
        checker.close()
        for w in workers:
            ray.kill(w, no_restart=True)
    return run.finish(env_id, ray.get(ref).load(), action_space.name, arg.parameters, arg.record)
