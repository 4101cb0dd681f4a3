"""Greedy search, as CompilerGym's leaderboard greedy: from the current state, try every
action, keep the best, and stop when none improves the reward."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Optional, Union

import numpy as np

from compiler_gym.compiler_env_state import CompilerEnvState
from compiler_gym.datasets import Benchmark
from compiler_gym.envs.compiler_env import CompilerEnv, RewardSpaceArg
from compiler_gym.search.budget import (
    CallCost,
    Deadline,
    action_weights,
    engine_threads,
    try_within,
)
from compiler_gym.search.checking import greedy_checker
from compiler_gym.search.random_search import SearchProgress
from compiler_gym.util import cli


def greedy_candidates(
    env: CompilerEnv,
    min_improvement: float = 0.0,
    try_actions: Optional[Callable[[CompilerEnv, Sequence[int]], np.ndarray]] = None,
) -> list[int]:
    """The actions a greedy step may take from ``env``'s current state, best first: of every
    action tried (``env.try_actions``, or ``try_actions(env, actions)``), those whose reward
    exceeds ``min_improvement``, by reward, the lowest index first among equals (an action
    that fails is none of them). ``env`` needs a reward space."""
    candidates = range(env.action_space.n)
    rewards = np.asarray(
        try_actions(env, candidates) if try_actions else env.try_actions(candidates)
    )
    return ranked_candidates(rewards, min_improvement)


def ranked_candidates(rewards: np.ndarray, min_improvement: float = 0.0) -> list[int]:
    """The indices of ``rewards`` (action ``i``'s at ``i``) above ``min_improvement``, by
    reward, the lowest index first among equals (NaN, a failure, is none of them)."""
    rewards = np.asarray(rewards, dtype=np.float64)
    improving = np.flatnonzero(rewards > min_improvement)  # NaN (a failure) compares False
    return [int(a) for a in improving[np.argsort(-rewards[improving], kind="stable")]]


def greedy_action(
    env: CompilerEnv,
    min_improvement: float = 0.0,
    try_actions: Optional[Callable[[CompilerEnv, Sequence[int]], np.ndarray]] = None,
) -> Optional[int]:
    """The action a greedy step takes from ``env``'s current state: the first of
    :func:`greedy_candidates`, None when there is none."""
    candidates = greedy_candidates(env, min_improvement, try_actions)
    return candidates[0] if candidates else None


def greedy_search(
    env: Union[str, CompilerEnv],
    benchmark: Union[str, Benchmark, None] = None,
    reward_space: RewardSpaceArg = None,
    max_steps: Optional[int] = None,
    min_improvement: float = 0.0,
    callback: Optional[Callable[[CompilerEnv], None]] = None,
    try_actions: Optional[Callable[[CompilerEnv, Sequence[int]], np.ndarray]] = None,
    runtime: Optional[float] = None,
    validate: Optional[bool] = None,
    sanitizers: Sequence[str] = (),
    progress: Optional[SearchProgress] = None,
    on_unrunnable: str = "warn",
) -> CompilerEnvState:
    """Steps an env greedily and returns its final state.

    ``env`` is an env, stepped in place from its current state (reset first when it is not
    in an episode, or to ``benchmark`` when given), or an env id, made here on
    ``benchmark`` and closed at the end.

    At each step (:func:`greedy_action`) every action is tried from the current state
    (``env.try_actions``: in the engine, in parallel, without a fork per action); the action of
    the highest reward is taken when that reward exceeds ``min_improvement``, the lowest index
    among equals, so the search is deterministic. It stops when no action improves, after
    ``max_steps`` steps, when every action fails, or when ``runtime`` seconds run out
    (counted from the call to its return, validation included). With a runtime, a step's
    candidates are tried in calls that the calls so far say end in time (the first, one per
    engine thread): a step the budget cuts short takes the best of the candidates tried,
    when one improves, and the search ends there (``progress.timed_out``); each step
    improves, so the state returned is the best so far.
    ``reward_space`` defaults to the env's (which it then must have).
    ``callback`` sees the env after each step. ``try_actions(env, actions)`` evaluates the
    candidates in place of ``env.try_actions(actions)`` and must give the same rewards, e.g.
    :class:`compiler_gym.search.distributed.RayTryActions` spreads them over a Ray cluster.

    Validation (``validate``; None: on for a runnable benchmark of a family that can check
    one, LLVM's): the action chosen is stepped on a fork of ``env`` first, and taken only
    when the program it leaves behaves like the unoptimized one (built with ``sanitizers``
    too, any of ``"address"``, ``"undefined"``); one that fails is excluded at this step and
    the next best is checked (several side by side, on threads). The unoptimized build is
    run first, once (and ``env``'s state checked, where it has taken actions already; else
    the start at the first refusal): where the program fails in the sandbox, or the state
    already behaves unlike that build, every step would be refused, so validation is
    unavailable and ``on_unrunnable`` decides: ``"warn"`` (a
    :class:`~compiler_gym.errors.ValidationUnavailableWarning`; the search goes on
    unvalidated and ``progress.validation`` says why) or ``"raise"`` (a
    :class:`~compiler_gym.errors.ValidationUnavailableError`, before any step).
    ``progress`` (a :class:`SearchProgress`) is filled in as the search goes: steps as
    ``episodes``, the reward gained, the actions taken, and the candidates refused and the
    time spent checking.
    """
    deadline = Deadline(runtime)
    if isinstance(env, str):
        if benchmark is None:
            raise ValueError("greedy_search() needs a benchmark with an env id")
        from compiler_gym.registration import make

        with make(env, benchmark=benchmark, reward_space=reward_space or "default") as made:
            return greedy_search(
                made,
                max_steps=max_steps,
                min_improvement=min_improvement,
                callback=callback,
                try_actions=try_actions,
                runtime=None if runtime is None else max(0.0, deadline.left()),
                validate=validate,
                sanitizers=sanitizers,
                progress=progress,
                on_unrunnable=on_unrunnable,
            )
    if benchmark is not None:
        env.reset(benchmark=benchmark)
    elif not env.in_episode:
        env.reset()
    if reward_space is not None:
        env.reward_space = reward_space
    if env.reward_space is None:
        raise ValueError("greedy_search() needs a reward space")
    # Rewards count from the current state: whatever steps came before (with another reward
    # space, say) are not an improvement of this search.
    env.reward[env.reward_space.name]
    progress = SearchProgress() if progress is None else progress
    cost = CallCost(engine_threads())
    checker = greedy_checker(env, validate, sanitizers, on_unrunnable, "greedy_search", deadline)
    with checker:
        progress.count_checks(checker)

        def take_seconds() -> float:
            """Time kept after a step's tries: to check the action chosen (on a fork) and to
            step ``env`` with it."""
            return (checker.estimate(1) if checker.enabled else 0.0) + cost.predict([1.0])

        start = deadline.start
        gained, steps, cut = 0.0, 0, False
        bar = cli.progress(total=max_steps, unit="step", desc="greedy", leave=False)
        while max_steps is None or steps < max_steps:
            if deadline.expired():
                cut = True
                break
            weight = action_weights(env.action_space)  # default<Oz> is many passes
            actions = range(env.action_space.n)
            rewards, cut = try_within(
                env, actions, deadline, cost, try_actions, keep=take_seconds, weight=weight
            )
            candidates = ranked_candidates(rewards, min_improvement)
            if not checker.enabled:
                best = candidates[0] if candidates else None
            else:
                found = checker.first_passing_step(env, candidates)
                best = None if found is None else candidates[found]
                cut = cut or checker.out_of_time
                progress.count_checks(checker)
            if best is None:
                break
            _, reward, done, _ = env.step(best)
            steps += 1
            if not done:
                gained += reward
                progress.best_actions.append(best)
            progress.add_episode(gained, time.perf_counter() - start)
            bar.set_postfix(reward=f"{gained:.4g}", refresh=False)
            bar.update()
            if callback:
                callback(env)
            if done or cut:  # done: try_actions said it would not fail (a family not deterministic)
                break
        bar.close()
        progress.seconds = time.perf_counter() - start
        progress.timed_out = cut
    progress.best_reward = gained  # of the state returned, from the search's start
    return env.state
