"""The Autophase MLP policy: Autophase counts and the episode's actions into an actor-critic MLP.

Features (one float32 row per env): the Autophase counts divided by the module's instruction
count (so programs of any size look alike, clipped at 8), log(1 + instructions) / 10, and the
histogram of the actions taken so far in the episode divided by the episode length (so the
policy knows what it has done: many passes leave Autophase unchanged, and a memoryless policy
would repeat them forever). :class:`Features` computes them with NumPy from observations and
action lists (the leaderboard's Stable-Baselines3 agent, ``benchmarks/leaderboard/ppo``);
:class:`MlpPolicy` from engine tensors and action counts, on their device, for
:mod:`compiler_gym.train`.

    from compiler_gym.agents.mlp import MlpPolicy
    policy = MlpPolicy(num_actions=124)
    logits, values = policy(policy.observe(autophase_batch), counts / episode_length)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Optional, Union

import gymnasium
import numpy as np
import torch
from torch import nn

from compiler_gym.agents.table import ACTIONS, TableAgent, load_config

AUTOPHASE = 56  # the Autophase vector's features


@functools.cache
def autophase_index(name: str) -> int:
    """The position of an Autophase feature, from the engine's feature table."""
    from compiler_gym.envs.llvm_env import feature_names

    return feature_names()["Autophase"].index(name)


class Features:
    """Autophase rows and episode actions -> the policy's input rows (NumPy)."""

    def __init__(self, num_actions: int, episode_length: int):
        self.num_actions = num_actions
        self.episode_length = episode_length
        self.total_insts = autophase_index("TotalInsts")
        self.size = AUTOPHASE + 1 + num_actions
        self.space = gymnasium.spaces.Box(0.0, np.inf, (self.size,), np.float32)

    def __call__(self, autophase: np.ndarray, episodes: Sequence[Sequence[int]]) -> np.ndarray:
        """The feature rows ``[len(episodes), size]`` of Autophase rows and action lists."""
        autophase = np.asarray(autophase, np.float64).reshape(len(episodes), AUTOPHASE)
        total = np.maximum(autophase[:, self.total_insts : self.total_insts + 1], 1.0)
        out = np.zeros((len(episodes), self.size), np.float32)
        out[:, :AUTOPHASE] = np.clip(autophase / total, 0.0, 8.0)
        out[:, AUTOPHASE] = np.log1p(total[:, 0]) / 10.0
        for i, actions in enumerate(episodes):
            histogram = np.bincount(np.asarray(actions, np.int64), minlength=self.num_actions)
            out[i, AUTOPHASE + 1 :] = histogram / self.episode_length
        return out


def autophase_features(autophase: torch.Tensor) -> torch.Tensor:
    """The state part of :class:`Features`' rows, ``[..., 57]`` float32, from Autophase rows
    ``[..., 56]`` (a tensor on any device): the same numbers (computed in float64)."""
    autophase = autophase.double()
    column = autophase_index("TotalInsts")
    total = autophase[..., column : column + 1].clamp(min=1.0)
    return torch.cat([(autophase / total).clamp(0.0, 8.0), torch.log1p(total) / 10.0], -1).float()


def tanh_mlp(inputs: int, hidden: Sequence[int], outputs: int, gain: float) -> nn.Sequential:
    """As Stable-Baselines3's actor-critic heads: tanh layers of orthogonal weights (gain
    sqrt(2)), the last layer's of ``gain`` (0.01 for the policy: a near-uniform first policy),
    zero biases."""
    layers: list[nn.Module] = []
    for size in hidden:
        layers += [nn.Linear(inputs, size), nn.Tanh()]
        inputs = size
    layers.append(nn.Linear(inputs, outputs))
    for i, layer in enumerate(layers):
        if isinstance(layer, nn.Linear):
            nn.init.orthogonal_(layer.weight, gain if i == len(layers) - 1 else math.sqrt(2))
            nn.init.zeros_(layer.bias)
    return nn.Sequential(*layers)


