"""Stable-Baselines3 over the vector engine: the VecEnv contract and a short PPO run."""

import numpy as np
import pytest

import compiler_gym
from compiler_gym import make_vec

sb3 = pytest.importorskip("stable_baselines3")
from stable_baselines3.common.vec_env import VecCheckNan, VecMonitor  # noqa: E402

from compiler_gym.wrappers.sb3 import CompilerSB3VecEnv, make_sb3_vec_env  # noqa: E402

ENV = "llvm-autophase-ic-v0"


def test_vec_env_contract():
    venv = make_sb3_vec_env(ENV, num_envs=3, max_episode_steps=2, num_threads=2)
    assert venv.num_envs == 3
    assert venv.observation_space.shape == (56,)
    assert venv.action_space.n == venv.venv.single_action_space.n
    first = venv.reset()
    assert first.shape == (3, 56) and first.dtype == np.int64
    actions = np.array([0, 1, 2])
    obs, rewards, dones, infos = venv.step(actions)
    assert obs.shape == (3, 56) and rewards.dtype == np.float32 and rewards.shape == (3,)
    assert not dones.any() and infos == [{}, {}, {}]
    obs, rewards, dones, infos = venv.step(actions)
    # The time limit ends every episode at once: SB3 gets the reset observation back and
    # the last one of the episode in the info.
    assert dones.all()
    for i in range(3):
        assert infos[i]["TimeLimit.truncated"] is True
        assert infos[i]["terminal_observation"].shape == (56,)
        np.testing.assert_array_equal(obs[i], first[i])
    # The terminal observation is what a single env shows after the same two actions.
    with compiler_gym.make(ENV) as env:
        for i, action in enumerate(actions):
            env.reset()
            env.step(int(action))
            observation, *_ = env.step(int(action))
            np.testing.assert_array_equal(infos[i]["terminal_observation"], observation)
    assert venv.get_attr("num_envs") == [3, 3, 3]
    assert venv.env_is_wrapped(object) == [False, False, False]
    with pytest.raises(AttributeError):
        venv.env_method("reset")
    venv.close()


def test_needs_same_step_autoreset():
    with pytest.raises(ValueError, match="same_step"):
        CompilerSB3VecEnv(make_vec(ENV, 2, autoreset="next_step", max_episode_steps=2))


def test_ppo_learns_on_the_engine(tmp_path, monkeypatch):
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path))  # SB3 otherwise leaves a folder in /tmp
    venv = VecMonitor(make_sb3_vec_env(ENV, num_envs=4, max_episode_steps=4, num_threads=2))
    model = sb3.PPO("MlpPolicy", VecCheckNan(venv), n_steps=8, batch_size=16, n_epochs=1, seed=0)
    model.learn(total_timesteps=64)
    assert model.num_timesteps == 64
    # VecMonitor saw whole episodes of the configured length.
    lengths = {episode["l"] for episode in model.ep_info_buffer}
    assert lengths == {4}
    venv.close()
