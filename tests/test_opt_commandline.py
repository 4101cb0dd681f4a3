"""env.opt_commandline(): the opt-19 command that gives an episode's module. CompilerGym's
command lines (``opt -mem2reg ...``, env.commandline(), the states' format) use legacy pass
flags that LLVM 19's opt refuses ("The `opt -passname` syntax for the new pass manager is not
supported"), so the docs' promise that the env's command line replays with opt-19 needs this
one."""

import random
import shlex
import subprocess

import pytest

import compiler_gym


def module(path) -> tuple[int, str]:
    """The instruction count and IrSha1 of a module file, read by the engine."""
    with compiler_gym.make("llvm-v0") as env:
        env.reset(benchmark=env.make_benchmark(path))
        return int(env.observation["IrInstructionCount"]), env.observation["IrSha1"]


def replay_with_opt(env, opt19, tmp_path) -> tuple[int, str]:
    """Runs env.opt_commandline() with opt-19 on the benchmark's start; the result."""
    start, out = tmp_path / "input.bc", tmp_path / "output.bc"
    with env.fork() as fork:
        fork.reset()
        fork.write_bitcode(str(start))
    args = shlex.split(env.opt_commandline())
    assert args[0] == "opt" and args[-3:] == ["input.bc", "-o", "output.bc"]
    subprocess.run([opt19, *args[1:-3], str(start), "-o", str(out)], check=True, timeout=120)
    return module(out)


@pytest.mark.parametrize(
    "uri,action_space",
    [
        ("benchmark://builtin-v0/crc32", "PassesAll"),
        ("benchmark://builtin-v0/qsort", "PassesAll"),
        ("benchmark://builtin-v0/dijkstra", "PassesAllUnsound"),  # -newgvn, -iroutliner too
        ("benchmark://builtin-v0/sha256", "PassesParameterized"),
    ],
)
def test_opt19_replays_the_command_to_the_episodes_module(uri, action_space, opt19, tmp_path):
    rng = random.Random(f"{uri}{action_space}")
    with compiler_gym.make("llvm-v0", benchmark=uri, action_space=action_space) as env:
        env.reset()
        actions = [rng.randrange(env.action_space.n) for _ in range(30)]
        if action_space == "PassesAllUnsound":
            actions += [env.action_space["-newgvn"], env.action_space["-iroutliner"]]
        for action in actions:
            if env.step(action)[2]:  # a failed step ends the episode: replay what ran
                break
        expected = (int(env.observation["IrInstructionCount"]), env.observation["IrSha1"])
        assert replay_with_opt(env, opt19, tmp_path) == expected
        # CompilerGym's command line stays the states' format.
        assert env.commandline_to_actions(env.commandline()) == env.actions


def test_no_actions_is_the_empty_pipeline(opt19, tmp_path):
    with compiler_gym.make("llvm-v0", benchmark="benchmark://builtin-v0/crc32") as env:
        env.reset()
        assert env.opt_commandline() == "opt -passes= input.bc -o output.bc"
        assert replay_with_opt(env, opt19, tmp_path) == (
            int(env.observation["IrInstructionCount"]),
            env.observation["IrSha1"],
        )
