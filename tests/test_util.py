"""compiler_gym.util: exact values on fixed inputs."""

import os
import time
import types

import pytest

import compiler_gym
from compiler_gym.util.minimize_trajectory import (
    MinimizationError,
    bisect_trajectory,
    minimize_trajectory_iteratively,
    random_minimization,
)
from compiler_gym.util.runfiles import package_data_path, runfiles_path, transient_cache_path
from compiler_gym.util.statistics import geometric_mean
from compiler_gym.util.timer import Timer, humanize_duration, humanize_duration_hms
from compiler_gym.util.truncate import truncate, truncate_lines


def test_geometric_mean_is_compiler_gyms_score():
    assert geometric_mean([1.0, 4.0]) == pytest.approx(2.0)
    assert geometric_mean([0.5, 0.5, 2.0]) == pytest.approx(0.5 ** (1 / 3))
    # A result that made a program worse (or no better) is not left out: the score is 0.
    assert geometric_mean([2.0, 0.0]) == 0.0
    assert geometric_mean([2.0, -0.1]) == 0.0
    assert geometric_mean([]) == 0.0


def test_humanize_durations_as_compiler_gym_writes_them():
    cases = [(0.0000000019, "1.9ns"), (0.0000119, "11.9us"), (0.0055, "5.5ms")]
    cases += [(0.9999, "999.9ms"), (5, "5.000s"), (500.111111, "500.1s"), (-1.5, "-1.500s")]
    assert [humanize_duration(s) for s, _ in cases] == [text for _, text in cases]
    assert humanize_duration_hms(3725) == "1:02:05"
    assert humanize_duration_hms(0.999) == "0:00:00"  # whole seconds, not rounded
    assert humanize_duration_hms(4210.4) == "1:10:10"


def test_timer_reports_through_print_fn():
    printed = []
    unstarted = Timer()
    assert unstarted.time == 0 and str(unstarted) == "0.0ns"
    with Timer("compile", print_fn=printed.append) as timer:
        running = timer.time
        assert running >= 0 and timer.time >= running  # the running time, growing
    assert timer.time > 0 and printed == [f"compile in {humanize_duration(timer.time)}"]
    elapsed = timer.time
    time.sleep(0.01)
    assert timer.time == elapsed  # fixed once the block ends


def test_truncate():
    text = "abcdefghij\nsecond\nthird"
    assert truncate(text, max_line_len=8, max_lines=2) == "abcde...\nsecon..."
    # The last lines, with no mark of those left off before them (CompilerGym's tail).
    assert truncate(text, max_line_len=8, max_lines=2, tail=True) == "second\nthird"
    assert truncate("abc\ndef\n123", max_line_len=10, max_lines=2) == "abc\ndef..."
    assert truncate("short", 10) == "short" and truncate("x" * 20, 10) == "xxxxxxx..."
    assert truncate_lines(["a", "b"], 10, 5) == "a\nb"  # one string, as CompilerGym's
    assert truncate_lines((line for line in ["abcdefghij", "b"]), 5, 3) == "ab...\nb"
    with pytest.raises(ValueError):
        truncate("x", max_line_len=3)


def test_paths(monkeypatch, tmp_path):
    assert runfiles_path("compiler_gym/data") == package_data_path()
    monkeypatch.setenv("COMPILER_GYM_TRANSIENT_CACHE", str(tmp_path))
    assert transient_cache_path("a", "b") == tmp_path / "a" / "b"
    monkeypatch.delenv("COMPILER_GYM_TRANSIENT_CACHE")
    assert transient_cache_path().name.startswith("compiler_gym_")


FLAGS = ["-loop-rotate", "-mem2reg", "-licm", "-sroa", "-instcombine", "-lcssa", "-gvn"]


@pytest.fixture
def env():
    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32") as env:
        env.reset()
        env.multistep([env.action_space[f] for f in FLAGS])
        yield env


def test_minimize_iteratively_gives_a_one_minimal_sequence(env):
    target = env.observation["IrInstructionCount"]

    def same_size(e):
        return e.observation["IrInstructionCount"] == target

    steps = minimize_trajectory_iteratively(env, same_size)
    assert isinstance(steps, types.GeneratorType) and env.actions  # nothing done yet
    yielded = list(steps)
    assert yielded and all(e is env for e in yielded)
    actions = env.actions
    assert same_size(env) and len(actions) < len(FLAGS)
    for i in range(len(actions)):  # no single action can go
        env.reset()
        env.multistep(actions[:i] + actions[i + 1 :])
        assert not same_size(env)