class MlpPolicy(nn.Module):
    """The actor-critic MLP over :class:`Features`' rows: ``forward(states, history)`` gives
    the logits ``[N, num_actions]`` and values ``[N]`` of state rows (:meth:`observe`) and
    histories (action counts divided by the episode length), with separate policy and value
    MLPs of ``head`` tanh layers (SB3's ``net_arch``).

    The trainer's protocol (see :class:`~compiler_gym.agents.gnn.GnnPolicy`): states are the
    57 state features of each row, which :meth:`embed` passes through unchanged."""

    observation_space = "Autophase"

    def __init__(self, num_actions: int, head: Sequence[int] = (128, 128)):
        super().__init__()
        self.num_actions = num_actions
        features = AUTOPHASE + 1 + num_actions
        self.pi = tanh_mlp(features, head, num_actions, gain=0.01)
        self.vf = tanh_mlp(features, head, 1, gain=1.0)

    def observe(self, batch: torch.Tensor, rows: Optional[torch.Tensor] = None) -> torch.Tensor:
        """The state rows ``[N, 57]`` of an Autophase batch's rows ``rows`` (all: None), in
        memory of their own (the engine's output slabs are reused by later steps)."""
        return autophase_features(batch if rows is None else batch.index_select(0, rows))

    @staticmethod
    def select(states: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        """The states ``index`` (repeats allowed), in that order."""
        return states.index_select(0, index)

    @staticmethod
    def collate(states: Sequence[torch.Tensor]) -> torch.Tensor:
        """Several batches of states as one, in order."""
        return torch.cat(list(states))

    @staticmethod
    def count(states: torch.Tensor) -> int:
        """The states in a batch."""
        return states.shape[0]

    def embed(self, states: torch.Tensor) -> torch.Tensor:
        """The states themselves (the MLP has no state encoder of its own)."""
        return states

    def heads(self, embedding: torch.Tensor, history: torch.Tensor):
        """The logits and values of state rows and histories."""
        features = torch.cat([embedding, history.to(embedding.dtype)], dim=1)
        return self.pi(features), self.vf(features)[:, 0]

    def forward(self, states: torch.Tensor, history: torch.Tensor):
        """The logits ``[N, num_actions]`` and values ``[N]`` of state rows and histories."""
        return self.heads(self.embed(states), history)


def make_policy(config: dict, num_actions: int) -> MlpPolicy:
    """The network of ``config["mlp"]`` (``head``; SB3's ``net_arch`` also read)."""
    head = config.get("mlp", {}).get("head") or config.get("net_arch") or (128, 128)
    return MlpPolicy(num_actions, head)


class MlpAgent(TableAgent):
    """A trained :class:`MlpPolicy` (a ``state_dict`` file with ``actions.txt`` beside it, as
    :mod:`compiler_gym.train` writes them): action probabilities for Autophase rows, and its
    zero-shot episode. ``config``: the settings it was trained with (a JSON file or a dict:
    ``env``, ``episode_length``, ``mlp``; ``no_repeats``, default true: see below).

    The zero-shot episode takes the most probable action not taken yet (``no_repeats``): the
    MLP sees a program only through Autophase and the action histogram, so after an action
    that changed nothing its input moves by 1 / ``episode_length`` in one column, its most
    probable action stays the same, and the episode repeats it to its end. The leaderboard's
    builtin-v0 geomean of a 28-minute run: 0.7886 repeating, 0.9821 not (the SB3 ``ppo``
    entry's policy: 0.9441 and 0.9792)."""

    def __init__(self, weights: Union[str, Path], config: Union[str, Path, dict]):
        config = config if isinstance(config, dict) else load_config(config)
        self.config = {"no_repeats": True, **config}
        state = torch.load(weights, map_location="cpu", weights_only=True)
        num_actions = len((Path(weights).parent / ACTIONS).read_text().split())
        self.policy = make_policy(self.config, num_actions)
        self.policy.load_state_dict(state)
        self.policy.eval()
        self.map_actions(weights, num_actions, self.config["env"], self.config.get("action_space"))
        self.features = Features(self.num_trained, self.config["episode_length"])

    def policy_probabilities(self, autophase: np.ndarray, episodes: list[list[int]]):
        """The network's probabilities over the trained table (see :class:`TableAgent`)."""
        with torch.no_grad():
            rows = torch.as_tensor(self.features(autophase, episodes))
            logits, _ = self.policy.heads(rows[:, : AUTOPHASE + 1], rows[:, AUTOPHASE + 1 :])
            return torch.softmax(logits.double(), dim=1).numpy()
