"""TorchRL over the vector engine: specs, rollouts, partial resets."""

import pytest

torchrl = pytest.importorskip("torchrl")
import torch  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

import compiler_gym  # noqa: E402
from compiler_gym.wrappers.torchrl import CompilerTorchRLEnv  # noqa: E402

ENV = "llvm-autophase-ic-v0"


@pytest.fixture
def env():
    e = CompilerTorchRLEnv(ENV, num_envs=3, max_episode_steps=4, num_threads=2)
    yield e
    e.close()


def test_specs(env):
    check_env_specs(env)
    assert env.batch_size == torch.Size([3])
    assert env.observation_spec["observation"].shape == (3, 56)
    assert env.action_spec.space.n == len(compiler_gym.make(ENV).action_space.flags)


def test_rollout_matches_single_envs_and_resets_on_the_time_limit(env):
    torch.manual_seed(0)
    rollout = env.rollout(6, break_when_any_done=False)
    assert rollout.batch_size == torch.Size([3, 6])
    done = rollout["next", "done"].squeeze(-1)
    assert done[:, 3].all() and not done[:, :3].any() and not done[:, 4:].any()
    assert rollout["next", "truncated"].squeeze(-1)[:, 3].all()
    # Each row replays exactly on a single env: observations and rewards.
    with compiler_gym.make(ENV) as single:
        for i in range(3):
            initial = single.reset()
            assert torch.equal(rollout["observation"][i, 0], torch.as_tensor(initial))
            for t in range(4):
                observation, reward, _, _ = single.step(int(rollout["action"][i, t]))
                assert torch.equal(
                    rollout["next", "observation"][i, t], torch.as_tensor(observation)
                )
                assert rollout["next", "reward"][i, t, 0].item() == pytest.approx(reward, rel=1e-6)
            # After the time limit the env starts over from the benchmark.
            assert torch.equal(rollout["observation"][i, 4], torch.as_tensor(initial))


def test_partial_reset_keeps_the_other_envs(env):
    first = env.reset()
    stepped = env.step(first.set("action", torch.tensor([1, 2, 3])))
    # TorchRL resets the masked rows and carries the others over from the tensordict.
    carried = stepped["next"].clone().set("_reset", torch.tensor([[True], [False], [False]]))
    reset = env.reset(carried)
    assert torch.equal(reset["observation"][0], first["observation"][0])
    # The engine kept env 1 and 2 where they were: their next step continues the episode.
    after = env.step(reset.set("action", torch.tensor([5, 5, 5])))["next", "observation"]
    with compiler_gym.make(ENV) as single:
        for i, history in enumerate([[5], [2, 5], [3, 5]]):
            single.reset()
            for action in history:
                observation, *_ = single.step(action)
            assert torch.equal(after[i], torch.as_tensor(observation)), i


def test_needs_a_fixed_size_observation():
    with pytest.raises(ValueError, match="fixed-size observation"):
        CompilerTorchRLEnv(ENV, num_envs=2, observation_space="Ir")
