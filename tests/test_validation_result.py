"""ValidationResult's fields: a program that cannot run is reported apart from a replay or a
reward that failed."""

from dataclasses import replace

import pytest

import compiler_gym
from compiler_gym.datasets.make_benchmark import make_benchmark_from_source

UNLINKABLE = "int helper(int);\nint main(void) { return helper(3); }\n"
ABORTS = "#include <stdlib.h>\nint main(void) { abort(); }\n"


@pytest.mark.parametrize(
    "source, error",
    [(UNLINKABLE, "undefined reference to `helper'"), (ABORTS, "signal 6")],
    ids=["unlinkable", "aborts"],
)
def test_a_program_that_cannot_run_is_not_a_failed_replay_or_reward(source, error):
    benchmark = make_benchmark_from_source(source, runnable=True)
    benchmark.buildable = True
    with compiler_gym.make("llvm-ic-v0", benchmark=benchmark) as env:
        env.reset()
        env.step(env.action_space.flags.index("-mem2reg"))
        for result in (env.validate(), env.validate(env.state)):  # in place, and replayed
            assert not result.actions_replay_failed
            assert result.reward_validated and not result.reward_validation_failed
            assert result.benchmark_run_failed
            assert not result.benchmark_semantics_validated
            assert not result.benchmark_semantics_validation_failed
            assert not result.okay() and error in result.error_details
            assert result.dict()["benchmark_run_failed"] is True
        # A wrong reward still fails as a reward, beside the program that cannot run.
        wrong = replace(env.state, reward=env.state.reward + 1)
        result = env.validate(wrong)
        assert result.reward_validation_failed and result.benchmark_run_failed
        assert not result.actions_replay_failed
