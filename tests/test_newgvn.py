"""-newgvn, back as an action of the opt-in space PassesAllUnsound: it runs in an opt-19 process
of its own (envs/llvm/passes.cc, RunsInOwnProcess), so that one module gives one result in any
env, fork, thread or process (envs/llvm/PASSES.md, "-newgvn")."""

import os
import random
import re
import subprocess
import sys

import numpy as np
import pytest

import compiler_gym
from compiler_gym.envs.llvm_env import pass_table

# The fuzz case that got -newgvn excluded (PASSES.md): in one process, the module after these
# actions gave one of two modules under an in-process NewGVN (a `br i1 false` in unreachable
# code became `br i1 true`), 21 to 9 in 30 resets.
CASE = "generator://csmith-v0/850135982"
PREFIX = (
    "-nary-reassociate -loop-unswitch -loop-versioning -loop-flatten -coro-split -loop-unswitch "
    "-loweratomic -licm -indvars -lcssa -loop-sink -pgo-memop-opt -mergefunc -rpo-functionattrs "
    "-loop-rotate"
).split()
OPT_IN = {"action_space": "PassesAllUnsound"}

# A second process computes the same: the prefix, then -newgvn, in an env of its own.
SECOND_PROCESS = f"""
import compiler_gym
with compiler_gym.make("llvm-v0", benchmark={CASE!r}, action_space="PassesAllUnsound") as env:
    env.reset()
    env.multistep([env.action_space[f] for f in {PREFIX + ["-newgvn"]!r}])
    print(env.observation["IrSha1"])
"""


def after_newgvn_in_forks(env, forks: int) -> set:
    """The IrSha1s of ``forks`` forks of ``env`` after -newgvn, with the heap moved between
    them (blocks of several sizes kept alive or freed), which moved an in-process NewGVN's
    result."""
    junk, sizes, seen = [], random.Random(0), set()
    for _ in range(forks):
        junk += [bytearray(sizes.choice([24, 72, 520, 4200, 70000])) for _ in range(150)]
        del junk[: sizes.randrange(len(junk) + 1)]
        with env.fork() as fork:
            _, _, done, info = fork.step(fork.action_space["-newgvn"])
            assert not done, info
            seen.add(fork.observation["IrSha1"])
    return seen


def test_newgvn_is_appended_to_the_opt_in_space_only():
    sound = [row[0] for row in pass_table("PassesAll")]
    unsound = [row[0] for row in pass_table("PassesAllUnsound")]
    assert "-newgvn" not in sound and len(sound) == 121
    # Appended: -iroutliner keeps its index 121, -newgvn is 122.
    assert unsound == [*sound, "-iroutliner", "-newgvn"]
    assert [r for r in pass_table("PassesAllUnsound") if r[0] == "-newgvn"][0][1] == (
        "function(newgvn)"
    )
    with compiler_gym.make("llvm-v0") as env:
        with pytest.raises(LookupError, match="'-newgvn' is not in PassesAll: it is in the opt-in"):
            env.action_space["-newgvn"]
    with compiler_gym.make("llvm-v0", **OPT_IN) as env:
        assert env.action_space["-newgvn"] == 122 and env.action_space["-iroutliner"] == 121


def test_newgvn_gives_one_module_across_forks_threads_and_processes():
    with compiler_gym.make("llvm-v0", benchmark=CASE, **OPT_IN) as env:
        env.reset()
        env.multistep([env.action_space[f] for f in PREFIX])
        before = env.observation["IrSha1"]
        seen = after_newgvn_in_forks(env, 12)
        assert len(seen) == 1 and before not in seen
        _, _, done, _ = env.step(env.action_space["-newgvn"])
        assert not done and {env.observation["IrSha1"]} == seen
        assert env.commandline().endswith("-newgvn input.bc -o output.bc")
    # A vector env at one thread and at several: every env's row is the same module.
    for threads in (1, 3):
        with compiler_gym.make_vec(
            "llvm-v0",
            num_envs=3,
            num_threads=threads,
            benchmarks=[CASE],
            observation_space="IrSha1",
            reward_space=None,
            array_type="numpy",
            **OPT_IN,
        ) as vec:
            vec.reset()
            actions = [vec.env_action_space[f] for f in PREFIX + ["-newgvn"]]
            for action in actions:
                obs, _, terminated, _, _ = vec.step(np.full(3, action))
                assert not terminated.any()
            assert set(obs) == seen, threads
    # Another process, and an env in a worker process.
    out = subprocess.run(
        [sys.executable, "-c", SECOND_PROCESS], capture_output=True, text=True, check=True
    )
    assert {out.stdout.strip()} == seen
    with compiler_gym.make("llvm-v0", benchmark=CASE, isolation="process", **OPT_IN) as env:
        env.reset()
        env.multistep(actions)
        assert {env.observation["IrSha1"]} == seen