def test_bisect_and_random_keep_what_the_hypothesis_needs(env):
    mem2reg = env.action_space["-mem2reg"]

    def has_mem2reg(e):
        return mem2reg in e.actions

    # Bisection: 7 actions, prefixes of 3, 1 and 2 tried; the hypothesis holds for 3 and 2.
    assert len(list(bisect_trajectory(env, has_mem2reg))) == 3
    assert env.actions == [env.action_space[f] for f in FLAGS[:2]]
    env.multistep([env.action_space[f] for f in FLAGS[2:]])
    for _ in bisect_trajectory(env, has_mem2reg, reverse=True):
        pass
    assert env.actions == [env.action_space[f] for f in FLAGS[1:]]
    # Random removals (seeded): one kept removal of the 6 actions leaves 2, then the search
    # stops below min_trajectory_len; the last yield is the final state.
    assert len(list(random_minimization(env, has_mem2reg, min_trajectory_len=3, seed=0))) == 2
    assert env.actions == [mem2reg, env.action_space["-lcssa"]]
    with pytest.raises(MinimizationError):
        next(random_minimization(env, lambda e: False))
    assert issubclass(MinimizationError, OSError)  # CompilerGym's base


def test_user_dirs_come_from_platformdirs_and_the_variables_win(monkeypatch, tmp_path):
    from compiler_gym.util.runfiles import cache_path, site_data_path

    monkeypatch.delenv("COMPILER_GYM_SITE_DATA", raising=False)
    monkeypatch.delenv("COMPILER_GYM_CACHE", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert site_data_path("x") == tmp_path / "data" / "compiler_gym" / "x"
    assert cache_path("y") == tmp_path / "cache" / "compiler_gym" / "y"
    monkeypatch.setenv("COMPILER_GYM_SITE_DATA", str(tmp_path / "site"))
    monkeypatch.setenv("COMPILER_GYM_CACHE", str(tmp_path / "mine"))
    assert site_data_path("x") == tmp_path / "site" / "x"
    assert cache_path("y") == tmp_path / "mine" / "y"


def test_compiler_gyms_util_module_names():
    from compiler_gym.util import runfiles
    from compiler_gym.util.runfiles_path import cache_path, site_data_path
    from compiler_gym.util.thread_pool import get_thread_pool_executor

    assert site_data_path is runfiles.site_data_path and cache_path is runfiles.cache_path
    pool = get_thread_pool_executor()
    assert pool is get_thread_pool_executor()
    assert sorted(pool.map(lambda x: x * x, range(5))) == [0, 1, 4, 9, 16]


def test_debug_level_as_compiler_gym_sets_it(monkeypatch):
    """set_debug_level sets $COMPILER_GYM_DEBUG (for child processes too) and the logger's
    level; levels read back clamped, and a level that is not an integer is refused."""
    import logging

    import compiler_gym
    from compiler_gym.util import debug_util

    monkeypatch.delenv("COMPILER_GYM_DEBUG", raising=False)
    try:
        assert compiler_gym.get_debug_level() == 0
        assert compiler_gym.get_logging_level() == logging.ERROR
        compiler_gym.set_debug_level(2)
        assert os.environ["COMPILER_GYM_DEBUG"] == "2"
        assert logging.getLogger("compiler_gym").level == logging.INFO
        compiler_gym.set_debug_level(7)
        assert debug_util.get_logging_level() == logging.DEBUG
        monkeypatch.setenv("COMPILER_GYM_DEBUG", "lots")
        assert compiler_gym.get_debug_level() == 0
        # Any integer, read back clamped (CompilerGym's): negative is 0.
        compiler_gym.set_debug_level(-1)
        assert compiler_gym.get_debug_level() == 0
        assert compiler_gym.get_logging_level() == logging.ERROR
        compiler_gym.set_debug_level(15)
        assert compiler_gym.get_debug_level() == 15
        assert compiler_gym.get_logging_level() == logging.DEBUG
        for bad in (1.5, True):
            with pytest.raises(ValueError, match="debug level"):
                compiler_gym.set_debug_level(bad)
    finally:
        monkeypatch.delenv("COMPILER_GYM_DEBUG", raising=False)
        debug_util.configure_logging()
    assert logging.getLogger("compiler_gym").level == logging.ERROR
    assert logging.getLogger("compiler_gym").handlers == []
