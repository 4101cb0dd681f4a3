"""The command-line tools as a user meets them: ``--help`` with text for every option and the
tool's whole description, the program name as it was run, only the options a tool honours,
"did you mean" for unknown names, and CompilerGym's absl entry points (``main(["argv0", ...])``,
flags set with ``flags.FLAGS([...])``) with its banner and prompt."""

from __future__ import annotations

import argparse
import importlib
import io
import os
import re
import subprocess
import sys
import textwrap

import pytest
from absl import app, flags

TOOLS = [
    "corpus",
    "datasets",
    "demo",
    "fuzz",
    "greedy",
    "manual_env",
    "miscompile",
    "optimize",
    "random_eval",
    "random_replay",
    "random_search",
    "search",
    "service",
    "train",
    "train_inst2vec",
    "validate",
]


@pytest.fixture
def absl_flags():
    """absl's FLAGS, unparsed again after the test (as CompilerGym's tests leave them)."""
    flags.FLAGS.unparse_flags()
    yield flags.FLAGS
    flags.FLAGS.unparse_flags()


def _parsers(tool: str, monkeypatch, capsys) -> tuple[str, list[argparse.ArgumentParser]]:
    """The ``--help`` text of ``tool`` and the parsers it built (a subcommand's too)."""
    if tool == "train_inst2vec":
        pytest.importorskip("torch")
    module = importlib.import_module(f"compiler_gym.bin.{tool}")
    seen: list[argparse.ArgumentParser] = []
    parse_known_args = argparse.ArgumentParser.parse_known_args

    def spy(self, *args, **kwargs):
        seen.append(self)
        return parse_known_args(self, *args, **kwargs)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_known_args", spy)
    with pytest.raises(SystemExit) as exit:
        module.main(["--help"])
    assert exit.value.code == 0
    parsers = [seen[0]]
    for action in seen[0]._actions:
        if isinstance(action, argparse._SubParsersAction):
            parsers += list(action.choices.values())
    return capsys.readouterr().out, parsers


@pytest.mark.parametrize("tool", TOOLS)
def test_help_has_text_for_every_option_and_the_whole_description(tool, monkeypatch, capsys):
    text, parsers = _parsers(tool, monkeypatch, capsys)
    module = sys.modules[f"compiler_gym.bin.{tool}"]
    assert text.startswith(f"usage: python -m compiler_gym.bin.{tool} ")
    # The description is the module's docstring, whole: no sentence is cut.
    assert textwrap.dedent(module.__doc__).strip() in text
    for parser in parsers:
        for action in parser._actions:
            if action.help == argparse.SUPPRESS:
                continue
            name = "/".join(action.option_strings) or action.dest
            assert action.help and len(action.help) > 8, (tool, parser.prog, name)
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    assert choice.help, (tool, choice.dest)
            elif action.option_strings:
                assert action.option_strings[-1] in text, (tool, name)


@pytest.mark.parametrize(
    "tool, absent, present",
    [
        (
            "greedy",
            ["--search", "--patience", "--episodes", "--budget", "--optimizer", "--seed"],
            [],
        ),
        (
            "random_search",
            ["--search", "--budget", "--optimizer", "--episode-length"],
            ["--patience"],
        ),
        ("search", [], ["--search", "--patience", "--budget", "--optimizer"]),
    ],
)
def test_each_search_tool_offers_only_the_options_it_honours(
    tool, absent, present, monkeypatch, capsys
):
    text, [parser] = _parsers(tool, monkeypatch, capsys)
    offered = {o for action in parser._actions for o in action.option_strings}
    assert not offered & set(absent), offered & set(absent)
    assert set(present) <= offered
    if tool != "search":
        module = importlib.import_module(f"compiler_gym.bin.{tool}")
        with pytest.raises(SystemExit) as exit:  # not an option of this tool
            module.main(["--search", "random"])
        assert exit.value.code == 2
        assert "unrecognized arguments: --search random" in capsys.readouterr().err


def test_a_console_script_is_named_as_it_was_run(monkeypatch):
    from compiler_gym.util.cli import argument_parser

    monkeypatch.setattr("sys.argv", ["/usr/local/bin/compiler_gym-search", "--help"])
    assert argument_parser("compiler_gym.bin.search", "Doc.").prog == "compiler_gym-search"
    monkeypatch.setattr("sys.argv", ["/x/compiler_gym/bin/search.py"])
    assert argument_parser("compiler_gym.bin.search", "Doc.").prog == (
        "python -m compiler_gym.bin.search"
    )


def test_the_program_name_is_the_one_the_user_ran():
    for tool in ("search", "validate"):
        help = subprocess.run(
            [sys.executable, "-m", f"compiler_gym.bin.{tool}", "--help"],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "COLUMNS": "100"},
        ).stdout
        assert help.startswith(f"usage: python -m compiler_gym.bin.{tool} ")
        assert f"{tool}.py" not in help


