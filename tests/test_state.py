"""CompilerEnvState, its CSV form, apply and validate."""

import io

import pytest

import compiler_gym
from compiler_gym import CompilerEnvState, CompilerEnvStateReader, CompilerEnvStateWriter


def test_state_csv_round_trip():
    states = [
        CompilerEnvState(
            "benchmark://builtin-v0/qsort", "opt -mem2reg input.bc -o output.bc", 1.5, 0.25
        ),
        CompilerEnvState("benchmark://builtin-v0/crc32", "opt input.bc -o output.bc", 0.0, None),
    ]
    buf = io.StringIO()
    writer = CompilerEnvStateWriter(buf)
    for s in states:
        writer.write_state(s)
    buf.seek(0)
    assert list(CompilerEnvStateReader(buf)) == states
    for s in states:
        assert CompilerEnvState.from_csv(s.to_csv()) == s


def test_state_csv_header_in_any_order():
    text = "commandline,reward,benchmark,walltime\nopt -adce input.bc -o output.bc,,b://x/y,2\n"
    (state,) = CompilerEnvStateReader(io.StringIO(text))
    assert state.benchmark == "b://x/y" and state.reward is None and state.walltime == 2


def test_state_csv_errors():
    with pytest.raises(ValueError):
        list(CompilerEnvStateReader(io.StringIO("benchmark,reward\nx,1\n")))
    with pytest.raises(ValueError):
        list(
            CompilerEnvStateReader(
                io.StringIO("benchmark,reward,walltime,commandline\nx,notanumber,1,opt\n")
            )
        )


def test_apply_and_validate():
    with compiler_gym.make("llvm-ic-v0") as env:
        env.reset()
        flags = ["-mem2reg", "-instcombine", "-simplifycfg", "-gvn", "-adce"]
        env.multistep([env.action_space.flags.index(f) for f in flags])
        state = env.state
        assert state.reward == env.episode_reward and state.reward > 0
        result = env.validate()
        assert result.okay(), result.error_details()
        assert result.reward_validated
        with compiler_gym.make("llvm-ic-v0") as other:
            other.apply(state)
            assert other.episode_reward == pytest.approx(state.reward, rel=1e-5)
            assert other.observation["IrSha1"] == env.observation["IrSha1"]


def test_validate_catches_wrong_reward():
    with compiler_gym.make("llvm-ic-v0") as env:
        env.reset()
        env.step(env.action_space.flags.index("-mem2reg"))
        wrong = CompilerEnvState(
            env.state.benchmark, env.state.commandline, 1.0, env.episode_reward + 1.0
        )
        result = env.validate(wrong)
        assert not result.okay()
        assert "Expected reward" in result.error_details()
