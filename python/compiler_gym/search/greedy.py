"""Greedy search, as CompilerGym's leaderboard greedy: from the current state, try every
action, keep the best, and stop when none improves the reward."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Optional

import numpy as np

from compiler_gym.compiler_env_state import CompilerEnvState
from compiler_gym.envs.compiler_env import CompilerEnv, RewardSpaceArg


def greedy_action(
    env: CompilerEnv,
    min_improvement: float = 0.0,
    try_actions: Optional[Callable[[CompilerEnv, Sequence[int]], np.ndarray]] = None,
) -> Optional[int]:
    """The action a greedy step takes from ``env``'s current state: of every action tried
    (``env.try_actions``, or ``try_actions(env, actions)``), the one of the highest reward, the
    lowest index among equals; None when that reward does not exceed ``min_improvement`` or
    every action fails. ``env`` needs a reward space."""
    candidates = range(env.action_space.n)
    rewards = try_actions(env, candidates) if try_actions else env.try_actions(candidates)
    if np.isnan(rewards).all():
        return None
    best = int(np.nanargmax(rewards))
    return best if rewards[best] > min_improvement else None


def greedy_search(
    env: CompilerEnv,
    reward_space: RewardSpaceArg = None,
    max_steps: Optional[int] = None,
    min_improvement: float = 0.0,
    callback: Optional[Callable[[CompilerEnv], None]] = None,
    try_actions: Optional[Callable[[CompilerEnv, Sequence[int]], np.ndarray]] = None,
) -> CompilerEnvState:
    """Steps ``env`` greedily and returns its final state.

    At each step (:func:`greedy_action`) every action is tried from the current state
    (``env.try_actions``: in the engine, in parallel, without a fork per action); the action of
    the highest reward is taken when that reward exceeds ``min_improvement``, the lowest index
    among equals, so the search is deterministic. It stops when no action improves, after
    ``max_steps`` steps, or when every action fails. ``reward_space`` defaults to the env's
    (which it then must have).
    ``callback`` sees the env after each step. ``try_actions(env, actions)`` evaluates the
    candidates in place of ``env.try_actions(actions)`` and must give the same rewards, e.g.
    :class:`compiler_gym.search.distributed.RayTryActions` spreads them over a Ray cluster.
    """
    if not env.in_episode:
        env.reset()
    if reward_space is not None:
        env.reward_space = reward_space
    if env.reward_space is None:
        raise ValueError("greedy_search() needs a reward space")
    # Rewards count from the current state: whatever steps came before (with another reward
    # space, say) are not an improvement of this search.
    env.reward[env.reward_space.name]
    steps = 0
    while max_steps is None or steps < max_steps:
        best = greedy_action(env, min_improvement, try_actions)
        if best is None:
            break
        _, _, done, _ = env.step(best)
        steps += 1
        if callback:
            callback(env)
        if done:  # try_actions said it would not fail; a family that is not deterministic
            break
    return env.state