def test_newgvn_replays_and_leaves_try_actions_unchanged():
    huffman = "benchmark://builtin-v0/huffman"
    with compiler_gym.make("llvm-ic-v0", benchmark=huffman, **OPT_IN) as env:
        env.reset()
        env.multistep([env.action_space[f] for f in ("-mem2reg", "-gvn")])
        state = env.observation["IrSha1"]
        newgvn = env.action_space["-newgvn"]
        rewards = env.try_actions([newgvn, [newgvn, newgvn]])
        assert np.isfinite(rewards).all()
        assert env.observation["IrSha1"] == state  # the candidates left no trace
        _, reward, _, info = env.step(newgvn)
        assert not info["action_had_no_effect"] and reward == rewards[0]
        after = env.observation["IrSha1"]
        # Run to a fixpoint: a step that changes nothing is no effect, and keeps the module.
        for _ in range(5):
            _, _, _, info = env.step(newgvn)
            if info["action_had_no_effect"]:
                break
        assert info["action_had_no_effect"]
        fixpoint = env.observation["IrSha1"]
        assert env.step(newgvn)[3]["action_had_no_effect"]
        assert env.observation["IrSha1"] == fixpoint
        state = env.state
    # A new env, replaying by name: the same modules.
    with compiler_gym.make("llvm-ic-v0", **OPT_IN) as env:
        env.reset(benchmark=huffman)
        env.multistep([env.action_space[f] for f in ("-mem2reg", "-gvn", "-newgvn")])
        assert env.observation["IrSha1"] == after
        env.apply(state)
        assert env.observation["IrSha1"] == fixpoint
    # A state that uses -newgvn replays in the opt-in space only, as -iroutliner's do.
    with compiler_gym.make("llvm-ic-v0") as env:
        with pytest.raises(ValueError, match="only the opt-in action space 'PassesAllUnsound'"):
            env.apply(state)


def test_newgvn_miscompiles_huffman_after_gvn_and_dse():
    """Why -newgvn is in the opt-in space only: LLVM 19's NewGVN breaks builtin huffman (UB-free
    under ASan and UBSan) after -gvn -dse, with opt-19 too (docs/search.md)."""
    with compiler_gym.make("llvm-v0", benchmark="benchmark://builtin-v0/huffman", **OPT_IN) as env:
        env.reset()
        env.multistep([env.action_space[f] for f in ("-gvn", "-dse")])
        assert env.validate().okay()
        env.step(env.action_space["-newgvn"])
        result = env.validate()
        assert result.benchmark_semantics_validation_failed
        assert "huffman: invalid code lengths" in result.error_details


@pytest.mark.parametrize(
    "opt, error",
    [
        ("/nonexistent/opt-19", "no such|not found|No such"),
        ("SEGV", "crash|signal 11"),
    ],
)
def test_a_failing_opt_ends_the_newgvn_step_with_its_error(tmp_path, monkeypatch, opt, error):
    if opt == "SEGV":  # an opt-19 that dies of a segmentation fault
        script = tmp_path / "opt"
        script.write_text("#!/bin/sh\nkill -SEGV $$\n")
        script.chmod(0o755)
        opt = str(script)
    monkeypatch.setenv("COMPILER_GYM_OPT", opt)
    with compiler_gym.make("llvm-v0", benchmark="benchmark://builtin-v0/qsort", **OPT_IN) as env:
        env.reset()
        env.step(env.action_space["-mem2reg"])
        _, _, done, info = env.step(env.action_space["-newgvn"])
        assert done and "-newgvn" in info["error_details"]
        assert re.search(error, info["error_details"]), info["error_details"]
        # Only the step failed: a new episode runs -newgvn when opt-19 is there again.
        monkeypatch.delenv("COMPILER_GYM_OPT")
        assert "COMPILER_GYM_OPT" not in os.environ
        env.reset()
        assert not env.step(env.action_space["-newgvn"])[2]


def test_the_action_space_variable_runs_compilergym_s_flag_lists_unchanged(monkeypatch):
    """The explicit choice that runs CompilerGym's example scripts, whose default flag lists
    name -newgvn, unchanged: ``COMPILER_GYM_ACTION_SPACE=PassesAllUnsound`` makes every env
    made without ``action_space=`` start in that space (tabular_q's lookup by flag, then a
    step, as the script does; the state replays in another such env). Envs of another family
    ignore it; a near miss is an error, not silently the default."""
    monkeypatch.setenv("COMPILER_GYM_ACTION_SPACE", "PassesAllUnsound")
    with compiler_gym.make("llvm-ic-v0", benchmark="benchmark://builtin-v0/crc32") as env:
        env.reset()
        assert env.action_space.name == "PassesAllUnsound"
        _, _, done, _ = env.step(env.action_space.flags.index("-newgvn"))
        assert not done and env.commandline() == "opt -newgvn input.bc -o output.bc"
        state = env.state
        with env.fork() as fork:
            assert fork.action_space.name == "PassesAllUnsound"
        with compiler_gym.make("llvm-ic-v0") as other:
            assert other.validate(state).okay()
    # The vector engine's envs too (its spaces are a probe env's: both must agree).
    with compiler_gym.make_vec("llvm-ic-v0", num_envs=2, benchmarks=["builtin-v0/crc32"]) as vec:
        assert vec.env_action_space.name == "PassesAllUnsound"
        vec.reset()
        _, _, terminated, _, _ = vec.step(np.array([122, 0]))
        assert not terminated.any()
    # An explicit argument wins.
    with compiler_gym.make("llvm-v0", action_space="PassesAll") as env:
        assert env.action_space.name == "PassesAll"
    with compiler_gym.make("gcc-v0") as env:
        assert env.action_space.name == "default"
    monkeypatch.setenv("COMPILER_GYM_ACTION_SPACE", "PassesAllUnsond")
    with pytest.raises(LookupError, match="COMPILER_GYM_ACTION_SPACE='PassesAllUnsond'; did you"):
        compiler_gym.make("llvm-v0")
    monkeypatch.delenv("COMPILER_GYM_ACTION_SPACE")
    with compiler_gym.make("llvm-v0") as env:
        assert env.action_space.name == "PassesAll"
        with pytest.raises(LookupError, match="COMPILER_GYM_ACTION_SPACE=PassesAllUnsound"):
            env.action_space["-newgvn"]
