"""Building and running programs: Runtime, Buildtime, the Runtime rewards, and the parameters
that control runs."""

import math
import os
import statistics

import numpy as np
import pytest

import compiler_gym
from compiler_gym import _C
from compiler_gym.envs import RuntimePointEstimateReward
from compiler_gym.errors import BenchmarkInitError

# About 30 ms per run: long enough to time, short enough for a test.
PROGRAM = "benchmark://builtin-v0/crc32?dataset=2"


@pytest.fixture
def env():
    with compiler_gym.make("llvm-v0", benchmark=PROGRAM) as e:
        e.reset()
        yield e


def test_runtime_is_measured_anew_each_time(env):
    # Only what is deterministic is asserted: how many runs, their sign, that a second
    # observation measures again. How close two measurements are depends on the machine's
    # load, so that claim lives in benchmarks/, not here.
    env.runtime_observation_count = 5
    env.runtime_warmup_runs_count = 1
    first = env.observation["Runtime"]
    assert first.dtype == np.float64 and first.shape == (5,)
    assert (first > 0).all() and np.isfinite(first).all()
    env.reset()
    second = env.observation["Runtime"]
    assert second.shape == (5,)
    assert not np.array_equal(first, second)  # really measured twice
    assert env.observation.spaces["Runtime"].space.contains(first)


def test_runtime_is_measured_once_per_state(env):
    first = env.observation["Runtime"]
    assert np.array_equal(env.observation["Runtime"], first)  # cached: same state
    env.step(env.action_space.flags.index("-mem2reg"))
    assert not np.array_equal(env.observation["Runtime"], first)


def test_buildtime(env):
    buildtime = env.observation["Buildtime"]
    assert buildtime.shape == (1,) and 0 < buildtime[0] < 60


def test_not_runnable_benchmarks_have_no_runs():
    with compiler_gym.make("llvm-v0", benchmark="generator://llvm-stress-v0/3") as env:
        env.reset()
        assert env.observation["IsRunnable"] is False
        assert env.observation["IsBuildable"] is False
        assert env.observation["Runtime"].shape == (0,)
        assert env.observation["Buildtime"].shape == (0,)
        # No reference runtime either (code that observes every space goes on), and so no
        # Runtime reward: a clear error, not a NaN reward.
        assert math.isnan(env.observation["RuntimeO0"])
        with pytest.raises(ValueError, match="reward Runtime has no value for generator://llvm"):
            env.reward["Runtime"]


def test_runtime_reward_is_the_change_of_the_median(env):
    env.runtime_observation_count = 3
    initial = env.observation["RuntimeO0"]
    assert initial > 0
    flags = env.action_space.flags
    previous = initial
    total = 0.0
    for flag in ("-mem2reg", "-instcombine", "-simplifycfg"):
        (runtimes,), (reward,), done, _ = env.step(
            flags.index(flag), observation_spaces=["Runtime"], reward_spaces=["Runtime"]
        )
        assert not done
        assert len(runtimes) == 3
        assert reward == pytest.approx(previous - statistics.median(runtimes), abs=1e-12)
        previous = statistics.median(runtimes)
        total += reward
    assert total == pytest.approx(initial - previous, abs=1e-9)
    spec = env.reward.spaces["Runtime"]
    assert not spec.deterministic and spec.platform_dependent


def test_runtime_point_estimate_reward(env):
    reward_space = RuntimePointEstimateReward(runtime_count=3, warmup_count=1)
    env.reward_space = reward_space
    assert env.runtime_observation_count == 3 and env.runtime_warmup_runs_count == 1
    env.reset()
    start = reward_space.starting_runtime
    assert start > 0
    _, reward, done, _ = env.step(env.action_space.flags.index("-mem2reg"))
    assert not done
    assert reward == pytest.approx(start - reward_space.previous_runtime)
    assert env.reward["runtime"] == pytest.approx(0.0, abs=1e-12)  # same state, cached runs
    # A fork continues from its own copy of the reward's state.
    fork = env.fork()
    assert fork.reward_space is not reward_space
    assert fork.reward_space.previous_runtime == reward_space.previous_runtime
    fork.close()


def test_runtime_point_estimate_reward_needs_a_runnable_benchmark():
    with compiler_gym.make("llvm-v0", benchmark="generator://llvm-stress-v0/3") as env:
        env.reward_space = RuntimePointEstimateReward()
        with pytest.raises(BenchmarkInitError, match="not runnable"):
            env.reset()


def test_run_parameters_are_checked(env):
    env.runtime_observation_count = 2
    assert env.runtime_observation_count == 2
    # A count below its least in the words of CompilerGym's service; any other bad value in
    # the engine's.
    for bad in (0, -1):
        with pytest.raises(
            ValueError, match=f"runtimes_per_observation_count must be >= 1. Received: {bad}"
        ):
            env.runtime_observation_count = bad
    with pytest.raises(ValueError, match="runtime_observation_count must be an integer >= 1"):
        env.runtime_observation_count = 1.5
    with pytest.raises(ValueError, match="warmup_runs_count_per_runtime_observation must be >= 0"):
        env.runtime_warmup_runs_count = -1
    with pytest.raises(ValueError, match="unknown parameter"):
        env._env.set_parameter("no_such_parameter", "1")
    assert env.runtime_observation_count == 2  # a rejected value changes nothing


def test_a_program_that_times_out_is_a_clear_error(env):
    env.runtime_timeout_seconds = 0.001
    with pytest.raises(TimeoutError, match="timed out"):
        env.observation["Runtime"]
    env.runtime_timeout_seconds = 60
    assert len(env.observation["Runtime"]) == 1  # the env is still usable


def test_sandbox_from_python(tmp_path):
    r = _C.run_sandboxed(["/bin/sh", "-c", "echo out; echo err >&2; exit 4"])
    assert (r["exit_code"], r["stdout"], r["stderr"], r["ok"]) == (4, b"out\n", b"err\n", False)
    r = _C.run_sandboxed(["/bin/sh", "-c", "sleep 5"], timeout_seconds=0.2)
    assert r["timed_out"] and r["description"] == "timed out after 0.2 s"
    with pytest.raises(FileNotFoundError):
        _C.run_sandboxed([str(tmp_path / "missing")])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_sandbox_children_have_the_default_memory_limit():
    # `ulimit -v` is RLIMIT_AS in KiB: 8 GiB unless the caller asks otherwise.
    assert _C.run_sandboxed(["/bin/sh", "-c", "ulimit -v"])["stdout"] == b"8388608\n"
    limited = _C.run_sandboxed(["/bin/sh", "-c", "ulimit -v"], memory_bytes=64 << 20)
    assert limited["stdout"] == b"65536\n"


@pytest.mark.parametrize("then", ["", "; sleep 30"])
def test_a_program_that_leaves_its_session_leaves_nothing_behind(then):
    # setsid() takes the child out of the program's process group: killing the group misses it,
    # the reaper that runs every program does not (a normal end, and a time-out).
    r = _C.run_sandboxed(["/bin/sh", "-c", f"setsid sleep 30 & echo $!{then}"], timeout_seconds=1)
    escaped = int(r["stdout"])
    try:
        assert not _alive(escaped), f"pid {escaped} outlived its run"
    finally:
        if _alive(escaped):
            os.kill(escaped, 9)
