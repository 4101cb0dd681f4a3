"""compiler_gym.optimize and ``python -m compiler_gym.bin.optimize``: a shipped policy applied
to a user's program. The printed pipeline replays with ``opt-19`` to the module written, the
counts printed are the module's, a program that does not compile is a typed error."""

from __future__ import annotations

import json
import subprocess

import pytest

import compiler_gym
from compiler_gym.bin import optimize as optimize_bin
from compiler_gym.errors import BenchmarkInitError
from compiler_gym.optimize import describe, load_policy, optimize, policies

# A runnable program whose best pipeline in pipelines-v0 beats -Oz (25 instructions against 26).
SOURCE = r"""
#include <stdio.h>
static int tab[64];
int f(int n) {
  int s = 0;
  for (int i = 0; i < n; i++) {
    tab[i & 63] += i;
    s += i * i + tab[(i * 7) & 63];
  }
  return s;
}
int main() { printf("%d\n", f(1000)); return 0; }
"""
PIPELINE = (
    "function(loop-mssa(licm)),function(simplifycfg<bonus-inst-threshold=2>),"
    "function(sroa<preserve-cfg>),function(correlated-propagation)"
)


@pytest.fixture
def program(tmp_path):
    path = tmp_path / "prog.c"
    path.write_text(SOURCE)
    return path


def count(path) -> tuple[int, str]:
    """The instruction count and IrSha1 of a module file, read by the engine."""
    with compiler_gym.make("llvm-v0") as env:
        env.reset(benchmark=env.make_benchmark(path))
        return int(env.observation["IrInstructionCount"]), env.observation["IrSha1"]


def test_shipped_policy_is_package_data():
    assert policies() == ["mixed-v0", "pipelines-v0"]
    mixed = load_policy("mixed-v0")  # the default: over both action spaces
    assert len(mixed.sequences) == 36
    assert [mixed.space(i) for i in (0, 1, 2)] == [
        "PassesAll",
        "PassesParameterized",
        "PassesAll",
    ]
    assert mixed.sequences[1] == ("default<O2>", "default<Oz>", "default<O1>", "default<Oz>")
    library = load_policy("pipelines-v0")
    assert library.action_space == "PassesParameterized"
    assert len(library.sequences) == 13
    assert library.sequences[0] == ("loop-rotate<no-prepare-for-lto>", "default<Oz>", "default<Oz>")


def test_command_prints_and_writes_a_module_opt_replays(program, tmp_path, capsys, opt19):
    out, report = tmp_path / "prog.bc", tmp_path / "result.json"
    argv = [str(program), "-o", str(out), "--json", str(report), "--policy", "pipelines-v0"]
    assert optimize_bin.main(argv) == 0
    printed = capsys.readouterr().out
    result = json.loads(report.read_text())
    # A fixed program and a fixed library give a fixed pipeline and fixed counts.
    assert result["pipeline"] == PIPELINE
    assert (result["instructions"], result["instructions_oz"], result["instructions_o0"]) == (
        25,
        26,
        49,
    )
    assert result["reward"] == pytest.approx((49 - 25) / (49 - 26))
    assert result["runs"] is True and result["validation"] == "on"
    assert result["candidates"] == 14  # the 13 pipelines and default<Oz>
    assert f"pipeline: opt '-passes={PIPELINE}'" in printed
    assert "size:     25 IR instructions (-Oz: 26, -O0: 49)" in printed
    assert "runs:     yes" in printed
    assert count(out)[0] == 25

    # opt-19 with the printed pipeline, on the unoptimized module, gives the module written.
    start = tmp_path / "start.bc"
    with compiler_gym.make("llvm-v0") as env:
        env.reset(benchmark=env.make_benchmark(program))
        env.write_bitcode(str(start))
    replayed = tmp_path / "replayed.bc"
    subprocess.run([opt19, f"-passes={PIPELINE}", str(start), "-o", str(replayed)], check=True)
    assert count(replayed) == count(out)


def test_the_default_policy_spans_both_spaces_and_replays(program, tmp_path, opt19):
    # On this program mixed-v0's best is a classic sequence (PassesAll), as good as -Oz: the
    # printed pipeline is its passes in New-PM syntax, and opt-19 replays it to the module.
    result = optimize(program, tmp_path / "out.bc")
    assert result.policy == "mixed-v0" and result.candidates == 37  # 36 and default<Oz>
    assert (result.instructions, result.instructions_oz, result.instructions_o0) == (26, 26, 49)
    assert result.pipeline.startswith("forceattrs,inferattrs,coro-early,function(ee-instrument)")
    assert result.runs is True
    start, replayed = tmp_path / "start.bc", tmp_path / "replayed.bc"
    with compiler_gym.make("llvm-v0") as env:
        env.reset(benchmark=env.make_benchmark(program))
        env.write_bitcode(str(start))
    subprocess.run(
        [opt19, f"-passes={result.pipeline}", str(start), "-o", str(replayed)], check=True
    )
    assert count(replayed) == count(tmp_path / "out.bc")


def test_ir_input_and_text_output(program, tmp_path):
    with compiler_gym.make("llvm-v0") as env:
        env.reset(benchmark=env.make_benchmark(program))
        (tmp_path / "start.ll").write_text(env.ir)
    result = optimize(tmp_path / "start.ll", tmp_path / "out.ll", policy="pipelines-v0")
    assert result.pipeline == PIPELINE and result.instructions == 25
    text = (tmp_path / "out.ll").read_text()
    assert text.startswith("; ModuleID") and "define" in text
    assert count(tmp_path / "out.ll")[0] == 25


def test_never_worse_than_oz_by_the_metric(tmp_path):
    # A program without main cannot be run: it is optimized unchecked, and says so.
    path = tmp_path / "lib.c"
    path.write_text(
        "int f(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }\n"
    )
    result = optimize(path, metric="ObjectTextSizeBytes")
    assert result.value <= result.oz and result.reward >= 1.0
    assert result.runs is None and result.validation.startswith("unavailable: ")
    assert "runs:     not checked: the program cannot be run" in describe(result)


def test_a_program_that_fails_on_its_own_is_optimized_unchecked(tmp_path):
    path = tmp_path / "fails.c"
    path.write_text(
        "int main() { int s = 0; for (int i = 0; i < 50; i++) s += i; return s == 1225; }\n"
    )
    result = optimize(path)
    assert result.runs is None
    assert "exit code 1" in result.validation and result.validation.startswith("unavailable")
    assert result.reward >= 1.0


def test_errors_are_typed(program, tmp_path, capsys):
    bad = tmp_path / "bad.c"
    bad.write_text("int main( {\n")
    with pytest.raises(BenchmarkInitError, match="expected"):
        optimize(bad)
    assert optimize_bin.main([str(bad)]) == 2
    assert capsys.readouterr().err.startswith(f"error: cannot compile {bad}")
    with pytest.raises(LookupError, match="Unknown policy 'nope'.*pipelines-v0"):
        optimize(program, policy="nope")
    with pytest.raises(LookupError, match="Unknown metric 'Runtime': one of IrInstructionCount"):
        optimize(program, metric="Runtime")
    with pytest.raises(FileNotFoundError):
        optimize(tmp_path / "missing.c")


def test_a_library_file_is_a_policy(program, tmp_path):
    library = tmp_path / "mine.txt"
    library.write_text("# one pipeline\n[PassesParameterized]\nadce\n")
    result = optimize(program, policy=library, validate=False)
    # default<Oz> is always a candidate: here it beats the library's one pipeline.
    assert result.candidates == 2 and result.pipeline == "default<Oz>"
    assert result.validation == "off" and result.runs is None
