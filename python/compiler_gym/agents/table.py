"""A trained policy's action table and its zero-shot episode, for any network.

A policy's outputs index the action table it was trained on, saved as ``actions.txt`` beside
its weights. :class:`TableAgent` maps them to the current table by flag name, so that weights
stay usable when the table changes: an action the table no longer has gets probability 0, and
an action the policy never saw is never chosen. :func:`run_agent` runs an agent's zero-shot
episode (the most probable action at each step, rewound to the best prefix) on one program.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from compiler_gym.compiler_env_state import CompilerEnvState

ACTIONS = "actions.txt"  # beside the weights: the flags the policy's outputs index


def load_config(path: Union[str, Path]) -> dict[str, Any]:
    """An agent's settings (a JSON file: ``env``, ``episode_length``, its network's shape)."""
    return json.loads(Path(path).read_text())


class TableAgent:
    """A trained policy whose outputs index the action table it was trained on (``actions.txt``
    beside its weights), mapped to the current table by flag name, and its zero-shot episode.
    Subclasses set ``config`` (a dict with ``episode_length``, optionally ``start_actions`` and
    ``no_repeats``) and give :meth:`observe` (one env's observation) and
    :meth:`policy_probabilities` (their network's rows over the trained table)."""

    observation_space = "Autophase"
    config: dict[str, Any]

    def map_actions(
        self, weights: Path, num_outputs: int, env_id: str, action_space: Optional[str] = None
    ) -> None:
        """Reads the trained table beside ``weights`` and maps it to the table of ``env_id``'s
        ``action_space`` (None: its default)."""
        import compiler_gym

        trained = (Path(weights).parent / ACTIONS).read_text().split()
        if len(trained) != num_outputs:
            raise ValueError(
                f"{ACTIONS} lists {len(trained)} actions, the policy has {num_outputs}"
            )
        self.action_space = action_space
        with compiler_gym.make(env_id, action_space=action_space) as env:
            current = list(env.action_space.flags)
        position = {flag: i for i, flag in enumerate(current)}
        # policy output -> current action (-1: gone), current action -> policy input (-1: new)
        self.to_env = np.array([position.get(flag, -1) for flag in trained], np.int64)
        self.to_policy = np.full(len(current), -1, np.int64)
        self._known = self.to_env >= 0
        self.to_policy[self.to_env[self._known]] = np.flatnonzero(self._known)
        self.num_trained = len(trained)

    def observe(self, env) -> Any:
        """The policy's observation of ``env``'s current state."""
        return env.observation[self.observation_space]

    def policy_probabilities(self, observations: Any, episodes: list[list[int]]) -> np.ndarray:
        """The network's probabilities over the trained table, one row per (observation,
        episode) pair; episodes hold trained-table indices."""
        raise NotImplementedError

    def probabilities(self, observations: Any, episodes: Sequence[Sequence[int]]):
        """The policy's probability of each current action, one row per (observation, episode)
        pair; episodes hold current action indices."""
        # An action the policy never saw cannot be part of its input histogram.
        seen = [
            [int(a) for a in self.to_policy[np.asarray(e, np.int64)] if a >= 0] for e in episodes
        ]
        probs = self.policy_probabilities(observations, seen)
        out = np.zeros((len(episodes), len(self.to_policy)), np.float64)
        out[:, self.to_env[self._known]] = probs[:, self._known]
        return out / out.sum(axis=1, keepdims=True)

    def episode(self, env) -> list[int]:
        """Steps ``env`` (reset to a benchmark, with a reward space) with the config's
        ``start_actions`` (by name; none by default), then the most probable action for
        ``episode_length`` steps (with the config's ``no_repeats``, the most probable action
        not taken yet: a deterministic policy whose best action did nothing would otherwise
        take it again and again), then rewinds it to the best prefix of that episode that
        holds the start actions (the empty one too when there are none). Returns the actions
        of the prefix."""
        start = [env.action_space[name] for name in self.config.get("start_actions", [])]
        if start:
            # The policy saw the programs as they are after these (training started from
            # them), so its features count only the actions after them.
            env.multistep(start)
        actions: list[int] = []
        rewards = [env.episode_reward]
        for _ in range(self.config["episode_length"]):
            p = self.probabilities(self.observe(env), [actions])[0]
            if self.config.get("no_repeats"):
                p[actions] = 0
            action = int(np.argmax(p))
            _, _, done, _ = env.step(action)
            if done:  # the compiler failed: the episode ends before that action
                break
            actions.append(action)
            rewards.append(env.episode_reward)
        best = int(np.argmax(rewards))
        if best < len(actions):
            env.reset()
            env.multistep(start + actions[:best])
        return start + actions[:best]


def run_agent(env: Any, benchmark: Any = None, *, agent: TableAgent) -> CompilerEnvState:
    """Runs ``agent`` zero-shot on one program and returns the final state. ``env`` is an env
    (stepped from the start of its benchmark, or of ``benchmark``, and left in the final
    state; its reward space picks the best prefix) or an env id, made here on ``benchmark``
    with its default reward space and closed at the end."""
    if isinstance(env, str):
        if benchmark is None:
            raise ValueError("run_agent() needs a benchmark with an env id")
        import compiler_gym

        with compiler_gym.make(env, benchmark=benchmark) as made:
            return run_agent(made, agent=agent)
    if env.reward_space is None:
        raise ValueError("run_agent() needs an env with a reward space")
    env.reset(benchmark=benchmark, action_space=getattr(agent, "action_space", None))
    agent.episode(env)
    return env.state
