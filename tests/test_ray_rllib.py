"""RLlib on the vector engine: the env runners' vector env (without Ray), and PPO on a
three-node Ray cluster (all on this machine) whose episode statistics are our engine's, with
an env runner killed mid-training."""

from __future__ import annotations

import os
import signal
import sys

import numpy as np
import pytest

import compiler_gym
from compiler_gym.wrappers.rllib import CompilerRLlibVecEnv

# Bounded: a cluster that does not come up fails here instead of hanging the suite.
pytestmark = pytest.mark.timeout(240)

ENV = "llvm-autophase-ic-v0"


def _replay(benchmark, actions) -> list[float]:
    """The engine's rewards for ``actions`` from the start of ``benchmark``, in one env."""
    with compiler_gym.make(ENV, benchmark=benchmark) as env:
        env.reset()
        return [env.step(int(a))[1] for a in actions]


def test_the_rllib_env_steps_one_engine_with_next_step_resets_and_counts_returns():
    env = CompilerRLlibVecEnv(ENV, 3, max_episode_steps=3, benchmarks=["builtin-v0/qsort"])
    first, _ = env.reset()
    with compiler_gym.make(ENV, benchmark="builtin-v0/qsort") as single:
        autophase = single.reset()
        n = single.action_space.n
    assert env.single_action_space.n == n and env.single_observation_space.shape == (56,)
    assert env.single_observation_space.dtype == np.float32
    np.testing.assert_allclose(first[0], np.log1p(autophase.astype(np.float32)), rtol=1e-6)

    rng = np.random.default_rng(0)
    actions = [rng.integers(n, size=3) for _ in range(4)]
    steps = [env.step(a) for a in actions]
    rewards = np.array([s[1] for s in steps])
    assert [bool(s[3].all()) for s in steps] == [False, False, True, False]  # 3 steps, truncated
    assert "episode_return" in steps[2][4] and "episode_return" not in steps[1][4]
    # NEXT_STEP: the step after the end is the new episode's start, its action ignored.
    np.testing.assert_array_equal(steps[3][0], first)
    assert (rewards[3] == 0).all() and not steps[3][2].any()
    for i in range(3):
        engine = _replay("builtin-v0/qsort", [a[i] for a in actions[:3]])
        assert list(rewards[:3, i]) == engine
    assert list(env.episode_returns) == list(rewards[:3].sum(axis=0))
    np.testing.assert_array_equal(steps[2][4]["episode_return"], rewards[:3].sum(axis=0))
    env.close()


@pytest.mark.parametrize(
    "id, kwargs",
    [
        ("loop_tool-v0", {}),
        ("gcc-v0", {"observation_space": "choices", "reward_space": "obj_size_Os"}),
    ],
)
def test_the_rllib_env_serves_the_other_families(id, kwargs):
    env = CompilerRLlibVecEnv(id, 2, max_episode_steps=2, **kwargs)
    obs, _ = env.reset()
    assert obs.shape == (2, *env.single_observation_space.shape)
    assert env.single_observation_space.contains(obs[0])
    for _ in range(3):
        obs, rewards, terminated, truncated, _ = env.step(env.action_space.sample())
        assert obs.dtype == np.float32 and rewards.shape == (2,)
    assert len(env.episode_returns) == 2
    env.close()


def test_the_rllib_env_refuses_observations_rllib_cannot_model():
    with pytest.raises(ValueError, match="fixed-size vector"):
        CompilerRLlibVecEnv("llvm-ir-ic-v0", 1, max_episode_steps=2)
    with pytest.raises(ValueError, match="observation_transform"):
        CompilerRLlibVecEnv(ENV, 1, max_episode_steps=2, observation_transform="log")


@pytest.fixture(scope="module")
def cluster():
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.rllib")
    from ray_cluster import ray_cluster

    # The callbacks below run in the env runners, which cannot import this test module.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    with ray_cluster(num_nodes=3) as c:
        yield c


def _record_episode(*, episode, env_runner, **kwargs) -> None:
    """RLlib's on_episode_end: keeps the actions and rewards RLlib saw, on the env runner."""
    recorded = env_runner.__dict__.setdefault("recorded_episodes", [])
    recorded.append((np.asarray(episode.get_actions()), np.asarray(episode.get_rewards())))


