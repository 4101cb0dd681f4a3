"""A sequence-library policy (the idea of Coreset-NVP, Liang et al., ICML 2023): a small
library of pass sequences learned from training programs, which together cover them well. On
a new program the policy tries the whole library in one ``try_actions`` call (in parallel on
the engine's threads), optionally refines the best sequence by mutating it for a fixed budget,
and takes the best candidate whose program still runs like the unoptimized one. With a time
budget (``runtime``), the library is tried in its order (the cover's: the most useful first)
in calls that end in time, so that a large program gets the first sequences rather than an
unbounded wait.

Learning a library is three steps, each a function here::

    pool = improve_sequences(env, benchmarks, seeds)     # candidates: climbed per program
    rewards = reward_matrix(env, pool, benchmarks)        # every candidate on every program
    library = select_library(pool, rewards, size=24)      # a cover, chosen greedily

and :func:`library_policy` applies one. ``benchmarks/leaderboard/sequence_library/train.py``
is the command that learned the library of the leaderboard entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Optional, Union

import numpy as np

from compiler_gym.compiler_env_state import CompilerEnvState
from compiler_gym.search.budget import (
    CallCost,
    Deadline,
    action_weights,
    engine_threads,
    length,
    try_within,
)
from compiler_gym.search.checking import search_checker
from compiler_gym.search.random_search import SearchProgress

# Rewards below this count as this in the cover's objective (a geometric mean): a sequence
# that makes one program much worse than its start should cost something, not everything.
REWARD_FLOOR = 0.05


@dataclass(frozen=True)
class SequenceLibrary:
    """Pass sequences as action flags (``("-sroa", "-gvn", ...)``), in the order tried, of
    the action space ``action_space`` (None: the env's default, ``PassesAll`` for LLVM;
    ``"PassesParameterized"``: pipeline elements such as ``default<Oz>``). A library may
    span spaces: ``spaces`` then names each sequence's space (empty: all ``action_space``),
    and the policy tries each sequence in its own space and takes the best of all."""

    sequences: tuple[tuple[str, ...], ...]
    action_space: Optional[str] = None
    spaces: tuple[Optional[str], ...] = ()

    def __post_init__(self) -> None:
        if self.spaces and len(self.spaces) != len(self.sequences):
            raise ValueError(
                f"{len(self.spaces)} spaces for {len(self.sequences)} sequences: one each"
            )

    def space(self, i: int) -> Optional[str]:
        """The action space of sequence ``i``."""
        return self.spaces[i] if self.spaces else self.action_space

    def runs(self) -> list[tuple[Optional[str], list[int]]]:
        """The sequences' indices in order, grouped into runs of one action space: a run is
        tried in one call, in its space."""
        out: list[tuple[Optional[str], list[int]]] = []
        for i in range(len(self.sequences)):
            if out and out[-1][0] == self.space(i):
                out[-1][1].append(i)
            else:
                out.append((self.space(i), [i]))
        return out

    @classmethod
    def load(cls, path: Union[str, Path]) -> SequenceLibrary:
        """Reads a library file: one sequence per line, flags separated by spaces; ``#``
        starts a comment; a line ``[NAME]`` names the action space of the lines after it
        (before any: the env's default)."""
        lines = [line.split("#", 1)[0].split() for line in Path(path).read_text().splitlines()]
        space, sequences, spaces = None, [], []
        for flags in lines:
            if len(flags) == 1 and flags[0].startswith("[") and flags[0].endswith("]"):
                space = flags[0][1:-1]
            elif flags:
                sequences.append(tuple(flags))
                spaces.append(space)
        if len(set(spaces)) > 1:
            return cls(tuple(sequences), spaces[0], tuple(spaces))
        return cls(tuple(sequences), spaces[0] if spaces else space)

    def save(self, path: Union[str, Path], header: str = "") -> None:
        """Writes the library in :meth:`load`'s format, ``header`` as leading comments."""
        out = "".join(f"# {line}\n" for line in header.splitlines())
        space = None
        for i, sequence in enumerate(self.sequences):
            if self.space(i) != space:
                space = self.space(i)
                out += f"[{space}]\n"
            out += " ".join(sequence) + "\n"
        if not self.sequences and self.action_space:
            out += f"[{self.action_space}]\n"
        Path(path).write_text(out)

    def actions(self, env: Any, indices: Optional[Sequence[int]] = None) -> list[list[int]]:
        """The sequences (those of ``indices``: all by default) as ``env``'s action indices
        (KeyError names a flag it lacks)."""
        chosen = range(len(self.sequences)) if indices is None else indices
        flags = {flag: i for i, flag in enumerate(env.action_space.flags)}
        sequences = [self.sequences[i] for i in chosen]
        missing = sorted({f for s in sequences for f in s if f not in flags})
        if missing:
            raise KeyError(f"Actions not in the env's action space: {', '.join(missing)}")
        return [[flags[f] for f in s] for s in sequences]


def size_runtime(
    instructions: int, seconds: float, per_1000: float = 0.0, most: Optional[float] = None
) -> float:
    """A policy's time budget for a program of ``instructions`` IR instructions: ``seconds``,
    or ``per_1000`` seconds per thousand instructions where that is more, at most ``most``.
    A library's sequences take time in proportion to the program, so a fixed budget that
    fits most programs leaves a large one nothing to take."""
    budget = max(seconds, per_1000 * instructions / 1000)
    return budget if most is None else min(budget, most)


def add_policy_flags(parser: Any) -> None:
    """Adds the flags of a library policy run from a command line to an ``argparse`` parser:
    ``--budget`` (climbing seconds), ``--seed`` (of the climb), ``--runtime``,
    ``--runtime-per-1000`` and ``--max-runtime`` (the budget per program:
    :func:`size_runtime`); :func:`policy_from_flags` reads them."""
    parser.add_argument("--budget", type=float, default=0.0, help="climbing seconds")
    parser.add_argument("--seed", type=int, default=0, help="seed of the climb")
    parser.add_argument("--runtime", type=float, help="seconds per program, all in")
    parser.add_argument(
        "--runtime-per-1000",
        type=float,
        default=0.0,
        help="with --runtime: seconds per 1,000 IR instructions where that is more",
    )
    parser.add_argument("--max-runtime", type=float, help="with --runtime: the most seconds")


def policy_from_flags(library: SequenceLibrary, flags: Any, **kwargs: Any) -> Any:
    """A function of an env that applies ``library`` (:func:`library_policy`, with
    ``kwargs``) as :func:`add_policy_flags`' flags say, its budget sized to the env's
    program; it returns the state reached."""

    def policy(env: Any) -> CompilerEnvState:
        runtime = flags.runtime
        if runtime is not None:
            size = int(env.observation["IrInstructionCount"])
            runtime = size_runtime(size, runtime, flags.runtime_per_1000, flags.max_runtime)
        return library_policy(
            env, library, refine_seconds=flags.budget, seed=flags.seed, runtime=runtime, **kwargs
        )

    return policy


def mutants(
    sequence: Sequence[int], count: int, num_actions: int, rng: np.random.Generator
) -> list[list[int]]:
    """``count`` one-edit neighbours of ``sequence``: a pass deleted, inserted, replaced, or
    two passes swapped, chosen by ``rng``."""
    out = []
    for _ in range(count):
        s = list(sequence)
        edit = int(rng.integers(4)) if s else 1
        if edit == 0 and len(s) > 1:
            del s[int(rng.integers(len(s)))]
        elif edit == 2:
            s[int(rng.integers(len(s)))] = int(rng.integers(num_actions))
        elif edit == 3:
            i, j = rng.integers(len(s), size=2)
            s[i], s[j] = s[j], s[i]
        else:
            s.insert(int(rng.integers(len(s) + 1)), int(rng.integers(num_actions)))
        out.append(s)
    return out


def climb(
    env: Any,
    start: Sequence[int],
    rng: np.random.Generator,
    rounds: int,
    batch: int = 32,
    deadline: Optional[float] = None,
    start_reward: Optional[float] = None,
    cost: Optional[CallCost] = None,
    weight: Any = None,
) -> tuple[list[int], float, bool]:
    """Hill climbing over sequences from ``env``'s current state: each round tries ``batch``
    :func:`mutants` of the best sequence (one ``try_actions`` call) and keeps the best that
    improves. Stops after ``rounds`` rounds or at ``deadline`` (``time.perf_counter()``):
    then a round's mutants are tried in calls that ``cost`` (the calls timed so far) says
    end in time, and a round that would not is cut short, its best taken. ``start_reward``
    is ``start``'s reward where the caller knows it (else it is tried first); ``weight``
    (:func:`~compiler_gym.search.budget.action_weights`) what each action costs. Returns the
    best sequence, its reward and whether the deadline cut the climb short."""
    best = list(start)
    if start_reward is None:
        start_reward = float(env.try_actions([best])[0])
    best_reward = start_reward
    budget = Deadline.at(deadline)
    cost = cost if cost is not None else CallCost(engine_threads())
    for _ in range(rounds):
        if budget.expired():
            return best, best_reward, True
        candidates = mutants(best, batch, env.action_space.n, rng)
        tried, cut = try_within(env, candidates, budget, cost, weight=weight)
        rewards = np.nan_to_num(tried, nan=-np.inf)
        if len(rewards):
            i = int(np.argmax(rewards))  # the first among equals: deterministic
            if rewards[i] > best_reward:
                best, best_reward = candidates[i], float(rewards[i])
        if cut:
            return best, best_reward, True
    return best, best_reward, False


def reward_matrix(
    env: Any, sequences: Sequence[Sequence[int]], benchmarks: Sequence[Any]
) -> np.ndarray:
    """Rewards of every sequence (rows) from the start of every benchmark (columns), with
    ``env``'s reward space; NaN where a sequence failed."""
    out = np.empty((len(sequences), len(benchmarks)))
    for j, benchmark in enumerate(benchmarks):
        env.reset(benchmark=benchmark)
        out[:, j] = env.try_actions([list(s) for s in sequences])
    return out


def improve_sequences(
    env: Any,
    benchmarks: Sequence[Any],
    starts: Sequence[Sequence[int]],
    seed: int = 0,
    rounds: int = 8,
    batch: int = 32,
) -> list[list[int]]:
    """Candidates for a library: for each benchmark, the best of ``starts`` on it climbed
    for ``rounds`` rounds (:func:`climb`), by a generator seeded with ``seed`` and the
    benchmark's position, so the same inputs give the same candidates."""
    found = []
    for j, benchmark in enumerate(benchmarks):
        env.reset(benchmark=benchmark)
        rewards = np.nan_to_num(env.try_actions([list(s) for s in starts]), nan=-np.inf)
        start = starts[int(np.argmax(rewards))]
        rng = np.random.default_rng([seed, j])
        found.append(climb(env, start, rng, rounds, batch)[0])
    return found


def select_library(rewards: np.ndarray, size: int) -> list[int]:
    """The rows of ``rewards`` (sequences x programs) chosen greedily to maximize the
    geometric mean over programs of the best chosen sequence's reward (each reward at least
    :data:`REWARD_FLOOR`; NaN counts as the floor): at each step the row that raises it
    most, the lowest index among equals; stops early when no row raises it. Deterministic."""
    logs = np.log(np.maximum(np.nan_to_num(rewards, nan=REWARD_FLOOR), REWARD_FLOOR))
    best = np.full(logs.shape[1], np.log(REWARD_FLOOR))
    chosen: list[int] = []
    for _ in range(min(size, logs.shape[0])):
        gains = np.maximum(logs, best).sum(axis=1) - best.sum()
        gains[chosen] = -np.inf
        i = int(np.argmax(gains))
        if gains[i] <= 0 and chosen:
            break
        chosen.append(i)
        best = np.maximum(best, logs[i])
    return chosen


def library_policy(
    env: Any,
    library: SequenceLibrary,
    refine_seconds: float = 0.0,
    refine_rounds: Optional[int] = None,
    seed: int = 0,
    validate: Optional[bool] = None,
    runtime: Optional[float] = None,
    on_unrunnable: str = "warn",
    progress: Optional[SearchProgress] = None,
) -> CompilerEnvState:
    """Applies ``library`` to ``env`` from the start of its benchmark (reset when not in an
    episode, or into the library's action space; the env needs a reward space) and returns
    the state it leaves.

    Every sequence is tried in one ``try_actions`` call. With ``refine_seconds`` (or
    ``refine_rounds``, a deterministic budget), the best is then climbed (:func:`climb`,
    seeded with ``seed``) until ``refine_seconds`` from the start. Candidates are taken best
    first: with validation (``validate``; None: on for a runnable benchmark whose family can
    check it) the first whose program runs like the unoptimized one, checked in ``env``
    itself (stepped to it, and reset when refused); a candidate no better than doing nothing
    is never taken.

    The benchmark's unoptimized build is run first, once, and its start checked at the
    first refusal: where the program fails in the sandbox, or its start behaves unlike that
    build, validation is unavailable and ``on_unrunnable`` decides: ``"warn"`` (a
    :class:`~compiler_gym.errors.ValidationUnavailableWarning`, and the best
    candidate is taken unchecked) or ``"raise"`` (a
    :class:`~compiler_gym.errors.ValidationUnavailableError`).

    ``runtime`` bounds the whole policy in seconds (None: no bound), from the call to its
    return, checks included. The library is then tried in its order (the cover's: the most
    useful sequences first) in calls that the calls so far say end in time, keeping time to
    take the best (to step ``env`` to it and check it); the pace is first timed on a prefix
    of the first sequence; no candidate is taken that would not end in time (the next best
    that would is). A climb under a budget is a bet on the time left: the best candidate is
    taken first, the climb runs from a copy of the start, and its result replaces the one
    taken only when it is better and there is time to take it (and, were it refused, to take
    the first back). ``progress`` (a :class:`SearchProgress`) records the outcome:
    candidates tried as ``episodes``, validation, ``timed_out`` when the budget cut the
    policy short.
    """
    deadline = Deadline(runtime)
    runs = library.runs()
    _start_in(env, runs[0][0] if runs else library.action_space)
    progress = SearchProgress() if progress is None else progress
    cost = CallCost(engine_threads())
    weights: dict[Optional[str], Any] = {}  # per space: default<Oz> costs as 50 single passes
    longest = [1.0]  # the longest sequence tried so far, in weighted passes
    with search_checker(
        env,
        "",
        env.benchmark,
        validate=validate,
        on_unrunnable=on_unrunnable,
        search="library_policy",
        deadline=deadline,
    ) as checker:
        progress.count_checks(checker)

        def take_seconds(work: Optional[float] = None) -> float:
            """What taking a candidate of ``work`` (:func:`length`; None: the longest) costs:
            stepping ``env`` to it (at the pace of the tries so far) and, with validation, a
            check there."""
            check = checker.estimate() if checker.enabled else 0.0
            return cost.predict_sequence(longest[0] if work is None else work) + check

        def take_sequence(candidate: _Candidate) -> float:
            """:func:`take_seconds` of a candidate."""
            return take_seconds(length(candidate.sequence, weights[candidate.space]))

        candidates: list[_Candidate] = []
        cut = False
        for space, indices in runs:
            if cut:
                break
            _start_in(env, space)
            weights[space] = weight = action_weights(env.action_space)
            sequences = library.actions(env, indices)
            longest[0] = max([longest[0]] + [length(s, weight) for s in sequences])
            tried, cut = try_within(
                env, sequences, deadline, cost, keep=take_seconds, weight=weight
            )
            rewards = np.nan_to_num(tried, nan=-np.inf)
            candidates += [
                _Candidate(float(r), indices[k], sequences[k], space) for k, r in enumerate(rewards)
            ]
        progress.episodes = len(candidates)
        refine = (refine_seconds > 0 or refine_rounds) and candidates and not cut
        if not refine or deadline.seconds is None:
            if refine:
                best = min(candidates, key=_best_first)
                _start_in(env, best.space)
                climbed, reward, cut = climb(
                    env,
                    best.sequence,
                    np.random.default_rng(seed),
                    refine_rounds if refine_rounds is not None else 1 << 30,
                    deadline=deadline.start + refine_seconds if refine_seconds > 0 else None,
                    start_reward=best.reward,
                    weight=weights[best.space],
                )
                candidates.append(_Candidate(reward, -1, climbed, best.space))
                progress.episodes += 1
            _take(env, candidates, checker, take_sequence, deadline)
        else:
            # Under a budget the climb is a bet: the best of the library is taken first, and
            # the climb runs from a copy of the start on the time left.
            best = min(candidates, key=_best_first)
            _start_in(env, best.space)
            origin = env.unwrapped.fork()
            try:
                held = _take(env, candidates, checker, take_sequence, deadline)
                cut = _climb_and_replace(
                    env,
                    origin,
                    held,
                    best,
                    checker,
                    seed,
                    refine_rounds,
                    refine_seconds,
                    cost,
                    weights[best.space],
                    take_sequence,
                    deadline,
                )
                progress.episodes += 1
            finally:
                origin.close()
        progress.count_checks(checker)
    progress.timed_out = cut or checker.out_of_time
    progress.best_actions = list(env.actions)
    progress.best_reward = float(env.episode_reward) if env.actions else 0.0
    progress.seconds = deadline.elapsed()
    return env.state


class _Candidate(NamedTuple):
    """A sequence tried from the start: its reward, its index in the library (-1: a climbed
    one) and its action space."""

    reward: float
    index: int
    sequence: list[int]
    space: Optional[str]


def _best_first(candidate: _Candidate) -> tuple[float, int]:
    """The order candidates are taken in: the highest reward, then the lowest index (so a
    climbed one first among equals)."""
    return -candidate.reward, candidate.index


def _start_in(env: Any, space: Optional[str]) -> None:
    """Puts ``env`` at the start of its benchmark in action space ``space`` (None: the one
    it is in), resetting it only when it is elsewhere."""
    if not env.in_episode or env.actions or space not in (None, env.action_space.name):
        env.reset(benchmark=env.benchmark, action_space=space)


def _take(
    env: Any,
    candidates: list[_Candidate],
    checker: Any,
    take_seconds: Any,
    deadline: Deadline,
) -> Optional[_Candidate]:
    """Steps ``env`` from the start to the best of ``candidates`` that earns more than doing
    nothing, that there is time to take (``take_seconds(candidate)``, against the policy's
    ``deadline``) and, with validation, whose program runs like the unoptimized one, checked
    in ``env`` itself (reset when refused): a replay elsewhere and then here would cost two.
    Returns the candidate taken, or None (``env`` at the start)."""
    for candidate in sorted(candidates, key=_best_first):
        if candidate.reward <= 0:
            break
        if not deadline.allows(take_seconds(candidate)):
            checker.out_of_time = True  # no time for this one: a shorter one may fit
            continue
        _start_in(env, candidate.space)
        env.multistep(candidate.sequence)
        if not checker.enabled or not checker.refuses(env):
            return candidate
        _start_in(env, candidate.space)
    return None


def _climb_and_replace(
    env: Any,
    origin: Any,
    held: Optional[_Candidate],
    best: _Candidate,
    checker: Any,
    seed: int,
    refine_rounds: Optional[int],
    refine_seconds: float,
    cost: CallCost,
    weight: Any,
    take_seconds: Any,
    deadline: Deadline,
) -> bool:
    """The climb of a budgeted :func:`library_policy`, from ``origin`` (a copy of the start,
    in ``best``'s space) while ``env`` holds ``held``: ``best`` climbed until the time left
    would only do to replace ``held`` (take the climbed one and, were it refused, take
    ``held`` back); ``env`` then takes the climbed one when it is better and that still
    fits. Returns whether the budget (``deadline``) cut the climb short."""

    def replace_seconds(candidate: _Candidate) -> float:
        back = take_seconds(held) if held is not None and checker.enabled else 0.0
        return take_seconds(candidate) + back

    end = deadline.start + deadline.seconds - replace_seconds(best)
    if refine_seconds > 0:
        end = min(end, deadline.start + refine_seconds)
    climbed, climbed_reward, cut = climb(
        origin,
        best.sequence,
        np.random.default_rng(seed),
        refine_rounds if refine_rounds is not None else 1 << 30,
        deadline=end,
        start_reward=best.reward,
        cost=cost,
        weight=weight,
    )
    found = _Candidate(climbed_reward, -1, climbed, best.space)
    if climbed_reward <= (held.reward if held is not None else 0.0):
        return cut
    if not deadline.allows(replace_seconds(found)):
        checker.out_of_time = True  # env keeps what it holds
        return cut
    _start_in(env, found.space)
    env.multistep(found.sequence)
    if checker.enabled and checker.refuses(env):
        if held is not None:
            _start_in(env, held.space)
            env.multistep(held.sequence)
        else:
            _start_in(env, found.space)
    return cut
