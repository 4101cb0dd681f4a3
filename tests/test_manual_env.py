"""The manual_env shell, driven through a pseudo-terminal as a person would use it."""

import os
import sys

import numpy as np
import pytest

import compiler_gym

pexpect = pytest.importorskip("pexpect")

PROMPT = "compiler_gym:builtin-v0/crc32> "


def test_the_shell_takes_actions_completes_undoes_and_keeps_history(tmp_path):
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
        shell.expect(r"Action -mem2reg reward ([-0-9.e]+)")
        assert float(shell.match.group(1)) == pytest.approx(mem2reg_reward, rel=1e-5)
        shell.expect_exact(PROMPT)
        shell.sendline("stack")
        shell.expect(r"  1  -mem2reg\r\nepisode reward")
        shell.expect_exact(PROMPT)
        shell.sendline("commandline")
        shell.expect_exact("opt -mem2reg input.bc -o output.bc")
        shell.expect_exact(PROMPT)
        shell.sendline("undo")
        shell.expect_exact("Undid; 0 actions now")
        shell.expect_exact(PROMPT)
        shell.sendline("observation IrInstructionCount")
        shell.expect(r"\r\n(\d+)\r\n\(in ")
        assert int(shell.match.group(1)) == start
        shell.expect_exact(PROMPT)
        shell.sendline("action -no-such-pass")
        shell.expect_exact("Error: Unknown action '-no-such-pass'")
        shell.expect_exact(PROMPT)
        shell.sendline("frobnicate")
        shell.expect_exact("Unknown command 'frobnicate'")
        shell.expect_exact(PROMPT)
        shell.sendline("help undo")
        shell.expect_exact("undo: go back one action.")
        shell.expect_exact(PROMPT)
        shell.sendline("exit")
        shell.expect(pexpect.EOF)
    finally:
        shell.close()
    assert shell.exitstatus == 0
    assert "stack" in history.read_text().split("\n")


def test_compiler_gyms_shell_commands():
    """greedy, simplify_stack, back, hill_climb, the default spaces and the space lists, on the
    shell object (the pseudo-terminal test covers the terminal)."""
    import io

    from compiler_gym.bin.manual_env import CompilerGymShell

    with compiler_gym.make("llvm-ic-v0", benchmark="builtin-v0/crc32") as env:
        env.reset()
        best = env.action_space.flags[int(np.nanargmax(env.try_actions(range(env.action_space.n))))]
    out = io.StringIO()
    shell = CompilerGymShell(compiler_gym.make("llvm-ic-v0", benchmark="builtin-v0/crc32"), out)

    def run(line: str) -> str:
        out.seek(0)
        out.truncate()
        shell.onecmd(line)
        return out.getvalue()

    try:
        assert f"Action {best} reward" in run("greedy")
        assert "-mem2reg" in run("list_actions") and "Autophase" in run("list_observations")
        assert "IrInstructionCountOz" in run("list_rewards")
        # -mem2reg again has no effect: simplify_stack drops it.
        run("action -mem2reg")
        assert run("simplify_stack") == "Kept 1 of 2 actions\n"
        assert shell.env.actions == [shell.env.action_space[best]]
        assert run("back").startswith("Undid; 0 actions now")
        assert float(run("reward")) == 0.0  # the default reward space, nothing done since
        assert "Error: no default observation space" in run("observation")
        assert "Error: Unknown observation space: 'Foo'" in run("observation Foo")
        assert "Error: greedy takes a number" in run("greedy x")
        shell.rng = np.random.default_rng(0)
        kept = int(run("hill_climb 5").rsplit("Kept ", 1)[1].split()[0])
        assert len(shell.env.actions) == kept and shell.env.episode_reward >= 0
    finally:
        shell.close()
