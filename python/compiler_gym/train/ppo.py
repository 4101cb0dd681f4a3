"""PPO's arithmetic, apart from the envs: advantages (GAE) and the clipped-surrogate update.

:func:`ppo_update` trains a policy of :mod:`compiler_gym.agents` (the MLP or the GNN) on one
:class:`Rollout`: ``n_epochs`` passes in shuffled minibatches of the clipped surrogate, the
value loss and an entropy bonus, advantages normalized per minibatch, gradients clipped. A
rollout holds each distinct state once (``states``, the policy's own kind: feature rows or
graph plans) and each transition's index into them; a minibatch embeds each distinct state it
holds once (:func:`embed_distinct`: the same numbers and gradients as a pass per row).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, Optional

import torch

from compiler_gym.train.config import PpoConfig


@dataclass
class Rollout:
    """Transitions for an update, flattened step-major (row ``t * num_envs + i`` is env i's
    t-th transition): ``state_index`` into ``states`` (each distinct state once) and
    ``embeddings`` (theirs, as the rollout computed them), ``histories`` (action counts over
    the episode length), ``actions``, their ``log_probs`` then, ``advantages`` and
    ``returns``."""

    states: Any
    state_index: torch.Tensor
    embeddings: torch.Tensor
    histories: torch.Tensor
    actions: torch.Tensor
    log_probs: torch.Tensor
    advantages: torch.Tensor
    returns: torch.Tensor

    def __len__(self) -> int:
        return self.state_index.numel()


def gae(
    rewards: torch.Tensor,
    values: torch.Tensor,
    dones: torch.Tensor,
    last_values: torch.Tensor,
    gamma: float,
    lam: float,
) -> torch.Tensor:
    """Generalized advantage estimates ``[T, N]`` of ``T`` steps of ``N`` envs: ``dones[t]``
    ends the episode after step t (no bootstrap across it), ``last_values`` are the values of
    the states after the last step."""
    advantages = torch.zeros_like(rewards)
    running = torch.zeros_like(last_values)
    next_value = last_values
    for t in reversed(range(rewards.shape[0])):
        alive = 1.0 - dones[t].to(rewards.dtype)
        delta = rewards[t] + gamma * next_value * alive - values[t]
        running = delta + gamma * lam * alive * running
        advantages[t] = running
        next_value = values[t]
    return advantages


def embed_distinct(policy: Any, states: Any, index: torch.Tensor) -> torch.Tensor:
    """The embeddings of states ``index`` (of ``states``), each distinct one embedded once:
    the same numbers and gradients as a pass per row, rows of one state sharing its
    embedding."""
    distinct, inverse = torch.unique(index, return_inverse=True)
    return policy.embed(policy.select(states, distinct)).index_select(0, inverse)


def ppo_update(
    policy: Any,
    optimizer: torch.optim.Optimizer,
    rollout: Rollout,
    ppo: PpoConfig,
    generator: torch.Generator,
    clock: Optional[Callable[[str], AbstractContextManager]] = None,
) -> dict[str, float]:
    """``ppo.n_epochs`` passes of clipped PPO over ``rollout`` in minibatches of
    ``ppo.minibatch_size`` (shuffled with ``generator``, a CPU generator); the last
    ``ppo.embed_epochs`` passes train the state encoder with the heads, the passes before
    them the heads alone on the rollout's embeddings (exact: the encoder has not changed
    since the rollout). Returns the means over the minibatches of ``policy_loss``,
    ``value_loss``, ``entropy``, ``approx_kl`` and ``clip_fraction``, and the states
    through the encoder (``states_embedded``: each distinct one once per minibatch).
    ``clock(name)`` (a context manager) times the parts: ``update_embed`` and ``heads``."""
    clock = clock or (lambda name: nullcontext())
    n = len(rollout)
    device = rollout.actions.device
    epochs = ppo.n_epochs
    embed_epochs = epochs if ppo.embed_epochs is None else ppo.embed_epochs
    keys = ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction")
    sums = dict.fromkeys(keys, 0.0)
    minibatches = embedded = 0
    for epoch in range(epochs):
        joint = epoch >= epochs - embed_epochs
        order = torch.randperm(n, generator=generator).to(device)
        for start in range(0, n, ppo.minibatch_size):
            rows = order[start : start + ppo.minibatch_size]
            index = rollout.state_index.index_select(0, rows)
            if joint:
                with clock("update_embed"):
                    distinct, inverse = torch.unique(index, return_inverse=True)
                    embedded += distinct.numel()
                    embedding = policy.embed(policy.select(rollout.states, distinct))
                    embedding = embedding.index_select(0, inverse)
            else:
                embedding = rollout.embeddings.index_select(0, index)
            with clock("heads"):
                logits, value = policy.heads(embedding, rollout.histories.index_select(0, rows))
                dist = torch.distributions.Categorical(logits=logits)
                log_prob = dist.log_prob(rollout.actions.index_select(0, rows))
                advantage = rollout.advantages.index_select(0, rows)
                if ppo.normalize_advantage and advantage.numel() > 1:
                    advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                log_ratio = log_prob - rollout.log_probs.index_select(0, rows)
                ratio = torch.exp(log_ratio)
                clip = ppo.clip_range
                policy_loss = -torch.min(
                    advantage * ratio, advantage * ratio.clamp(1 - clip, 1 + clip)
                ).mean()
                value_loss = (rollout.returns.index_select(0, rows) - value).pow(2).mean()
                entropy = dist.entropy().mean()
                loss = policy_loss + ppo.vf_coef * value_loss - ppo.ent_coef * entropy
                optimizer.zero_grad()
            # The backward pass through the encoder is the encoder's time.
            with clock("update_embed" if joint else "heads"):
                loss.backward()
            with clock("heads"):
                torch.nn.utils.clip_grad_norm_(policy.parameters(), ppo.max_grad_norm)
                optimizer.step()
            with torch.no_grad():
                stats = (
                    policy_loss,
                    value_loss,
                    entropy,
                    ((ratio - 1) - log_ratio).mean(),  # an unbiased estimate of KL(old, new)
                    ((ratio - 1).abs() > clip).float().mean(),
                )
            for key, value_ in zip(sums, stats, strict=True):
                sums[key] += value_.item()
            minibatches += 1
    out = {key: total / max(minibatches, 1) for key, total in sums.items()}
    out["states_embedded"] = embedded
    return out