@pytest.mark.parametrize(
    "tool, argv, message",
    [
        (
            "search",
            ["--reward", "IrInstructionCountOZ"],
            "error: Unknown reward space 'IrInstructionCountOZ'; did you mean "
            "'IrInstructionCountOz' or 'IrInstructionCountO3' or 'IrInstructionCount'?",
        ),
        # A name close to none: the tool says which there are.
        (
            "search",
            ["--reward", "Foo"],
            "error: Unknown reward space 'Foo'; the reward spaces are IrInstructionCount, "
            "IrInstructionCountNorm, IrInstructionCountO3, IrInstructionCountOz, ",
        ),
        (
            "greedy",
            ["--dataset", "builtin-v"],
            "error: Unknown dataset 'builtin-v'; did you mean 'builtin-v0'?",
        ),
        (
            "random_search",
            ["--dataset", "nope"],
            "error: Unknown dataset 'nope'; the datasets are builtin-v0, ",
        ),
        (
            "random_search",
            ["--benchmark", "builtin-v0/crc3"],
            "error: Benchmark not found: benchmark://builtin-v0/crc3; did you mean 'crc32'?",
        ),
        (
            "manual_env",
            ["--observation", "Autophas"],
            "error: Unknown observation space 'Autophas'; did you mean 'Autophase'",
        ),
        (
            "manual_env",
            ["--benchmark", "builtin-v0/crc3"],
            "error: Benchmark not found: benchmark://builtin-v0/crc3; did you mean 'crc32'?",
        ),
        (
            "manual_env",
            ["--reward", "IrInstructionCountOZ"],
            "error: Unknown reward space 'IrInstructionCountOZ'; did you mean",
        ),
        (
            "demo",
            ["--dataset", "bultin-v0"],
            "error: Unknown dataset 'bultin-v0'; did you mean 'builtin-v0' or ",
        ),
        (
            "fuzz",
            ["--programs", "csmit-v0", "--steps", "1"],
            "error: Unknown dataset 'csmit-v0'; did you mean 'csmith-v0'",
        ),
        (
            "miscompile",
            ["--programs", "builtin-v", "--cases", "1"],
            "error: Unknown dataset 'builtin-v'; did you mean 'builtin-v0'?",
        ),
    ],
)
def test_unknown_names_get_a_did_you_mean(tool, argv, message, capsys):
    module = importlib.import_module(f"compiler_gym.bin.{tool}")
    assert module.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(message) and "Traceback" not in err, err


