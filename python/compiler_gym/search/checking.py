"""Validation in the loop of a search: a candidate becomes a search's best only after its
program behaves like the unoptimized one (the LLVM family's ``check_semantics``: the program
built from the candidate's module is run against its unoptimized build, optionally under
sanitizers).

Every search uses one :class:`SemanticsChecker`, made by :func:`search_checker`. It checks
only what the search would take (a new best, the step greedy chose), caches verdicts by the
module's ``IrSha1``, and checks several candidates side by side on threads (one env each:
the engine releases the GIL) where a search has several to check::

    with search_checker(env, env_id, benchmark, parameters, validate, sanitizers) as checker:
        ok = checker.passes(sequences)     # action sequences from the benchmark's start
        k = checker.first_passing_step(env, actions)   # greedy: steps from env's state, best first

Validation is on by default (``validate=None``) where it can be: a runnable benchmark in a
family that has ``check_semantics`` (LLVM); elsewhere (gcc, loop_tool, a benchmark that does
not run) it is off, whatever ``validate`` says, and the searches run as before.
"""

from __future__ import annotations

import json
import os
import queue
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional

from compiler_gym.errors import ServiceError

#: The sanitizers a check can build the program with.
SANITIZERS = ("address", "undefined")


def check_sanitizers(sanitizers: Iterable[str]) -> tuple[str, ...]:
    """``sanitizers`` as a sorted tuple; ValueError for a name not in :data:`SANITIZERS`."""
    names = tuple(sorted(set(sanitizers)))
    unknown = [s for s in names if s not in SANITIZERS]
    if unknown:
        raise ValueError(f"unknown sanitizers {unknown}: choose from {list(SANITIZERS)}")
    return names


def has_check_semantics(env: Any) -> bool:
    """Whether ``env``'s family can check a program's behaviour (``check_semantics``)."""
    try:
        # An unknown sanitizer is refused before anything is built or run: the probe is free,
        # and a family without the method says so (NotImplementedError).
        env.unwrapped._env.call("check_semantics", "?")
    except ValueError:
        return True
    except Exception:  # noqa: BLE001 - NotImplementedError, or a family that fails otherwise
        return False
    return True


def program_problems(env: Any, sanitizers: Iterable[str] = ()) -> list[str]:
    """How the program of ``env``'s current state behaves unlike its unoptimized build, also
    when built with ``sanitizers``; [] when alike. Raises where the program cannot be built
    or run."""
    names = " ".join(check_sanitizers(sanitizers))
    return json.loads(env.unwrapped._env.call("check_semantics", names))


