"""Shortening an action sequence while a property of its result holds (CompilerGym's
``minimize_trajectory``): to reduce a bug report ("these 80 passes crash") to the few actions
that matter.

A hypothesis is a callable ``hypothesis(env) -> bool`` about the env after the actions (an
error ended the episode, an observation has some value, ...). Each function replays candidate
sequences from the start of the env's benchmark, leaves the env in the state of the shortest
sequence found, and returns the env. ``MinimizationError`` when the hypothesis does not hold
for the env's own actions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Optional

import numpy as np

Hypothesis = Callable[[Any], bool]


class MinimizationError(ValueError):
    """The hypothesis does not hold for the trajectory to minimize."""


def _replay(env: Any, actions: Sequence[int]) -> Any:
    env.reset(benchmark=env.benchmark)
    if actions:
        env.multistep(list(actions))
    return env


def _holds(env: Any, actions: Sequence[int], hypothesis: Hypothesis) -> bool:
    return bool(hypothesis(_replay(env, actions)))


def _check(env: Any, hypothesis: Hypothesis) -> list[int]:
    actions = list(env.actions)
    if not _holds(env, actions, hypothesis):
        raise MinimizationError("the hypothesis does not hold for the env's actions")
    return actions


def bisect_trajectory(
    env: Any, hypothesis: Hypothesis, reverse: bool = False, max_steps: Optional[int] = None
) -> Any:
    """The shortest prefix of the env's actions for which the hypothesis holds (with
    ``reverse``, the shortest suffix), found by bisection (assumes that once it holds for a
    prefix it holds for longer ones); at most ``max_steps`` replays."""
    actions = _check(env, hypothesis)
    low, high = 0, len(actions)  # the hypothesis holds at high; low is untested
    steps = 0

    def part(n: int) -> list[int]:
        return actions[len(actions) - n :] if reverse else actions[:n]

    while low < high and (max_steps is None or steps < max_steps):
        middle = (low + high) // 2
        steps += 1
        if _holds(env, part(middle), hypothesis):
            high = middle
        else:
            low = middle + 1
    return _replay(env, part(high))


def minimize_trajectory_iteratively(env: Any, hypothesis: Hypothesis, reverse: bool = False) -> Any:
    """Removes one action at a time (from the first, or the last with ``reverse``), keeping
    each removal after which the hypothesis still holds; repeats until a whole pass removes
    nothing. The result is 1-minimal: no single action can be dropped."""
    actions = _check(env, hypothesis)
    changed = True
    while changed:
        changed = False
        order = range(len(actions) - 1, -1, -1) if reverse else range(len(actions))
        for i in list(order):
            if i >= len(actions):
                continue
            candidate = actions[:i] + actions[i + 1 :]
            if _holds(env, candidate, hypothesis):
                actions, changed = candidate, True
    return _replay(env, actions)


def random_minimization(
    env: Any,
    hypothesis: Hypothesis,
    num_steps_ratio_multiplier: float = 5,
    seed: Optional[int] = None,
) -> Any:
    """Removes randomly chosen actions, keeping each removal after which the hypothesis
    holds, for ``num_steps_ratio_multiplier`` times as many tries as there are actions."""
    actions = _check(env, hypothesis)
    rng = np.random.default_rng(seed)
    for _ in range(int(len(actions) * num_steps_ratio_multiplier)):
        if not actions:
            break
        i = int(rng.integers(len(actions)))
        candidate = actions[:i] + actions[i + 1 :]
        if _holds(env, candidate, hypothesis):
            actions = candidate
    return _replay(env, actions)