def _ppo(benchmarks, callbacks: bool = True):
    from ray.rllib.algorithms.ppo import PPOConfig

    from compiler_gym.wrappers.rllib import configure_rllib

    config = configure_rllib(
        PPOConfig(), ENV, num_envs_per_env_runner=4, max_episode_steps=8, benchmarks=benchmarks
    )
    config = (
        config.env_runners(num_env_runners=2, rollout_fragment_length=16)
        .training(train_batch_size_per_learner=128, minibatch_size=64, num_epochs=2)
        .learners(num_learners=0)
        .reporting(metrics_num_episodes_for_smoothing=1000)  # no window cuts the statistics
        .fault_tolerance(restart_failed_env_runners=True)
        .debugging(seed=0)
    )
    if callbacks:
        config = config.callbacks(on_episode_end=_record_episode)
    return config.build_algo()


def _runners(algo, fn):
    return algo.env_runner_group.foreach_env_runner(fn, local_env_runner=False)


def _pop_returns(runner) -> list[float]:
    returns = list(runner.env.unwrapped.episode_returns)
    runner.env.unwrapped.episode_returns.clear()
    return returns


def _pop_episodes(runner):
    episodes = runner.__dict__.get("recorded_episodes", [])
    runner.recorded_episodes = []
    return episodes


def test_rllib_ppo_trains_on_engines_and_reports_their_episodes(cluster):
    import ray

    from compiler_gym.search import distributed

    benchmarks = distributed.put_benchmarks(ENV, ["builtin-v0/qsort"])
    algo = _ppo(benchmarks)
    try:
        # Each env runner, a process of its own, steps one engine of four envs.
        runners = _runners(
            algo, lambda r: (type(r.env.unwrapped).__name__, r.env.unwrapped.num_envs, os.getpid())
        )
        assert [r[:2] for r in runners] == [("CompilerRLlibVecEnv", 4)] * 2
        assert len({r[2] for r in runners}) == 2 and os.getpid() not in {r[2] for r in runners}

        weights = algo.get_module().get_state()
        for _ in range(3):
            result = algo.train()
            stats = result["env_runners"]
            returns = [x for r in _runners(algo, _pop_returns) for x in r]
            # RLlib's episode statistics are those of the episodes our engines ended.
            assert stats["num_episodes"] == len(returns) > 0
            assert stats["episode_return_max"] == pytest.approx(max(returns), rel=1e-6)
            assert stats["episode_return_min"] == pytest.approx(min(returns), rel=1e-6)
            assert stats["episode_return_mean"] == pytest.approx(np.mean(returns), rel=1e-6)
            assert stats["episode_len_mean"] == 8
            # ... and each episode's rewards are the engine's for its actions.
            for actions, rewards in [e for r in _runners(algo, _pop_episodes) for e in r]:
                engine = _replay(ray.get(benchmarks)[0].load(), actions)
                np.testing.assert_allclose(rewards, engine, rtol=1e-6, atol=1e-9)
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] == 3 * 128
        trained = algo.get_module().get_state()
        changed = [k for k in weights if not np.array_equal(weights[k], trained[k])]
        assert changed, "PPO's updates changed no weight"
    finally:
        algo.stop()


def test_a_killed_env_runner_is_restarted_and_training_completes(cluster):
    algo = _ppo(["builtin-v0/crc32"], callbacks=False)
    try:
        pids = _runners(algo, lambda r: os.getpid())
        algo.train()
        os.kill(pids[0], signal.SIGKILL)
        sampled = [algo.train()["env_runners"]["num_env_steps_sampled_lifetime"]]
        # Ray restarts the runner (a new process: seconds), RLlib takes it back at the start of
        # an iteration; meanwhile the other runner samples every batch in full.
        for _ in range(40):
            if algo.env_runner_group.num_healthy_remote_workers() == 2:
                break
            sampled.append(algo.train()["env_runners"]["num_env_steps_sampled_lifetime"])
        assert algo.env_runner_group.num_healthy_remote_workers() == 2
        sampled.append(algo.train()["env_runners"]["num_env_steps_sampled_lifetime"])
        assert sampled == [128 * (2 + i) for i in range(len(sampled))]
        after = _runners(algo, lambda r: os.getpid())
        assert after[1] == pids[1] and after[0] != pids[0]
        assert _runners(algo, lambda r: len(r.env.unwrapped.episode_returns) > 0) == [True] * 2
    finally:
        algo.stop()
