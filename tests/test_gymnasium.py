"""The Gymnasium face: registration, 5-tuple API, env_checker."""

import gymnasium
from gymnasium.utils.env_checker import check_env

import compiler_gym  # noqa: F401  (registers the ids)


def test_registered_ids():
    for env_id in compiler_gym.COMPILER_GYM_ENVS:
        assert f"compiler_gym/{env_id}" in gymnasium.registry


def test_check_env_passes():
    env = gymnasium.make("compiler_gym/llvm-autophase-ic-v0")
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_five_tuple_api():
    env = gymnasium.make("compiler_gym/llvm-v0")
    obs, info = env.reset(seed=3, options={"benchmark": "benchmark://builtin-v0/crc32"})
    assert obs.shape == (56,) and info["benchmark"] == "benchmark://builtin-v0/crc32"
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    assert isinstance(reward, float) and not terminated and not truncated
    assert env.observation_space.contains(obs)
    env.close()


def test_seeded_sampling_is_reproducible():
    env = gymnasium.make("compiler_gym/llvm-ic-v0")
    env.reset(seed=7)
    a = [env.action_space.sample() for _ in range(5)]
    env.reset(seed=7)
    b = [env.action_space.sample() for _ in range(5)]
    assert a == b
    env.close()
