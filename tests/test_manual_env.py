"""The manual_env shell: driven through a pseudo-terminal as a person would use it, and its
commands' output, which is CompilerGym's shell's, line for line."""

import io
import os
import re
import sys

import pytest

import compiler_gym
from compiler_gym.bin.manual_env import CompilerGymShell

PROMPT = "compiler_gym:builtin-v0/crc32> "
TIME = r"[0-9.]+(ns|us|ms|s)"


def test_the_shell_takes_actions_completes_undoes_and_keeps_history(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    with compiler_gym.make("llvm-ic-v0", benchmark="builtin-v0/crc32") as env:
        env.reset()
        start = env.observation["IrInstructionCount"]
        _, mem2reg_reward, _, _ = env.step(env.action_space["-mem2reg"])
    history = tmp_path / "history"
    shell = pexpect.spawn(
        sys.executable,
        ["-m", "compiler_gym.bin.manual_env", "--benchmark", "builtin-v0/crc32"],
        env={**os.environ, "COMPILER_GYM_HISTORY": str(history), "TERM": "dumb"},
        encoding="utf-8",
        timeout=60,
    )
    try:
        shell.expect_exact(PROMPT)
        shell.send("action -mem2r\t\r")  # Tab completes the flag
        shell.expect(r"Action -mem2reg\r\nReward: ([-0-9.]+)\r\nActions -mem2reg in ")
        assert float(shell.match.group(1)) == pytest.approx(mem2reg_reward, abs=1e-6)
        shell.expect_exact(PROMPT)
        shell.sendline("stack")
        shell.expect(r"\r\n +1 \| -mem2reg +\| True +\| False +\|")
        shell.expect_exact(PROMPT)
        shell.sendline("commandline")
        shell.expect_exact("$ opt -mem2reg input.bc -o output.bc")
        shell.expect_exact(PROMPT)
        shell.sendline("undo")
        shell.expect("Undid -mem2reg in ")
        shell.expect_exact(PROMPT)
        shell.sendline("observation IrInstructionCount")
        shell.expect(r"\r\n(\d+)\r\nObservation IrInstructionCount in ")
        assert int(shell.match.group(1)) == start
        shell.expect_exact(PROMPT)
        shell.sendline("action -no-such-pass")
        shell.expect_exact("Unknown action, '-no-such-pass'")
        shell.expect_exact(PROMPT)
        shell.sendline("frobnicate")
        shell.expect_exact("Unknown command 'frobnicate'")
        shell.expect_exact(PROMPT)
        shell.sendline("help undo")
        shell.expect_exact("undo: undo the last action.")
        shell.expect_exact(PROMPT)
        shell.sendline("exit")
        shell.expect(pexpect.EOF)
    finally:
        shell.close()
    assert shell.exitstatus == 0
    assert "stack" in history.read_text().split("\n")


@pytest.fixture
def shell():
    """A shell on llvm-v0 (no default reward or observation) at builtin-v0/crc32, and a
    function that runs one command line and returns what it printed."""
    out = io.StringIO()
    shell = CompilerGymShell(compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32"), out)
    shell.env.reset()

    def run(line: str) -> str:
        out.seek(0)
        out.truncate()
        shell.onecmd(line)
        return out.getvalue()

    shell.run = run
    yield shell
    shell.close()


def _rewards(actions, reward_space="IrInstructionCount"):
    """The reward of each of ``actions`` taken in order from the start of crc32."""
    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32") as env:
        env.reward_space = reward_space
        env.reset()
        return [env.step(env.action_space[a])[1] for a in actions]


def test_lists_are_one_line_separated_by_commas(shell):
    env = shell.env
    assert shell.run("list_actions") == ", ".join(env.action_space.flags) + "\n"
    assert shell.run("list_observations") == ", ".join(sorted(env.observation.spaces)) + "\n"
    assert shell.run("list_rewards") == ", ".join(sorted(env.reward.spaces)) + "\n"
    datasets = shell.run("list_datasets").rstrip("\n").split(", ")
    assert datasets == sorted(d.name for d in env.datasets)
    # Installed datasets only (a CompilerGym dataset is not downloaded to list it), 50 each,
    # sorted by URI, shown without the benchmark:// scheme.
    benchmarks = shell.run("list_benchmarks").rstrip("\n").split(", ")
    uris = [b if "://" in b else f"benchmark://{b}" for b in benchmarks]
    assert uris == sorted(uris) and "builtin-v0/crc32" in benchmarks
    assert "generator://csmith-v0/0" in benchmarks
    assert not [b for b in benchmarks if b.startswith(("benchmark://", "cbench-v1/"))]
    assert shell.run("list_benchmarks builtin-v0 2") == "builtin-v0/adpcm, builtin-v0/aes\n"


def test_actions_print_compiler_gyms_lines_and_the_stack_is_its_table(shell):
    out = shell.run("action -mem2reg -mem2reg")
    assert re.fullmatch(
        rf"Action -mem2reg\nAction -mem2reg\nNo effect\nActions -mem2reg -mem2reg in {TIME} "
        r"with reward 0\.\n",
        out,
    ), out
    assert shell.run("stack").split("\n") == [
        "   Depth | Action   | Effect   | Done   | Reward   |   Cumulative Reward",
        "---------+----------+----------+--------+----------+---------------------",
        "       2 | -mem2reg | False    | False  | -        |                   0",
        "       1 | -mem2reg | True     | False  | -        |                   0",
        "       0 | <init>   | False    | False  | 0        |                   0",
        "",
    ]
    assert shell.run("commandline") == "$ opt -mem2reg -mem2reg input.bc -o output.bc\n"
    # set_default_reward replays the episode: the stack shows the new space's rewards.
    (drop, zero) = _rewards(["-mem2reg", "-mem2reg"])
    assert zero == 0 and drop > 0
    assert re.fullmatch(
        rf"Reward IrInstructionCount in {TIME}\n",
        shell.run("set_default_reward IrInstructionCount"),
    )
    assert shell.run("stack").split("\n")[2:4] == [
        f"       2 | -mem2reg | False    | False  |        0 | {drop:19g}",
        f"       1 | -mem2reg | True     | False  | {drop:8g} | {drop:19g}",
    ]
    # simplify_stack keeps the actions with an effect and a positive reward, silently.
    assert shell.run("simplify_stack") == ""
    assert shell.env.actions == [shell.env.action_space["-mem2reg"]]
    assert re.fullmatch(rf"Undid -mem2reg in {TIME}\n", shell.run("back"))
    assert shell.run("back") == "No actions to undo\n"
    assert re.fullmatch(rf"Reset in {TIME}\n", shell.run("reset"))


def test_rewards_observations_and_unknown_names(shell):
    (drop,) = _rewards(["-mem2reg"])
    assert shell.run("action -mem2reg").startswith("Action -mem2reg\nActions -mem2reg in ")
    # A reward not computed yet in this episode counts from its start.
    assert re.fullmatch(
        rf"{drop:.6f}\nReward IrInstructionCount in {TIME}\n",
        shell.run("reward IrInstructionCount"),
    )
    count = shell.env.observation["IrInstructionCount"]
    assert re.fullmatch(
        rf"{count}\nObservation IrInstructionCount in {TIME}\n",
        shell.run("observation IrInstructionCount"),
    )
    assert shell.run("observation IrInstructionCont") == (
        "Unknown observation, 'IrInstructionCont'; did you mean 'IrInstructionCount' or "
        "'IrInstructionCountOz' or 'IrInstructionCountO3'?\n"
        "Observations are listed with command, list_observations\n"
    )
    assert shell.run("reward Nope") == (
        "Unknown reward, 'Nope'\nRewards are listed with command, list_rewards\n"
    )
    assert shell.run("action -mem2reeg") == (
        "Unknown action, '-mem2reeg'; did you mean '-mem2reg'?\n"
        "Actions are listed with command, list_actions\nUse '-' for a random action\n"
    )
    assert shell.run("set_benchmark builtin-v0/nope").startswith(
        "Unknown benchmark, 'builtin-v0/nope'\n"
    )
    # The default observation is shown after each action and after set_benchmark.
    assert re.fullmatch(
        rf"Observation IrInstructionCount in {TIME}\n",
        shell.run("set_default_observation IrInstructionCount"),
    )
    out = shell.run("set_benchmark builtin-v0/adpcm")
    assert re.fullmatch(
        rf"Reset benchmark://builtin-v0/adpcm environment in {TIME}\nObservation: \d+\n", out
    ), out
    assert "No default reward set. Call set_default_reward" in shell.run("greedy")


def test_search_commands_print_each_try_and_step(shell, monkeypatch):
    shell.run("set_default_reward IrInstructionCount")
    flags = shell.env.action_space.flags
    rewards = shell.env.try_actions(range(len(flags)))
    best = max(range(len(flags)), key=lambda i: (rewards[i], -i))  # first of the best
    out = shell.run("try_all_actions").split("\n")
    assert out[: len(flags)] == [
        f"Action: {f} Reward: {r:.6f}" for f, r in zip(flags, rewards, strict=True)
    ]
    assert re.fullmatch(f"Got actions in {TIME}", out[len(flags)])
    assert out[len(flags) + 1].split() == "Action | Effect | Done | Reward".split()
    row = [flags[best], "|", "True", "|", "False", "|", f"{rewards[best]:g}"]
    assert out[len(flags) + 3].split() == row

    out = shell.run("greedy").split("\n")
    assert out[len(flags)] == f"Step: 1 Selected action: {flags[best]} Reward: {rewards[best]:.6f}"
    assert re.fullmatch(f"Greedy 1 steps in {TIME}", out[len(flags) + 1])
    assert shell.env.actions == [best]

    # hill_climb draws its actions with random.randrange, as CompilerGym's shell: the first
    # (the best action again) is kept only if it gains anything.
    draws = iter([best, 0])
    monkeypatch.setattr("random.randrange", lambda n: next(draws))
    again = _rewards([flags[best], flags[best]])[1]
    out = shell.run("hill_climb 2").split("\n")
    assert out[0] == f"Step: 1 Action: {flags[best]} Reward: {again:.6f} Accept: {again > 0}"
    assert out[1].startswith(f"Step: 2 Action: {flags[0]} Reward: ")
    accepted = int(again > 0) + int(out[1].endswith("True"))
    assert re.fullmatch(
        rf"Hill climb complete in {TIME}\. Accepted {accepted} of 2 steps for total reward of "
        r"[-0-9.]+\.",
        out[2],
    )
    assert len(shell.env.actions) == 1 + accepted
    assert shell.run("greedy x") == "Error: greedy takes a number of times, not 'x'\n"


def test_an_empty_line_repeats_the_last_command(shell):
    """cmd's default, which CompilerGym's shell kept: Enter runs the last command again."""
    assert shell.run("action -mem2reg").startswith("Action -mem2reg\n")
    assert shell.run("").startswith("Action -mem2reg\nNo effect\n")
    assert len(shell.env.actions) == 2