def test_datasets_say_did_you_mean_and_list_in_a_sane_width(capsys):
    from compiler_gym.bin import datasets

    assert datasets.main(["--env", "llvm-v0", "install", "csmit-v0"]) == 1
    assert "error: Unknown dataset 'csmit-v0'; did you mean 'csmith-v0'" in capsys.readouterr().err
    assert datasets.main(["--env", "llvm-v0", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["dataset", "size", "license", "installed", "description"]
    assert max(map(len, lines)) <= 140
    assert any(line.startswith("benchmark://builtin-v0 ") for line in lines)


def test_service_names_spaces_readably(capsys):
    from compiler_gym.bin import service

    assert service.main(["--env", "llvm-v0"]) == 0
    out = capsys.readouterr().out
    observations = out.split("Observation spaces\n", 1)[1].split("Reward spaces\n", 1)[0]
    rows = {line.split()[0]: line for line in observations.splitlines() if line.strip()}
    assert "strSpace" not in out and "dict|list" not in out
    assert re.search(r"\bScalar\(int64, 0 to inf\)", rows["IrInstructionCount"])
    assert re.search(r"\bBox\(int64, shape \(56,\), 0 to inf\)", rows["Autophase"])
    assert re.search(r"\bSequence\(str, length 40\)", rows["IrSha1"])
    assert re.search(r"\bDict\(56 entries: ArgsPhi, ", rows["AutophaseDict"])


def test_search_plot_has_a_legend_of_every_benchmark(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib.figure

    from compiler_gym.bin import search

    legends = []
    savefig = matplotlib.figure.Figure.savefig

    def spy(self, *args, **kwargs):
        legends.append([t.get_text() for t in self.axes[0].get_legend().get_texts()])
        return savefig(self, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", spy)
    histories = {f"benchmark://builtin-v0/p{i:02d}": [(0.0, 0.0), (1.0, i / 26)] for i in range(26)}
    search._plot(str(tmp_path / "plot.png"), histories, "26 searches")
    assert legends == [[f"p{i:02d}" for i in range(26)]]
    assert (tmp_path / "plot.png").stat().st_size > 0


# CompilerGym's entry points.

BANNER = """\
Welcome to the CompilerGym Shell!
---------------------------------
Type help or ? for more information.
The 'tutorial' command will give a step by step guide.
"""


def test_manual_env_main_takes_compiler_gyms_argv_and_prints_its_banner_and_prompt(
    absl_flags, monkeypatch, capsys, tmp_path
):
    from compiler_gym.bin.manual_env import main

    monkeypatch.setenv("COMPILER_GYM_HISTORY", str(tmp_path / "history"))
    monkeypatch.setattr("sys.stdin", io.StringIO("list_datasets\ntutorial\n"))
    assert main(["argv0", "--env=llvm-v0"]) == 0
    out = capsys.readouterr().out
    assert re.match(r"Initialized environment in [0-9.mu]+s\n", out), out[:80]
    assert out.split("\n", 1)[1].startswith(BANNER + "\ncompiler_gym:builtin-v0/qsort> ")
    assert "benchmark://builtin-v0" in out and "set_benchmark <uri>" in out
    assert out.endswith("\ncompiler_gym:builtin-v0/qsort> Exiting\n")

    with pytest.raises(app.UsageError) as error:
        main(["argv0", "unknown-option"])
    assert str(error.value) == "Unknown command line arguments: ['unknown-option']"
    assert main(["argv0", "--ls_env"]) == 0
    assert "llvm-ic-v0" in capsys.readouterr().out.split()


CSV = (
    "benchmark,reward,commandline,walltime\n"
    "benchmark://builtin-v0/crc32,{},opt  input.bc -o output.bc,0.3\n"
)


def test_validate_reads_flags_set_with_absl_and_ends_as_an_absl_main(
    absl_flags, monkeypatch, capsys
):
    from compiler_gym.bin.validate import main

    absl_flags(["argv0", "--env=llvm-ic-v0"])
    monkeypatch.setattr("sys.stdin", io.StringIO(CSV.format(0)))
    assert main(["argv0", "-"]) == 0
    out, err = capsys.readouterr()
    assert "✅  builtin-v0/crc32 " in out and not err

    monkeypatch.setattr("sys.stdin", io.StringIO(CSV.format(0.5)))
    with pytest.raises(SystemExit) as exit:
        main(["argv0", "-"])
    assert exit.value.code == 1
    assert "❌  builtin-v0/crc32  Expected reward 0.5 but received reward 0.0\n" in (
        capsys.readouterr().out
    )

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    with pytest.raises(SystemExit):
        main(["argv0", "-"])
    assert "No inputs to validate" in capsys.readouterr().err

    # A flag set with absl is the option's default; the command line wins over it.
    absl_flags.unparse_flags()
    absl_flags(["argv0", "--env=llvm-ic-v0", "--summary_only"])
    monkeypatch.setattr("sys.stdin", io.StringIO(CSV.format(0)))
    assert main(["argv0", "-"]) == 0
    out = capsys.readouterr().out
    assert "✅" not in out and "1 of 1 states validated" in out
    absl_flags.unparse_flags()
    absl_flags(["argv0", "--env=nope-v0"])
    monkeypatch.setattr("sys.stdin", io.StringIO(CSV.format(0)))
    with pytest.raises(SystemExit) as exit:
        main(["argv0", "-"])
    assert exit.value.code == 2 and "nope-v0" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO(CSV.format(0)))
    assert main(["--env=llvm-ic-v0", "-"]) == 0


def test_search_progress_shows_on_a_terminal_only_and_not_under_quiet(tmp_path):
    pexpect = pytest.importorskip("pexpect")
    argv = ["-m", "compiler_gym.bin.random_search", "--benchmark", "builtin-v0/crc32"]
    argv += ["--episodes", "16", "--num-envs", "2", "--no-validate", "--seed", "1"]

    def on_a_terminal(*extra: str) -> str:
        tool = pexpect.spawn(
            sys.executable,
            [*argv, "--output", str(tmp_path / "out.csv"), *extra],
            env={**os.environ, "COLUMNS": "120"},
            encoding="utf-8",
            timeout=120,
        )
        text = tool.read()
        tool.close()
        assert tool.exitstatus == 0, text
        return text

    shown = on_a_terminal()
    # The tool's bar over the benchmarks, with the geomean so far; the search's over episodes.
    assert re.search(r"random search: 100%\|[^\n]*\| 1/1 \[[^\n]*geomean=", shown), shown
    assert re.search(r"search: +\d+%\|[^\n]*\| *\d+/16 \[", shown), shown
    quiet = on_a_terminal("--quiet")
    assert "%|" not in quiet and "builtin-v0/crc32  reward" in quiet
    piped = subprocess.run([sys.executable, *argv], capture_output=True, text=True, check=True)
    assert "%|" not in piped.stderr and piped.stdout.startswith("benchmark,reward,")


def test_a_dataset_is_found_by_its_name_with_or_without_its_scheme():
    import compiler_gym
    from compiler_gym.util.cli import check_dataset

    with compiler_gym.make("llvm-v0") as env:
        for name in ("csmith-v0", "generator://csmith-v0"):
            assert check_dataset(env, name).name == "generator://csmith-v0"
        assert check_dataset(env, "builtin-v0").name == "benchmark://builtin-v0"
        with pytest.raises(LookupError, match="did you mean 'llvm-stress-v0'"):
            check_dataset(env, "llvm-stres-v0")
