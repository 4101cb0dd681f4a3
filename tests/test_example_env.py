"""The example family (envs/example, compiler_gym.envs.example_env) through the generic path:
registered in the engine's table only, found by make(), and run unchanged by the vector
engine, worker processes, Gymnasium, state CSVs and validation."""

import numpy as np
import pytest

import compiler_gym
from compiler_gym import _C
from compiler_gym.compiler_env_state import CompilerEnvState
from compiler_gym.envs.example_env import ExampleEnv
from compiler_gym.registration import family_class


def test_make_finds_the_family_module_by_its_registered_name():
    assert {"id": "example-v0", "family": "example"}.items() <= next(
        e for e in _C.env_ids() if e["id"] == "example-v0"
    ).items()
    assert "example" in [f["name"] for f in _C.families()]
    assert family_class("example") is ExampleEnv
    with compiler_gym.make("example-v0") as env:
        assert type(env) is ExampleEnv
        assert env.reward_space.name == "inversions"  # the registry row's default
        assert env.action_space.names == [f"swap-{i}" for i in range(7)]


@pytest.mark.parametrize("isolation", ["none", "process"])
def test_swaps_sort_the_list_and_rewards_count_inversions(isolation):
    with compiler_gym.make("example-v0", observation_space="values", isolation=isolation) as env:
        # NumPy's generator seeded with 3 draws these digits: a fixed input.
        assert env.reset(benchmark="example-v0/3").tolist() == [8, 0, 1, 2, 1, 8, 8, 5]
        assert env.observation["inversions"] == 8
        actions = env.sort_actions()
        assert actions == [0, 1, 2, 3, 6, 2, 5, 4]
        observation, reward, done, info = env.multistep(actions)
        assert observation.tolist() == [0, 1, 1, 2, 5, 8, 8, 8]
        assert (reward, done) == (8.0, False)
        assert env.observation["program"] == "0 1 1 2 5 8 8 8"
        _, reward, _, info = env.step(0)  # 0 and 1 swap back: one inversion more
        assert reward == -1.0 and not info["action_had_no_effect"]
        assert env.step(6)[3]["action_had_no_effect"]  # 8 and 8


def test_fork_state_and_validate():
    with compiler_gym.make("example-v0") as env:
        env.reset(benchmark="example-v0/5")
        env.multistep([0, 3, 5])
        with env.fork() as fork:
            fork.step(1)
            assert fork.actions == [0, 3, 5, 1]
            assert env.actions == [0, 3, 5]
        state = CompilerEnvState.from_csv(env.state.to_csv())
        assert state.commandline == "swap-0 swap-3 swap-5"
        with compiler_gym.make("example-v0") as replay:
            assert replay.validate(state).okay()
            bad = CompilerEnvState(state.benchmark, state.commandline, 0.0, reward=99.0)
            assert not replay.validate(bad).okay()


def test_bad_benchmarks_and_actions_are_typed_errors():
    with compiler_gym.make("example-v0") as env:
        with pytest.raises(LookupError):
            env.reset(benchmark="example-v0/100")
        from compiler_gym.datasets import Benchmark
        from compiler_gym.errors import BenchmarkInitError

        with pytest.raises(BenchmarkInitError, match="not a list of integers"):
            env.reset(benchmark=Benchmark("benchmark://example-v0/bad", data=b"1 two 3"))
        env.reset(benchmark="example-v0/0")
        with pytest.raises(ValueError):
            env.step(7)
    with pytest.raises(NotImplementedError, match="no operation"):
        _C.family_call("example", "anything")
    with pytest.raises(ValueError, match="unknown environment family"):
        _C.family_call("nope", "anything")


def test_make_vec_rows_equal_single_envs():
    rng = np.random.default_rng(0)
    benchmarks = [f"example-v0/{n}" for n in range(4)]
    with compiler_gym.make_vec(
        "example-v0",
        num_envs=4,
        num_threads=2,
        benchmarks=benchmarks,
        observation_space="values",
        reward_space="inversions",
    ) as vec:
        observations, _ = vec.reset()
        singles = [compiler_gym.make("example-v0", observation_space="values") for _ in benchmarks]
        for single, benchmark, row in zip(singles, benchmarks, observations, strict=True):
            assert single.reset(benchmark=benchmark).tolist() == row.tolist()
        for _ in range(5):
            actions = rng.integers(7, size=4)
            observations, rewards, _, _, _ = vec.step(actions)
            for i, single in enumerate(singles):
                observation, reward, _, _ = single.step(int(actions[i]))
                assert observations[i].tolist() == observation.tolist()
                assert rewards[i] == reward
        for single in singles:
            single.close()


def test_gymnasium_checks_pass():
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("compiler_gym/example-v0", render_mode="ansi")
    check_env(env.unwrapped, skip_render_check=True)
    env.reset(seed=0)
    assert env.render() == env.unwrapped.env.observation["program"]
    env.close()
