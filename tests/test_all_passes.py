"""Every pass of the table on every built-in benchmark leaves a module that verifies.

The engine verifies the module after every pass that changes it and ends the episode (done,
error_type) if it does not verify; so a step that is not done is a verified module.
"""

import pytest

import compiler_gym

BUILTINS = list(compiler_gym.make("llvm-v0").datasets.dataset("builtin-v0").benchmark_uris())


@pytest.mark.parametrize("uri", BUILTINS)
def test_every_pass_from_a_fresh_module(uri):
    with compiler_gym.make("llvm-v0", benchmark=uri) as env:
        env.reset()
        initial = env.observation["IrSha1"]
        for action, flag in enumerate(env.action_space.flags):
            env.reset()
            _, _, done, info = env.step(action)
            assert not done, f"{flag} on {uri}: {info.get('error_details')}"
        env.reset()
        assert env.observation["IrSha1"] == initial


@pytest.mark.parametrize("uri", BUILTINS)
def test_every_pass_in_sequence_after_mem2reg(uri):
    # After mem2reg the loop and SSA passes have real work to do.
    with compiler_gym.make("llvm-v0", benchmark=uri) as env:
        env.reset()
        env.step(env.action_space.flags.index("-mem2reg"))
        for action, flag in enumerate(env.action_space.flags):
            _, _, done, info = env.step(action)
            assert not done, f"{flag} on {uri}: {info.get('error_details')}"
        assert env.observation["IrInstructionCount"] > 0
