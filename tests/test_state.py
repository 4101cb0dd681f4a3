"""CompilerEnvState, its CSV form, apply and validate."""

import io
import json

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
        assert result.okay(), result.error_details
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
        assert "Expected reward" in result.error_details
        assert result.reward_validation_failed and not result.actions_replay_failed
        assert not result.benchmark_semantics_validation_failed
        bad_line = CompilerEnvState(env.state.benchmark, "opt -no-such-pass input.bc", 1.0)
        broken = env.validate(bad_line)
        assert broken.actions_replay_failed and not broken.reward_validation_failed
        assert json.loads(broken.json())["state"]["commandline"] == bad_line.commandline


def test_state_semantics_as_compiler_gyms(monkeypatch):
    uri, line = "benchmark://builtin-v0/qsort", "opt -mem2reg input.bc -o output.bc"
    assert CompilerEnvState(uri, line, 1.0, 0.5) == CompilerEnvState(uri, line, 2.0, None)
    assert CompilerEnvState(uri, line, 1.0, 0.5) != CompilerEnvState(uri, line, 1.0, 0.6)
    assert CompilerEnvState(uri, line, 3, 5).to_csv() == f"{uri},5.0,3.0,{line}\n"
    assert json.loads(CompilerEnvState(uri, line, 1.5, 0.25).json()) == {
        "benchmark": uri,
        "commandline": line,
        "walltime": 1.5,
        "reward": 0.25,
    }
    headerless = f"{uri},0.25,1.5,{line}\n\n{uri},,2,opt input.bc -o output.bc\n"
    states = list(CompilerEnvStateReader(io.StringIO(headerless)))
    assert [s.reward for s in states] == [0.25, None] and states[1].walltime == 2.0
    assert list(CompilerEnvStateReader(io.StringIO(""))) == []
    assert list(CompilerEnvStateReader(io.StringIO("\n\n"))) == []
    monkeypatch.setattr("sys.stdin", io.StringIO(headerless))
    assert list(CompilerEnvStateReader.read_paths(["-"])) == states
    with pytest.raises(ValueError, match="line 2: 2 columns"):
        list(CompilerEnvStateReader(io.StringIO(f"{uri},1,1,opt\n{uri},1\n")))


def test_validate_states_in_parallel_and_in_order():
    made = []

    def make_env():
        made.append(1)
        return compiler_gym.make("llvm-ic-v0")

    with compiler_gym.make("llvm-ic-v0") as env:
        states = []
        for name in ("crc32", "qsort", "adpcm", "bitcount", "sha256"):
            env.reset(benchmark=f"builtin-v0/{name}")
            env.step(env.action_space["-mem2reg"])
            states.append(env.state)
    states[2] = CompilerEnvState(states[2].benchmark, states[2].commandline, 0.0, 99.0)
    results = list(compiler_gym.validate_states(make_env, states, nproc=2, inorder=True))
    assert [r.state for r in results] == states
    assert [r.okay() for r in results] == [True, True, False, True, True]
    assert 1 <= len(made) <= 2  # one env per thread
    unordered = list(compiler_gym.validate_states(make_env, states, nproc=2))
    assert sorted(r.state.benchmark for r in unordered) == sorted(s.benchmark for s in states)
