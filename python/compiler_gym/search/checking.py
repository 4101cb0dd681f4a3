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

A program marked runnable may still fail in the sandbox (its unoptimized build exits non-zero,
crashes or times out there), or behave differently from run to run: then every candidate
would be refused and the search would hand back its start. So the checker first runs the
unoptimized build, once, up front (the run every check compares with, which the engine keeps:
it costs nothing the first check would not), and where a candidate is refused, checks the
start state too, once (a program whose output changes from run to run fails that as well).
Where either fails, validation is *unavailable*: the search says so once (a
:class:`ValidationUnavailableWarning`, and ``progress.validation``) and goes on unvalidated,
or, with ``on_unrunnable="raise"``, stops with a :class:`ValidationUnavailableError`.
"""

from __future__ import annotations

import json
import os
import queue
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional

from compiler_gym.errors import (
    ServiceError,
    ValidationUnavailableError,
    ValidationUnavailableWarning,
)
from compiler_gym.search.budget import Deadline

#: The sanitizers a check can build the program with.
SANITIZERS = ("address", "undefined")

#: What a search does when its program cannot be validated (``on_unrunnable``): ``"warn"``
#: (the default) warns once and searches unvalidated, as on a benchmark that is not runnable;
#: ``"raise"`` stops with a :class:`ValidationUnavailableError` before searching.
ON_UNRUNNABLE = ("warn", "raise")

# How a check fails when the program cannot be built or run at all (the engine's Aborted and
# FailedPrecondition are ServiceErrors, a reference run past its time limit a TimeoutError).
CHECK_ERRORS = (ServiceError, RuntimeError, TimeoutError)

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def check_on_unrunnable(on_unrunnable: str) -> str:
    """``on_unrunnable`` itself; ValueError for a value not in :data:`ON_UNRUNNABLE`."""
    if on_unrunnable not in ON_UNRUNNABLE:
        choices = list(ON_UNRUNNABLE)
        raise ValueError(f"on_unrunnable must be one of {choices}, got {on_unrunnable!r}")
    return on_unrunnable


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


def run_reason(env: Any) -> Optional[str]:
    """Why the unoptimized build of ``env``'s benchmark cannot run in the sandbox (it exits
    non-zero, crashes, runs past its time limit, or prints other than the benchmark's
    expected output), or None when it runs. That run is the reference of every check, kept
    by the engine: asking costs nothing that the first check would not."""
    try:
        env.observation["RuntimeO0"]
    except CHECK_ERRORS as e:
        # The engine's message ends in the program's stderr, often empty.
        message = str(e).rstrip().rstrip(":")
        return f"its unoptimized build fails in the sandbox ({type(e).__name__}: {message})"
    return None


def start_reason(env: Any, sanitizers: Iterable[str] = ()) -> Optional[str]:
    """Why the program of ``env``'s current state (a search's start) behaves unlike the
    unoptimized build already, also when built with ``sanitizers`` (a program whose output
    changes from run to run, or that a sanitizer stops), or None when it behaves alike."""
    try:
        problems = program_problems(env, sanitizers)
    except CHECK_ERRORS as e:
        return f"its program cannot be checked ({type(e).__name__}: {e})"
    if problems:
        return f"its program already behaves unlike its unoptimized build ({problems[0]})"
    return None


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
    included).

    ``status`` says whether it checks: ``"on"``, ``"off"`` or ``"unavailable: <why>"``
    (:meth:`unavailable`). With a ``deadline`` (a search's time budget), :meth:`can_check`
    says whether a check still fits in it, as :meth:`estimate` predicts from those timed."""

    def __init__(
        self,
        make_env: Optional[Callable[[], Any]] = None,
        sanitizers: Iterable[str] = (),
        workers: int = 1,
        enabled: bool = True,
    ):
        self.enabled = enabled
        self.status = "on" if enabled else "off"
        self.deadline: Optional[Deadline] = None
        # Timings, for estimate(): the probe's run of the unoptimized build (a first guess),
        # the slowest build-and-run of a check, and the slowest replay per action.
        self._probe_seconds = 0.0
        self._slowest_check = 0.0
        self._action_seconds = 0.0
        self._search_pace = 0.0
        self._search = ("search", "", "warn")  # (search, benchmark URI, on_unrunnable)
        # Why the start state fails a check (None: it passes), asked at the first refusal.
        self.start_reason: Optional[Callable[[], Optional[str]]] = None
        self.out_of_time = False  # a check was not started: it would end past the deadline
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

    def unavailable(self, reason: str, search: str, uri: str, on_unrunnable: str) -> None:
        """Turns validation off because ``reason``, and says so once: a warning (the search
        goes on unvalidated) or, with ``on_unrunnable="raise"``, a
        :class:`ValidationUnavailableError`."""
        self.enabled = False
        self.status = f"unavailable: {reason}"
        what = f"{search}(): {uri} cannot be validated: {reason}"
        if on_unrunnable == "raise":
            raise ValidationUnavailableError(
                f"{what}. Make the program run in the sandbox (its Benchmark's run_args and "
                "expected output), or search without validation: on_unrunnable='warn' (the "
                "default) or validate=False"
            )
        # Name the caller outside this package: the line that started the search.
        frame, level = sys._getframe(), 1
        while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
            frame, level = frame.f_back, level + 1
        warnings.warn(
            f"{what}; searching without validation, so its result is not checked to run like "
            "the unoptimized program (on_unrunnable='raise' stops instead; validate=False "
            "searches unvalidated without this warning)",
            ValidationUnavailableWarning,
            stacklevel=level,
        )

    def probe(self, env: Any, search: str, on_unrunnable: str) -> bool:
        """Runs the unoptimized build of ``env``'s benchmark, once, up front (``search`` and
        ``on_unrunnable``, for later too, say what to say where a check is unavailable);
        where it fails, validation is :meth:`unavailable`. Returns whether it is still on.
        The run is timed: a first estimate of what a check costs."""
        self._search = (search, str(env.benchmark.uri), on_unrunnable)
        if not self.enabled:
            return False
        start = time.perf_counter()
        reason = run_reason(env)
        took = time.perf_counter() - start
        self.checks += 1
        self.seconds += took
        self._probe_seconds = took
        if reason is None:
            return True
        self.unavailable(reason, *self._search)
        return False

    def probe_start(self, env: Any) -> bool:
        """Checks now that ``env``'s current state behaves like the unoptimized build (a
        state the search starts from, with actions taken before it); where it does not,
        validation is :meth:`unavailable`. Returns whether it is still on."""
        if not self.enabled:
            return False
        start = time.perf_counter()
        reason = start_reason(env, self.sanitizers)
        self.checks += 1
        took = time.perf_counter() - start
        self.seconds += took
        self._timed_check(took)
        if reason is None:
            return True
        self.unavailable(reason, *self._search)
        return False

    def _unavailable_after_refusal(self) -> bool:
        """At the first refusal, whether the start state fails too (then validation is
        :meth:`unavailable`, and the refusals mean nothing); asked once."""
        ask, self.start_reason = self.start_reason, None
        if ask is None or not self.enabled:
            return False
        start = time.perf_counter()
        reason = ask()
        self.checks += 1
        took = time.perf_counter() - start
        self.seconds += took
        self._timed_check(took)
        if reason is None:
            return False
        self.unavailable(reason, *self._search)
        return True

    def estimate(self, actions: int = 0) -> float:
        """Seconds a check of a state ``actions`` actions from the start may take: the
        slowest build-and-run timed (before any, the probe's run) and the replay of its
        actions at the slowest pace timed (or told: :meth:`action_seconds`)."""
        pace = max(self._action_seconds, self._search_pace)
        return (self._slowest_check or self._probe_seconds) + actions * pace

    def search_pace(self, seconds: float) -> None:
        """Tells the checker the search's mean seconds per action so far (each call replaces
        the last): a replay of a long prefix takes about that per action, where its slowest
        action, taken as the pace of all, would overstate it many times."""
        self._search_pace = seconds

    def action_seconds(self, seconds: float) -> None:
        """Tells the checker that one action of the search's program may take ``seconds``
        (its replays are timed too; the slowest pace counts)."""
        self._action_seconds = max(self._action_seconds, seconds)

    def _timed_check(self, seconds: float) -> None:
        self._slowest_check = max(self._slowest_check, seconds)

    def can_check(self, actions: int = 0) -> bool:
        """Whether a check of a state ``actions`` actions from the start still fits before
        the deadline (:meth:`estimate`); when not, ``out_of_time`` is set and the search
        should stop."""
        if self.deadline is None or self.deadline.allows(self.estimate(actions)):
            return True
        self.out_of_time = True
        return False

    def problems(self, env: Any) -> list[str]:
        """How the program of ``env``'s current state behaves unlike the unoptimized one
        ([] when alike); a program that cannot be built or run is a problem too."""
        sha1 = env.observation["IrSha1"]
        with self._lock:
            cached = self.verdicts.get(sha1)
        if cached is not None:
            return cached
        start = time.perf_counter()
        try:
            found = program_problems(env, self.sanitizers)
        except CHECK_ERRORS as e:
            found = [f"{type(e).__name__}: {e}"]
        self._timed_check(time.perf_counter() - start)
        with self._lock:
            self.checks += 1
            self.verdicts[sha1] = found
        return found

    def refuses(self, env: Any) -> bool:
        """Whether the program of ``env``'s current state behaves unlike the unoptimized one
        (a refusal, counted and timed as a check); False once validation turns out to be
        unavailable at this first refusal."""
        start = time.perf_counter()
        try:
            refused = bool(self.problems(env)) and not self._unavailable_after_refusal()
        finally:
            self.seconds += time.perf_counter() - start
        self.refused += refused
        return refused

    def replay_start_reason(self) -> Optional[str]:
        """:func:`start_reason` of the benchmark's start, in an idle replay env."""
        env = self._idle.get()
        try:
            env.reset()
            return start_reason(env, self.sanitizers)
        finally:
            self._idle.put(env)

    def _replay_passes(self, actions: tuple[int, ...]) -> bool:
        env = self._idle.get()
        try:
            start = time.perf_counter()
            env.reset()
            _, _, done, _ = env.multistep(list(actions), observation_spaces=[], reward_spaces=[])
            self.action_seconds((time.perf_counter() - start) / max(1, len(actions)))
            return not done and not self.problems(env)
        finally:
            self._idle.put(env)

    def _step_passes(self, fork: Any, action: int) -> bool:
        try:
            start = time.perf_counter()
            _, _, done, _ = fork.multistep([action], observation_spaces=[], reward_spaces=[])
            self.action_seconds(time.perf_counter() - start)
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
            if False in passed and self._unavailable_after_refusal():
                return [True] * len(passed)  # unchecked, as every candidate from now on
            self.refused += passed.count(False)
            return passed
        finally:
            self.seconds += time.perf_counter() - start

    def passes(self, sequences: Sequence[Sequence[int]]) -> list[bool]:
        """Whether each action sequence (from the benchmark's start) leaves a program that
        behaves like the unoptimized one, up to ``workers`` checked side by side. The empty
        sequence is the unoptimized program: it passes unchecked. With validation off (or
        found unavailable), everything passes unchecked."""
        if not self.enabled:
            return [True] * len(sequences)
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
        passes, and no check is wasted), then ``workers`` at a time. None too when the
        deadline leaves no time for the next check (``out_of_time``). With validation off (or
        found unavailable), the first, unchecked."""
        forks: dict[int, Any] = {}
        i, size = 0, 1
        while i < len(actions):
            if not self.enabled:
                return i
            if not self.can_check(1):
                return None
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
    on_unrunnable: str = "warn",
    search: str = "search",
    deadline: Optional[Deadline] = None,
) -> SemanticsChecker:
    """The checker of a search on ``benchmark`` (a Benchmark or a URI), on (``validate`` None
    or True) where it can be: a runnable benchmark in a family with ``check_semantics``;
    otherwise off. ``env`` is the env the search was given (an env, whose forks replay the
    candidates, so a subclass's steps are the ones checked) or an env id (replays in envs
    made with ``parameters``). ``workers`` (0: the CPU count) checks run side by side at
    most; ``action_space`` is the one the candidates index.

    When on, the benchmark's unoptimized build is run first (:meth:`SemanticsChecker.probe`),
    and its start checked at the first refusal: where either fails, validation is
    unavailable, as ``on_unrunnable`` says (:data:`ON_UNRUNNABLE`; ``search`` names the
    search in the warning or error). ``deadline`` is the search's time budget, which the
    checks are part of."""
    sanitizers = check_sanitizers(sanitizers)
    check_on_unrunnable(on_unrunnable)
    off = SemanticsChecker(sanitizers=sanitizers, enabled=False)
    if validate is False or getattr(benchmark, "runnable", None) is False:
        return off
    workers = workers or os.cpu_count() or 1
    if not isinstance(env, str):
        if isinstance(benchmark, str):
            benchmark = env.datasets.benchmark(benchmark)
        if not benchmark.runnable or not has_check_semantics(env):
            return off

        def make_env() -> Any:
            fork = env.unwrapped.fork()
            fork.observation_space = None
            fork.reward_space = None
            fork.reset(benchmark=benchmark, action_space=action_space)
            return fork

    else:
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
    checker.deadline = deadline
    checker.start_reason = checker.replay_start_reason
    try:
        checker.probe(first, search, on_unrunnable)
    except ValidationUnavailableError:
        checker.close()
        raise
    return checker


def greedy_checker(
    env: Any,
    validate: Optional[bool] = None,
    sanitizers: Iterable[str] = (),
    on_unrunnable: str = "warn",
    search: str = "greedy_search",
    deadline: Optional[Deadline] = None,
) -> SemanticsChecker:
    """The checker of a greedy search stepping ``env`` (in an episode): as
    :func:`search_checker`, on ``env``'s benchmark, checking steps on forks of ``env``.
    Where ``env`` has taken actions already, the state it starts from is checked up front:
    one that behaves unlike the unoptimized program makes validation unavailable too (every
    step from it would be refused)."""
    sanitizers = check_sanitizers(sanitizers)
    check_on_unrunnable(on_unrunnable)
    on = validate is not False and env.benchmark.runnable and has_check_semantics(env)
    checker = SemanticsChecker(sanitizers=sanitizers, workers=os.cpu_count() or 1, enabled=bool(on))
    checker.deadline = deadline
    if not on:
        return checker

    def reason_at_start() -> Optional[str]:
        start = env.unwrapped.fork()
        try:
            start.observation_space = None
            start.reward_space = None
            start.reset()
            return start_reason(start, sanitizers)
        finally:
            start.close()

    checker.start_reason = reason_at_start
    if checker.probe(env, search, on_unrunnable) and env.actions:
        checker.start_reason = None  # asked now, of the state it starts from
        checker.probe_start(env)
    return checker
