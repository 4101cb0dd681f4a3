"""env.try_actions / vec.try_actions: every candidate's reward from one state, computed in the
engine, equals forking and stepping one by one."""

import math
import os
import subprocess
import sys

import numpy as np
import pytest

import compiler_gym


@pytest.mark.parametrize(
    "program,prefix",
    [
        ("builtin-v0/qsort", ["-mem2reg", "-instcombine"]),
        ("builtin-v0/crc32", ["-mem2reg", "-instcombine"]),
        ("generator://llvm-stress-v0/3", ["-mem2reg", "-instcombine"]),
        ("builtin-v0/adpcm", ["-sroa", "-inline", "-gvn", "-loop-rotate", "-licm"]),
    ],
)
def test_try_actions_equals_fork_and_step_for_every_action(program, prefix):
    with compiler_gym.make("llvm-v0", reward_space="IrInstructionCount") as env:
        env.reset(benchmark=program)
        env.multistep([env.action_space.flags.index(flag) for flag in prefix])
        before = env.observation["IrSha1"]
        n = env.action_space.n
        rewards, hashes = env.try_actions(range(n), observation_space="IrSha1")
        assert rewards.shape == (n,) and rewards.dtype == np.float64
        for a in range(n):
            with env.fork() as fork:
                _, reward, done, _ = fork.step(a)
                if done:
                    assert math.isnan(rewards[a]) and hashes[a] is None
                else:
                    assert rewards[a] == reward, env.action_space.names[a]
                    assert hashes[a] == fork.observation["IrSha1"], env.action_space.names[a]
        assert env.observation["IrSha1"] == before  # the env itself did not move
        assert len(env.actions) == len(prefix)
        again, hashes_again = env.try_actions(range(n), observation_space="IrSha1")
        np.testing.assert_array_equal(again, rewards)
        assert hashes_again == hashes


def test_try_actions_equals_fork_and_step_on_a_large_program():
    # 22,931 IR instructions: most candidates change many functions, some the module's globals
    # (a whole-module restore), and the scratch envs go back through every kind of restore.
    with compiler_gym.make("llvm-v0", reward_space="IrInstructionCount") as env:
        env.reset(benchmark="generator://csmith-v0/11")
        assert env.observation["IrInstructionCount"] > 20_000
        actions = list(range(0, env.action_space.n, 3))
        rewards, hashes = env.try_actions(actions, observation_space="IrSha1")
        for a, reward, sha in zip(actions, rewards, hashes, strict=True):
            with env.fork() as fork:
                _, expected, done, _ = fork.step(a)
                if done:
                    assert math.isnan(reward) and sha is None, env.action_space.names[a]
                    continue
                assert reward == expected, env.action_space.names[a]
                assert sha == fork.observation["IrSha1"], env.action_space.names[a]


# Every restore in place (test builds) is checked against the snapshot it returns to: the same
# bitcode and the same use lists; a difference aborts the process.
RESTORE_CHECK = """
import sys
import compiler_gym
program, prefix = sys.argv[1], sys.argv[2].split()
with compiler_gym.make("llvm-v0", reward_space="IrInstructionCount") as env:
    env.reset(benchmark=program)
    env.multistep([env.action_space.flags.index(f) for f in prefix])
    n = env.action_space.n
    # Each action twice, and pairs: candidates that change what an earlier one put back.
    env.try_actions(list(range(n)) + list(range(n)) + [[a, (a * 7) % n] for a in range(n)])
print("ok")
"""


@pytest.mark.parametrize(
    "program,prefix",
    [
        ("benchmark://builtin-v0/qsort", ""),
        # -loop-reduce reorders a use list here without changing a body.
        ("benchmark://builtin-v0/sha256", "-sroa -gvn -loop-rotate -licm"),
        ("generator://csmith-v0/3", "-sroa -gvn -loop-rotate -licm"),
    ],
)
def test_restores_in_place_return_exactly_to_the_snapshot(program, prefix):
    run = subprocess.run(
        [sys.executable, "-c", RESTORE_CHECK, program, prefix],
        capture_output=True,
        text=True,
        env={**os.environ, "COMPILER_GYM_TEST_CHECK_RESTORES": "1"},
        timeout=600,
    )
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-2000:]


def test_sequences_and_reward_spaces():
    with compiler_gym.make("llvm-ic-v0", benchmark="builtin-v0/qsort") as env:
        env.reset()
        space = env.action_space
        sequences = [
            [space.flags.index("-sroa"), space.flags.index("-gvn")],
            [],
            [space.flags.index("-simplifycfg")] * 3,
        ]
        rewards = env.try_actions(sequences, reward_space="IrInstructionCount")
        for sequence, reward in zip(sequences, rewards, strict=True):
            with env.fork() as fork:
                fork.reward_space = "IrInstructionCount"
                assert fork.multistep(sequence)[1] == reward if sequence else reward == 0
        # The env's own reward space (IrInstructionCountOz) by default.
        with env.fork() as fork:
            assert (
                env.try_actions([space.flags.index("-sroa")])[0]
                == fork.step(space.flags.index("-sroa"))[1]
            )


def test_bad_calls_are_typed_errors():
    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/qsort") as env:
        env.reset()
        with pytest.raises(ValueError, match="needs a reward space"):
            env.try_actions([0])
        with pytest.raises(ValueError, match="out of range"):
            env.try_actions([env.action_space.n], reward_space="IrInstructionCount")
        with pytest.raises(LookupError):
            env.try_actions([0], reward_space="NoSuchReward")


def test_gcc_candidates_fork_and_step_alike():
    with compiler_gym.make("gcc-v0", reward_space="obj_size") as env:
        env.reset(benchmark="builtin-v0/crc32")
        env.step(env.action_space.flags.index("-Os"))
        candidates = [env.action_space.flags.index(f) for f in ("-O2", "-O0", "-fno-inline")]
        rewards = env.try_actions(candidates)
        for a, reward in zip(candidates, rewards, strict=True):
            with env.fork() as fork:
                assert fork.step(a)[1] == reward
        assert env.command_line.startswith("gcc") and "-Os" in env.command_line


def test_vec_try_actions_equal_single_envs():
    benchmarks = ["builtin-v0/qsort", "builtin-v0/crc32", "builtin-v0/adpcm"]
    rng = np.random.default_rng(0)
    with compiler_gym.make_vec(
        "llvm-ic-v0", num_envs=3, num_threads=2, benchmarks=benchmarks, observation_space=None
    ) as vec:
        vec.reset()
        first = rng.integers(vec.single_action_space.n, size=3)
        vec.step(first)
        candidates = [list(range(0, 123, 3)), [], [[1, 2], [5]]]
        tried = vec.try_actions(candidates, observation_space="IrInstructionCount")
        assert tried[1] is None
        for i in (0, 2):
            with compiler_gym.make("llvm-ic-v0", benchmark=benchmarks[i]) as env:
                env.reset()
                env.step(int(first[i]))
                rewards, counts = env.try_actions(
                    candidates[i], observation_space="IrInstructionCount"
                )
                np.testing.assert_array_equal(tried[i][0], rewards)
                assert list(tried[i][1]) == counts
