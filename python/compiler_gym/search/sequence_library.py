"""A sequence-library policy (the idea of Coreset-NVP, Liang et al., ICML 2023): a small
library of pass sequences learned from training programs, which together cover them well. On
a new program the policy tries the whole library in one ``try_actions`` call (in parallel on
the engine's threads), optionally refines the best sequence by mutating it for a fixed budget,
and takes the best candidate whose program still runs like the unoptimized one.

Learning a library is three steps, each a function here::

    pool = improve_sequences(env, benchmarks, seeds)     # candidates: climbed per program
    rewards = reward_matrix(env, pool, benchmarks)        # every candidate on every program
    library = select_library(pool, rewards, size=24)      # a cover, chosen greedily

and :func:`library_policy` applies one. ``benchmarks/leaderboard/sequence_library/train.py``
is the command that learned the library of the leaderboard entry.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from compiler_gym.compiler_env_state import CompilerEnvState
from compiler_gym.search.checking import search_checker

# Rewards below this count as this in the cover's objective (a geometric mean): a sequence
# that makes one program much worse than its start should cost something, not everything.
REWARD_FLOOR = 0.05


@dataclass(frozen=True)
class SequenceLibrary:
    """Pass sequences as action flags (``("-sroa", "-gvn", ...)``), in the order tried, of
    the action space ``action_space`` (None: the env's default, ``PassesAll`` for LLVM;
    ``"PassesParameterized"``: pipeline elements such as ``default<Oz>``)."""

    sequences: tuple[tuple[str, ...], ...]
    action_space: Optional[str] = None

    @classmethod
    def load(cls, path: Union[str, Path]) -> SequenceLibrary:
        """Reads a library file: one sequence per line, flags separated by spaces; ``#``
        starts a comment; a first line ``[NAME]`` names the action space."""
        lines = [line.split("#", 1)[0].split() for line in Path(path).read_text().splitlines()]
        lines = [flags for flags in lines if flags]
        action_space = None
        if lines and len(lines[0]) == 1 and lines[0][0].startswith("["):
            action_space = lines.pop(0)[0].strip("[]")
        return cls(tuple(tuple(flags) for flags in lines), action_space)

    def save(self, path: Union[str, Path], header: str = "") -> None:
        """Writes the library in :meth:`load`'s format, ``header`` as leading comments."""
        comments = "".join(f"# {line}\n" for line in header.splitlines())
        space = f"[{self.action_space}]\n" if self.action_space else ""
        body = "".join(" ".join(s) + "\n" for s in self.sequences)
        Path(path).write_text(comments + space + body)

    def actions(self, env: Any) -> list[list[int]]:
        """The sequences as ``env``'s action indices (KeyError names a flag it lacks)."""
        flags = {flag: i for i, flag in enumerate(env.action_space.flags)}
        missing = sorted({f for s in self.sequences for f in s if f not in flags})
        if missing:
            raise KeyError(f"Actions not in the env's action space: {', '.join(missing)}")
        return [[flags[f] for f in s] for s in self.sequences]


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
) -> tuple[list[int], float]:
    """Hill climbing over sequences from ``env``'s current state: each round tries ``batch``
    :func:`mutants` of the best sequence (one ``try_actions`` call) and keeps the best that
    improves. Stops after ``rounds`` rounds or at ``deadline`` (``time.perf_counter()``).
    Returns the best sequence and its reward."""
    best = list(start)
    best_reward = float(env.try_actions([best])[0])
    for _ in range(rounds):
        if deadline is not None and time.perf_counter() >= deadline:
            break
        candidates = mutants(best, batch, env.action_space.n, rng)
        rewards = np.nan_to_num(env.try_actions(candidates), nan=-np.inf)
        i = int(np.argmax(rewards))  # the first among equals: deterministic
        if rewards[i] > best_reward:
            best, best_reward = candidates[i], float(rewards[i])
    return best, best_reward


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
) -> CompilerEnvState:
    """Applies ``library`` to ``env`` from the start of its benchmark (reset when not in an
    episode, or into the library's action space; the env needs a reward space) and returns
    the state it leaves.

    Every sequence is tried in one ``try_actions`` call. With ``refine_seconds`` (or
    ``refine_rounds``, a deterministic budget), the best is then climbed (:func:`climb`,
    seeded with ``seed``). Candidates are taken best first: with validation (``validate``;
    None: on for a runnable benchmark whose family can check it) the first whose program
    runs like the unoptimized one; a candidate no better than doing nothing is never taken.
    """
    start = time.perf_counter()
    other_space = library.action_space not in (None, env.action_space.name)
    if not env.in_episode or env.actions or other_space:
        env.reset(benchmark=env.benchmark, action_space=library.action_space)
    sequences = library.actions(env)
    rewards = np.nan_to_num(env.try_actions(sequences), nan=-np.inf)
    candidates = [(float(r), i, s) for i, (r, s) in enumerate(zip(rewards, sequences, strict=True))]
    if refine_seconds > 0 or refine_rounds:
        best = candidates[int(np.argmax(rewards))][2]
        rounds = refine_rounds if refine_rounds is not None else 1 << 30
        deadline = start + refine_seconds if refine_seconds > 0 else None
        rng = np.random.default_rng(seed)
        climbed, reward = climb(env, best, rng, rounds, deadline=deadline)
        candidates.append((reward, -1, climbed))  # first among equal rewards
    candidates.sort(key=lambda c: (-c[0], c[1]))
    with search_checker(env, "", env.benchmark, validate=validate) as checker:
        for reward, _, sequence in candidates:
            if reward <= 0:
                break
            if not checker.enabled or checker.passes([sequence])[0]:
                env.multistep(sequence)
                break
    return env.state
