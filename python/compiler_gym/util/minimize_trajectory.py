"""Shortening an action sequence while a property of its result holds (CompilerGym's
``minimize_trajectory``): to reduce a bug report ("these 80 passes crash") to the few actions
that matter.

A hypothesis is a callable ``hypothesis(env) -> bool`` about the env after the actions (its
validation fails, an error ended the episode, an observation has some value, ...); the default
is :func:`environment_validation_fails`. Each function is a generator, as in CompilerGym: it
replays candidate sequences from the start of the env's benchmark, yields the env each time a
shorter sequence keeps the hypothesis, and yields it a last time in the state of the shortest
sequence found. Run one to the end to minimize::

    for env in minimize_trajectory_iteratively(env, hypothesis):
        print(len(env.actions))

``MinimizationError`` when the hypothesis does not hold for the env's own actions. Unlike
CompilerGym, an episode that ends during a replay (a pass failed) is not an error: the
hypothesis sees the env as the replay left it, so a compiler crash can be minimized too.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Optional

from compiler_gym.util.truncate import truncate

logger = logging.getLogger(__name__)

Hypothesis = Callable[[Any], bool]


class MinimizationError(OSError):
    """The hypothesis does not hold for the trajectory to minimize, or no longer holds for
    the minimized one (a flaky hypothesis)."""


def environment_validation_fails(env: Any) -> bool:
    """The default hypothesis: ``env.validate()`` finds an error."""
    result = env.validate()
    logger.debug(truncate(str(result), max_lines=1, max_line_len=120))
    return not result.okay()


def _holds(env: Any, actions: Sequence[int], hypothesis: Hypothesis, flakiness: int) -> bool:
    """Whether the hypothesis holds after replaying ``actions`` from the benchmark's start, in
    any of ``flakiness`` tries; the env is left in the state of the replay."""
    for _ in range(flakiness):
        env.reset(benchmark=env.benchmark)
        if actions:
            env.multistep(list(actions))
        if hypothesis(env):
            return True
    return False


def _start(env: Any, hypothesis: Hypothesis, flakiness: int) -> list[int]:
    """The env's actions, once the hypothesis is seen to hold for them."""
    if flakiness < 1:
        raise ValueError(f"flakiness must be at least 1, not {flakiness!r}")
    actions = list(env.actions)
    if actions and not _holds(env, actions, hypothesis, flakiness):
        raise MinimizationError(
            "The hypothesis does not hold for the env's actions: it must hold for the "
            "trajectory to minimize"
        )
    return actions


def _finish(env: Any, actions: list[int], hypothesis: Hypothesis, flakiness: int) -> Any:
    """Leaves the env in the state of ``actions``, checking that the hypothesis still holds."""
    if not _holds(env, actions, hypothesis, flakiness):
        raise MinimizationError(
            f"The hypothesis no longer holds for the minimized {len(actions)} actions"
        )
    return env


def bisect_trajectory(
    env: Any,
    hypothesis: Hypothesis = environment_validation_fails,
    reverse: bool = False,
    flakiness: int = 1,
) -> Iterator[Any]:
    """Finds, by bisection, the shortest prefix of the env's actions for which the
    hypothesis holds (with ``reverse``, the shortest suffix), assuming that once it holds
    for a prefix (suffix) it holds for every longer one: O(log n) replays. ``flakiness``: how
    many tries a candidate gets (the hypothesis holds if it holds once). Yields the env after
    each shorter candidate that holds, then in the state of the shortest."""
    actions = _start(env, hypothesis, flakiness)
    if not actions:
        return

    def part(n: int) -> list[int]:
        return actions[len(actions) - n :] if reverse else actions[:n]

    low, high = 0, len(actions)  # the hypothesis holds for part(high); below low it does not
    while low < high:
        middle = (low + high) // 2
        if _holds(env, part(middle), hypothesis, flakiness):
            logger.info("Hypothesis holds with %d of %d actions", middle, len(actions))
            high = middle
            yield env
        else:
            logger.info("Hypothesis does not hold with %d of %d actions", middle, len(actions))
            low = middle + 1
    yield _finish(env, part(high), hypothesis, flakiness)


def random_minimization(
    env: Any,
    hypothesis: Hypothesis = environment_validation_fails,
    num_steps_ratio_multiplier: float = 5,
    init_discard_ratio: float = 0.75,
    discard_ratio_decay: float = 0.75,
    min_trajectory_len: int = 5,
    flakiness: int = 1,
    seed: Optional[int] = None,
) -> Iterator[Any]:
    """Removes random sets of actions while the hypothesis holds, CompilerGym's scheme: each
    round drops ``discard_ratio`` of the actions (at least one) at random, starting at
    ``init_discard_ratio``; a round after which the hypothesis holds keeps the removal and
    resets the ratio, one after which it does not multiplies the ratio by
    ``discard_ratio_decay`` (and ends the search if it had dropped a single action). At most
    ``log2(n) * num_steps_ratio_multiplier`` rounds, none once fewer than
    ``min_trajectory_len`` actions remain. ``seed`` (ours) makes the choices repeatable.
    Yields the env after each kept removal, then in the state of the shortest sequence."""
    actions = _start(env, hypothesis, flakiness)
    if not actions:
        return
    rng = random.Random(seed)
    max_rounds = int(math.log2(len(actions)) * num_steps_ratio_multiplier)
    discard_ratio = init_discard_ratio
    for _ in range(max_rounds):
        if len(actions) < min_trajectory_len:
            break
        to_remove = math.ceil(len(actions) * discard_ratio)
        candidate = list(actions)
        for _ in range(min(to_remove, len(candidate))):
            del candidate[rng.randrange(len(candidate))]
        if _holds(env, candidate, hypothesis, flakiness):
            logger.info("Hypothesis holds with %d of %d actions removed", to_remove, len(actions))
            actions, discard_ratio = candidate, init_discard_ratio
            yield env
        else:
            logger.info("Hypothesis fails with %d of %d actions removed", to_remove, len(actions))
            if to_remove == 1:
                break
            discard_ratio *= discard_ratio_decay
    yield _finish(env, actions, hypothesis, flakiness)


def minimize_trajectory_iteratively(
    env: Any,
    hypothesis: Hypothesis = environment_validation_fails,
    flakiness: int = 1,
) -> Iterator[Any]:
    """Removes one action at a time, from the first to the last, keeping each removal after
    which the hypothesis still holds; repeats until a pass removes nothing: O(n^2) replays.
    The result is 1-minimal (no single action can be dropped). Yields the env after each
    kept removal, then in the state of the minimized sequence."""
    actions = _start(env, hypothesis, flakiness)
    if not actions:
        return
    removed = True
    while removed and len(actions) > 1:
        removed = False
        i = 0
        while i < len(actions):
            candidate = actions[:i] + actions[i + 1 :]
            if _holds(env, candidate, hypothesis, flakiness):
                logger.info("Hypothesis holds without action %d, %d left", i, len(candidate))
                actions, removed = candidate, True
                yield env
            else:
                i += 1
    yield _finish(env, actions, hypothesis, flakiness)


__all__ = [
    "Hypothesis",
    "MinimizationError",
    "bisect_trajectory",
    "environment_validation_fails",
    "minimize_trajectory_iteratively",
    "random_minimization",
]