class SemanticsChecker:
    """Checks candidates of one search on one benchmark (with ``enabled`` False it is off:
    the search checks nothing).

    ``make_env()`` makes an env at the start of the search's benchmark (reset, no reward or
    observation space needed) in which :meth:`passes` replays candidates; up to
    ``workers`` of them check side by side. The counts, for the search's progress:
    ``refused`` (candidates whose program failed), ``checks`` (programs run: a verdict
    cached by ``IrSha1`` runs none) and ``seconds`` (wall time spent checking, replays
    included)."""

    def __init__(
        self,
        make_env: Optional[Callable[[], Any]] = None,
        sanitizers: Iterable[str] = (),
        workers: int = 1,
        enabled: bool = True,
    ):
        self.enabled = enabled
        self.sanitizers = check_sanitizers(sanitizers)
        self.workers = max(1, int(workers))
        self.refused = 0
        self.checks = 0
        self.seconds = 0.0
        self.verdicts: dict[str, list[str]] = {}  # IrSha1 -> problems ([]: behaves alike)
        self._replays: dict[tuple[int, ...], bool] = {}  # action sequence -> passes
        self._make_env = make_env
        self._envs: list[Any] = []
        self._idle: queue.SimpleQueue = queue.SimpleQueue()
        self._pool: Optional[ThreadPoolExecutor] = None
        self._lock = threading.Lock()

    def add_env(self, env: Any) -> None:
        """Adds ``env`` (at the start of the benchmark) to the replay envs; closed with the
        checker."""
        self._envs.append(env)
        self._idle.put(env)

    def problems(self, env: Any) -> list[str]:
        """How the program of ``env``'s current state behaves unlike the unoptimized one
        ([] when alike); a program that cannot be built or run is a problem too."""
        sha1 = env.observation["IrSha1"]
        with self._lock:
            cached = self.verdicts.get(sha1)
        if cached is not None:
            return cached
        try:
            found = program_problems(env, self.sanitizers)
        except (ServiceError, RuntimeError) as e:
            found = [f"{type(e).__name__}: {e}"]
        with self._lock:
            self.checks += 1
            self.verdicts[sha1] = found
        return found

    def _replay_passes(self, actions: tuple[int, ...]) -> bool:
        env = self._idle.get()
        try:
            env.reset()
            _, _, done, _ = env.multistep(list(actions), observation_spaces=[], reward_spaces=[])
            return not done and not self.problems(env)
        finally:
            self._idle.put(env)

    def _step_passes(self, fork: Any, action: int) -> bool:
        try:
            _, _, done, _ = fork.multistep([action], observation_spaces=[], reward_spaces=[])
            return not done and not self.problems(fork)
        finally:
            fork.close()

    def _batch(self, batch: list[int], check: Callable[[int], bool]) -> list[bool]:
        """``check(i)`` of each index, side by side on threads when there are several; the
        failures are counted as refused, the time as checking."""
        start = time.perf_counter()
        try:
            if len(batch) == 1:
                passed = [check(batch[0])]
            else:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(self.workers, "semantics-check")
                passed = list(self._pool.map(check, batch))
            self.refused += passed.count(False)
            return passed
        finally:
            self.seconds += time.perf_counter() - start

    def passes(self, sequences: Sequence[Sequence[int]]) -> list[bool]:
        """Whether each action sequence (from the benchmark's start) leaves a program that
        behaves like the unoptimized one, up to ``workers`` checked side by side. The empty
        sequence is the unoptimized program: it passes unchecked."""
        keys = [tuple(int(a) for a in s) for s in sequences]
        # Replay envs are made here, not on the threads: one per concurrent check.
        while len(self._envs) < min(len(keys), self.workers):
            self.add_env(self._make_env())

        def check(i: int) -> bool:
            key = keys[i]
            if not key:
                return True
            if key not in self._replays:
                self._replays[key] = self._replay_passes(key)
            return self._replays[key]

        return self._batch(list(range(len(keys))), check)

    def first_passing_step(self, env: Any, actions: Sequence[int]) -> Optional[int]:
        """The index of the first of ``actions`` (best first) whose step from ``env``'s
        current state leaves a program that behaves like the unoptimized one, or None. Each is
        stepped on a fork of ``env`` (which does not change): the best alone (it usually
        passes, and no check is wasted), then ``workers`` at a time."""
        forks: dict[int, Any] = {}
        i, size = 0, 1
        while i < len(actions):
            batch = list(range(i, min(len(actions), i + size)))
            forks.update((k, env.unwrapped.fork()) for k in batch)  # here: forks read env
            passed = self._batch(batch, lambda k: self._step_passes(forks.pop(k), actions[k]))
            if True in passed:
                return batch[passed.index(True)]
            i, size = i + len(batch), self.workers
        return None

    def close(self) -> None:
        """Closes the replay envs and the threads."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
        for env in self._envs:
            env.close()
        self._envs = []

    def __enter__(self) -> SemanticsChecker:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def search_checker(
    env: Any,
    env_id: str,
    benchmark: Any,
    parameters: Optional[dict[str, Any]] = None,
    validate: Optional[bool] = None,
    sanitizers: Iterable[str] = (),
    workers: int = 0,
    action_space: Optional[str] = None,
) -> SemanticsChecker:
    """The checker of a search on ``benchmark`` (a Benchmark or a URI), on (``validate`` None
    or True) where it can be: a runnable benchmark in a family with ``check_semantics``;
    otherwise off. ``env`` is the env the search was given (an env, whose forks replay the
    candidates, so a subclass's steps are the ones checked) or an env id (replays in envs
    made with ``parameters``). ``workers`` (0: the CPU count) checks run side by side at
    most; ``action_space`` is the one the candidates index."""
    sanitizers = check_sanitizers(sanitizers)
    off = SemanticsChecker(sanitizers=sanitizers, enabled=False)
    if validate is False or getattr(benchmark, "runnable", None) is False:
        return off
    workers = workers or os.cpu_count() or 1
    if not isinstance(env, str):
        if isinstance(benchmark, str):
            benchmark = env.datasets.benchmark(benchmark)
        if not benchmark.runnable or not has_check_semantics(env):
            return off

        def fork_env() -> Any:
            fork = env.unwrapped.fork()
            fork.observation_space = None
            fork.reward_space = None
            fork.reset(benchmark=benchmark, action_space=action_space)
            return fork

        return SemanticsChecker(fork_env, sanitizers, workers)

    from compiler_gym.registration import make

    def make_env() -> Any:
        made = make(env_id, benchmark=benchmark, reward_space=None, parameters=parameters)
        made.reset(action_space=action_space)
        return made

    first = make_env()  # the family (and a URI's benchmark) is known once an env is made
    if not first.benchmark.runnable or not has_check_semantics(first):
        first.close()
        return off
    checker = SemanticsChecker(make_env, sanitizers, workers)
    checker.add_env(first)  # kept: the first replay env
    return checker


def greedy_checker(
    env: Any, validate: Optional[bool] = None, sanitizers: Iterable[str] = ()
) -> SemanticsChecker:
    """The checker of a greedy search stepping ``env`` (in an episode): as
    :func:`search_checker`, on ``env``'s benchmark, checking steps on forks of ``env``."""
    sanitizers = check_sanitizers(sanitizers)
    on = validate is not False and env.benchmark.runnable and has_check_semantics(env)
    return SemanticsChecker(sanitizers=sanitizers, workers=os.cpu_count() or 1, enabled=bool(on))
