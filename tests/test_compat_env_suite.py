"""What CompilerGym's own test suite expects of an env, found running it against this package
(issue 52): its error messages' words, a derived observation space named to make(), and an
observation of every space on a program that cannot run."""

import copy

import pytest

import compiler_gym
from compiler_gym.errors import SessionNotFound


def test_shallow_copy_is_refused_in_compiler_gyms_words():
    with compiler_gym.make("llvm-v0") as env:
        with pytest.raises(
            TypeError,
            match=r"^ClientServiceCompilerEnv instances do not support shallow copies. "
            r"Use deepcopy\(\)",
        ):
            copy.copy(env)


@pytest.mark.parametrize(
    "env_id,observation,reward",
    [("llvm-v0", "Ir", "IrInstructionCount"), ("gcc-v0", "asm", "obj_size")],
)
def test_observations_and_rewards_outside_an_episode(env_id, observation, reward):
    with compiler_gym.make(env_id) as env:
        with pytest.raises(SessionNotFound, match=r"^Must call reset\(\) before step\(\): obs"):
            env.observation[observation]
        with pytest.raises(SessionNotFound, match=r"^Must call reset\(\) before step\(\): rew"):
            env.reward[reward]


def test_an_action_out_of_range_says_so_first():
    with compiler_gym.make("gcc-v0") as env:
        env.reset()
        n = env.action_space.n
        with pytest.raises(
            ValueError, match=rf"^Out-of-range action: action 10000 is out of range \[0, {n}\)"
        ):
            env.step(10000)


def test_a_derived_observation_space_can_be_named_to_make():
    with compiler_gym.make(
        "llvm-v0", benchmark="benchmark://builtin-v0/crc32", observation_space="LexedIrTuple"
    ) as env:
        tokens = env.reset()
        assert env.observation_space_spec.id == "LexedIrTuple"
        assert tokens[0].kind == "kw_source_filename" and len(tokens) > 1000


def test_every_observation_of_a_program_that_cannot_run():
    """CompilerGym's fuzz tests observe every space on llvm-stress programs, which do not run:
    each gives a value (RuntimeO0, an extra space here, is NaN as Runtime is empty)."""
    with compiler_gym.make("llvm-v0", benchmark="generator://llvm-stress-v0/3") as env:
        env.reset()
        for name in env.observation.spaces:
            env.observation[name]
