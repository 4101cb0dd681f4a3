"""The MLP agent's zero-shot episode (compiler_gym.agents.mlp.MlpAgent): the most probable
action not taken yet, so that a deterministic policy whose best action changed nothing does not
take it again to the episode's end."""

from __future__ import annotations

import pytest
import torch

import compiler_gym
from compiler_gym.agents.mlp import MlpAgent, MlpPolicy
from compiler_gym.agents.table import ACTIONS

# The policy's ranking of the actions, whatever its input: these first, in this order.
RANKING = ["-sroa", "-instcombine", "-simplifycfg", "-ipsccp", "-mem2reg"]


def write_ranking_policy(folder, flags):
    """A policy.pt (one hidden layer of 8) whose logits ignore the input: 10, 9, ... for
    RANKING's actions, 0 for the rest; and its actions.txt."""
    policy = MlpPolicy(len(flags), head=[8])
    last = policy.pi[-1]
    with torch.no_grad():
        last.weight.zero_()
        last.bias.zero_()
        for rank, flag in enumerate(RANKING):
            last.bias[flags.index(flag)] = 10.0 - rank
    torch.save(policy.state_dict(), folder / "policy.pt")
    (folder / ACTIONS).write_text("\n".join(flags) + "\n")


@pytest.mark.parametrize(
    "config, expected, reward",
    [
        # The default: each action once, in the policy's order; the best prefix of the five
        # (-mem2reg changes nothing after -sroa).
        ({}, f"opt {' '.join(RANKING[:4])} input.bc -o output.bc", 1.032258064516129),
        (
            {"no_repeats": True},
            f"opt {' '.join(RANKING[:4])} input.bc -o output.bc",
            1.032258064516129,
        ),
        # Repeating: -sroa and nothing else, as long as the episode lasts.
        ({"no_repeats": False}, "opt -sroa input.bc -o output.bc", 0.8649193548387096),
    ],
)
def test_the_zero_shot_episode_takes_each_action_once_by_default(
    tmp_path, config, expected, reward
):
    with compiler_gym.make("llvm-ic-v0") as env:
        flags = list(env.action_space.flags)
        write_ranking_policy(tmp_path, flags)
        agent = MlpAgent(
            tmp_path / "policy.pt",
            {"env": "llvm-v0", "episode_length": 5, "mlp": {"head": [8]}, **config},
        )
        env.reset(benchmark="benchmark://builtin-v0/crc32")
        actions = agent.episode(env)
        assert env.state.commandline == expected
        assert env.episode_reward == pytest.approx(reward, rel=1e-12)
        assert len(actions) == (1 if config.get("no_repeats") is False else 4)


def test_the_callers_config_is_not_changed(tmp_path):
    with compiler_gym.make("llvm-v0") as env:
        flags = list(env.action_space.flags)
    write_ranking_policy(tmp_path, flags)
    config = {"env": "llvm-v0", "episode_length": 5, "mlp": {"head": [8]}}
    agent = MlpAgent(tmp_path / "policy.pt", config)
    assert agent.config["no_repeats"] is True and "no_repeats" not in config
