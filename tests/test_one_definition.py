"""Logic kept once: the spec rows' fields (engine/space.h) as Python sees them, and the single
env's step as one crossing into the engine (Env::StepAndObserve)."""

import pytest

import compiler_gym
from conftest import NEXT_STEP_PIPELINE

ENV_IDS = ["llvm-v0", "gcc-v0", "example-v0", "loop_tool-v0"]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_field_of_every_spec_row_reads_the_same_in_python(env_id):
    with compiler_gym.make(env_id) as env:
        engine = env.unwrapped._env.spec
        assert engine["observation_spaces"] and engine["reward_spaces"]
        for row in engine["observation_spaces"]:
            spec = env.observation.spaces[row["name"]]
            for field, value in row.items():
                assert getattr(spec, field) == value, (env_id, row["name"], field)
        for row in engine["reward_spaces"]:
            spec = env.reward.spaces[row["name"]]
            for field, value in row.items():
                assert getattr(spec, field) == value, (env_id, row["name"], field)
            assert spec.reward_range == (row["low"], row["high"])


def test_the_oz_threshold_is_a_field_of_the_reward_row():
    with compiler_gym.make("llvm-v0") as env:
        thresholds = {name: r.success_threshold for name, r in env.reward.spaces.items()}
    assert {n for n, t in thresholds.items() if t is not None} == {
        "IrInstructionCountOz",
        "ObjectTextSizeOz",
        "TextSizeOz",
    }
    assert thresholds["IrInstructionCountOz"] == 1.0
    with compiler_gym.make("gcc-v0") as env:
        assert all(r.success_threshold is None for r in env.reward.spaces.values())


class _CountingEngine:
    """Stands for an env's engine object and counts the calls made into it."""

    def __init__(self, engine):
        self._engine = engine
        self.calls = []

    def __getattr__(self, name):
        value = getattr(self._engine, name)
        self.calls.append(name)
        return value


@pytest.mark.parametrize(
    "observation_space,reward_space",
    [("Autophase", "IrInstructionCountOz"), (None, None), ("Ir", None)],
)
def test_a_step_crosses_into_the_engine_once(observation_space, reward_space):
    with compiler_gym.make(
        "llvm-v0",
        benchmark="builtin-v0/qsort",
        observation_space=observation_space,
        reward_space=reward_space,
    ) as env:
        env.reset()
        mem2reg = env.action_space["-mem2reg"]
        counting = _CountingEngine(env._env)
        env._env = counting
        try:
            env.step(mem2reg)
            assert counting.calls == ["step"]
            counting.calls.clear()
            env.multistep([1, 2, 3])
            assert counting.calls == ["step"]
            counting.calls.clear()
            env.step(4, observation_spaces=["InstCount", "IrSha1"], reward_spaces=["TextSizeOz"])
            assert counting.calls == ["step"]
        finally:
            env._env = counting._engine


def test_an_error_that_ends_the_episode_takes_the_engines_defaults_and_undoes_its_reward():
    with compiler_gym.make(
        "llvm-v0",
        benchmark="builtin-v0/qsort",
        observation_space="Autophase",
        reward_space="IrInstructionCount",
    ) as env:
        env.reset()
        _, earned, _, _ = env.step(env.action_space["-mem2reg"])
        assert earned > 0 and env.episode_reward == earned
        # The test builds' hook: the next step runs a pass that reports a fatal error.
        env._env.set_parameter(NEXT_STEP_PIPELINE, "compiler-gym-test-fatal-error")
        observation, reward, done, info = env.step(0)
        assert done and info["error_type"]
        assert reward == -earned and env.episode_reward == 0.0
        assert observation.tolist() == [0] * 56
        assert env.observation.spaces["Autophase"].default_value.tolist() == [0] * 56
