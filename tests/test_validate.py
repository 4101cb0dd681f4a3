"""validate(): replay, reward check and the differential test of the program's behaviour,
with sanitizer builds; and the validate command line."""

import io
import json
from dataclasses import replace

import pytest

import compiler_gym
from compiler_gym.bin import validate as validate_cli
from compiler_gym.compiler_env_state import CompilerEnvStateWriter
from compiler_gym.datasets import Benchmark
from compiler_gym.datasets.make_benchmark import make_benchmark_from_source
from conftest import planted_llvm_env, step_pipeline_for_testing

FLAGS = ("-sroa", "-instcombine", "-gvn", "-simplifycfg")


def run_flags(env, flags=FLAGS):
    _, _, done, info = env.multistep([env.action_space.flags.index(f) for f in flags])
    assert not done, info


def test_optimized_program_validates():
    with compiler_gym.make("llvm-ic-v0", benchmark="builtin-v0/crc32") as env:
        env.reset()
        run_flags(env)
        result = env.validate()
        assert result.okay(), result.errors
        assert result.reward_validated and result.benchmark_semantics_validated


def test_injected_miscompilation_is_caught():
    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32") as env:
        env.reset()
        run_flags(env)
        # Flips a bit of the first xor constant (the CRC polynomial) in the module.
        done, details = step_pipeline_for_testing(env, "compiler-gym-test-miscompile")
        assert not done, details
        result = env.validate()
        assert not result.okay()
        assert result.benchmark_semantics_validated is True
        text = result.error_details
        assert "exit code 1 where the unoptimized one ended with exit code 0" in text
        assert "standard output differs" in text
        assert 'expected "checksum: ' in text


def test_not_runnable_benchmark_is_not_checked_for_semantics():
    with compiler_gym.make("llvm-v0", benchmark="generator://llvm-stress-v0/2") as env:
        env.reset()
        run_flags(env)
        result = env.validate()
        assert result.okay(), result.errors
        assert not result.benchmark_semantics_validated


def test_validation_callbacks_check_the_program_a_replay_reaches():
    """CompilerGym's Benchmark.add_validation_callback: run by validate() on the env holding
    the optimized program, its errors (ValidationError, strings, an exception) reported."""
    with compiler_gym.make("llvm-v0", benchmark="generator://llvm-stress-v0/2") as env:
        env.reset()
        benchmark = env.benchmark
        assert not benchmark.is_validatable()  # not runnable, no callbacks
        seen = []

        def small(e):
            seen.append(e.actions)
            count = e.observation["IrInstructionCount"]
            if count > 1:  # 5 after FLAGS
                yield compiler_gym.ValidationError("Too big", {"instructions": count})

        benchmark.add_validation_callback(small)
        assert benchmark.is_validatable() and benchmark.validation_callbacks() == [small]
        run_flags(env)
        count = env.observation["IrInstructionCount"]
        result = env.validate()
        assert result.errors == [f'Too big: {{"instructions": {count}}}']
        assert result.benchmark_semantics_validated
        assert result.benchmark_semantics_validation_failed
        assert not result.actions_replay_failed and not result.reward_validation_failed
        # A recorded state: the replay's program is the one checked.
        assert not env.validate(env.state).okay()
        assert seen == [env.actions, env.actions]

        benchmark.add_validation_callback(lambda e: ["plain text"])
        benchmark.add_validation_callback(lambda e: 1 / 0)
        errors = [str(e) for e in benchmark.validate(env)]
        assert errors[1] == "plain text"
        assert errors[2].startswith("Validation callback raised an exception")
        assert "ZeroDivisionError" in errors[2]
        with pytest.raises(TypeError):
            benchmark.add_validation_callback("not callable")


def test_runnable_benchmarks_are_validatable():
    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/crc32") as env:
        assert env.benchmark.is_validatable() and env.benchmark.validate(env) == []


def _runnable_from_source(source: str, name: str) -> Benchmark:
    benchmark = make_benchmark_from_source(source, runnable=True)
    benchmark.buildable = True
    return benchmark


HEAP_OVERFLOW = r"""
#include <stdio.h>
#include <stdlib.h>
int main(void) {
  /* 44 bytes: glibc's chunk has room past the end, so only AddressSanitizer notices */
  volatile int *p = malloc(11 * sizeof(int));
  p[11] = 7;
  printf("%d\n", p[11] == 7);
  return 0;
}
"""

STACK_OVERFLOW = r"""
#include <stdio.h>
int main(int argc, char **argv) {
  int a[4] = {0, 1, 2, 3};
  int i = argc + 3; /* 4: out of bounds, unknown to the optimizer */
  a[i & 7] = 9;
  printf("%d\n", a[(i - 4) & 3]);
  return 0;
}
"""


def test_address_sanitizer_build_catches_a_heap_overflow():
    with compiler_gym.make("llvm-v0") as env:
        env.reset(benchmark=_runnable_from_source(HEAP_OVERFLOW, "heap"))
        assert env.validate().okay()  # plain builds do not notice
        result = env.validate(sanitizers=["address"])
        assert not result.okay()
        assert "AddressSanitizer build: the program ended with exit code 1" in result.errors[0]
        assert "heap-buffer-overflow" in result.errors[0]


def test_undefined_sanitizer_build_traps_an_out_of_bounds_index():
    with compiler_gym.make("llvm-v0") as env:
        env.reset(benchmark=_runnable_from_source(STACK_OVERFLOW, "stack"))
        result = env.validate(sanitizers=["undefined"])
        assert not result.okay()
        assert result.errors[0].startswith("UndefinedBehaviorSanitizer build: the program ended")
        assert "signal" in result.errors[0]


def test_clean_program_passes_both_sanitizers():
    with compiler_gym.make("llvm-v0", benchmark="builtin-v0/qsort") as env:
        env.reset()
        run_flags(env)
        result = env.validate(sanitizers=["address", "undefined"])
        assert result.okay(), result.errors


def test_unknown_sanitizer():
    with compiler_gym.make("llvm-v0") as env:
        env.reset()
        with pytest.raises(ValueError, match="Unknown sanitizers"):
            env.validate(sanitizers=["thread"])


def test_wrong_expected_output_is_a_benchmark_error(tmp_path):
    with compiler_gym.make("llvm-v0") as env:
        good = env.datasets.benchmark("builtin-v0/crc32")
        bad = Benchmark(
            "benchmark://user-v0/crc32-wrong-output",
            files=good.files,
            run_args=good.run_args,
            buildable=True,
            runnable=True,
            expected_output="checksum: 00000000",
        )
        env.reset(benchmark=bad)
        result = env.validate()
        assert not result.okay()
        assert "differs from the benchmark's expected output" in result.error_details


def _states_csv(states) -> str:
    buffer = io.StringIO()
    writer = CompilerEnvStateWriter(buffer)
    for state in states:
        writer.write_state(state)
    return buffer.getvalue()


def test_validate_command_line(tmp_path, capsys):
    with compiler_gym.make("llvm-ic-v0") as env:
        states = []
        for uri in ("builtin-v0/crc32", "builtin-v0/bitcount"):
            env.reset(benchmark=uri)
            run_flags(env)
            states.append(env.state)
    good = tmp_path / "good.csv"
    good.write_text(_states_csv(states))
    assert validate_cli.main(["--env=llvm-ic-v0", str(good)]) == 0
    out = capsys.readouterr().out
    assert out.count("✅") == 2 and "❌" not in out
    assert "2 of 2 states validated" in out and "geomean reward: " in out
    # CompilerGym's flags: the summary alone, the arithmetic mean, a JSON log.
    log = tmp_path / "log.json"
    argv = ["--summary_only", "--reward_aggregation=mean", f"--validation_logfile={log}"]
    assert validate_cli.main([*argv, "--inorder", str(good)]) == 0
    out = capsys.readouterr().out
    assert "✅" not in out and "2 of 2 states validated" in out
    assert f"mean reward: {(states[0].reward + states[1].reward) / 2:.4f}" in out
    logged = json.loads(log.read_text())
    assert [r["state"]["benchmark"] for r in logged] == [s.benchmark for s in states]

    bad = tmp_path / "bad.csv"
    bad.write_text(_states_csv([states[0], replace(states[1], reward=states[1].reward + 1)]))
    assert validate_cli.main(["--env=llvm-ic-v0", str(bad)]) == 1
    out = capsys.readouterr().out
    assert out.count("✅") == 1 and out.count("❌") == 1
    assert "Expected reward" in out and "1 of 2 states validated" in out

    # A benchmark that cannot be found fails its row; the rows after it are still checked.
    missing = tmp_path / "missing.csv"
    missing.write_text(
        _states_csv([replace(states[0], benchmark="benchmark://builtin-v0/nope"), states[1]])
    )
    assert validate_cli.main(["--env=llvm-ic-v0", str(missing)]) == 1
    out = capsys.readouterr().out
    assert out.count("✅") == 1 and out.count("❌") == 1 and "nope" in out

    broken = tmp_path / "broken.csv"
    broken.write_text("benchmark,reward\nx,1\n")
    assert validate_cli.main(["--env=llvm-ic-v0", str(broken)]) == 2


def test_the_miscompile_hunt_finds_a_planted_bug_and_blames_it_on_us():
    """A pass that miscompiles on purpose (test builds only), planted as one action: the hunt
    finds it, minimizes the sequence to that action, and opt-19's replay (which runs the real
    pass) behaves, so the bug is ours."""
    from compiler_gym.bin import miscompile

    args = miscompile.make_parser().parse_args(
        ["--programs", "generator://csmith-v0", "--csmith-programs", "2", "--cases", "4"]
        + ["--length", "5", "--seed", "3", "--jobs", "2"]
    )
    flags = [row[0] for row in miscompile.pass_table()]
    planted = miscompile.plan(args.seed, 1, ["p"], args.length, len(flags))[0].actions[2]

    Planted = planted_llvm_env(planted, "compiler-gym-test-miscompile")

    messages = []
    report = miscompile.campaign(lambda: Planted("llvm-v0"), args, say=messages.append)
    assert report.programs == 2 and report.cases == 4
    planted_cases = [f for f in report.findings if planted in f["actions"]]
    assert planted_cases and all(f["outcome"] == "mismatch" for f in planted_cases)
    assert all(planted in f["actions"] for f in report.findings), report.findings
    assert {tuple(f["minimized"]) for f in planted_cases} == {(planted,)}
    assert {f["verdict"] for f in planted_cases} == {"ours"}
    assert report.per_pass[flags[planted]]["mismatches"] == len(planted_cases)
    assert report.runs > report.cases  # minimization ran the program again


def test_the_miscompile_hunt_minimizes_an_error_of_the_compiler():
    """A planted pass that reports a fatal error: the hunt counts a crash, minimizes the
    sequence to the planted action, and opt-19 (which runs the real pass) does not fail."""
    from compiler_gym.bin import miscompile

    args = miscompile.make_parser().parse_args(
        ["--programs", "generator://csmith-v0", "--csmith-programs", "1", "--cases", "2"]
        + ["--length", "6", "--seed", "3", "--jobs", "1"]
    )
    flags = [row[0] for row in miscompile.pass_table()]
    planted = miscompile.plan(args.seed, 1, ["p"], args.length, len(flags))[0].actions[3]

    Planted = planted_llvm_env(planted, "compiler-gym-test-fatal-error")

    report = miscompile.campaign(lambda: Planted("llvm-v0"), args, say=lambda _: None)
    crash = next(f for f in report.findings if f["index"] == 0)
    assert crash["outcome"] == "crash" and crash["actions"][-1] == planted
    assert crash["minimized"] == [planted] and crash["verdict"] == "ours"
    assert report.per_pass[flags[planted]]["crashes"] >= 1


def test_a_miscompile_hunt_past_its_time_budget_reports_only_the_cases_that_ran():
    """``--max-seconds``: no case starts after the budget, and the report counts none that did
    not run (a budget already spent on checking the programs leaves none)."""
    import compiler_gym
    from compiler_gym.bin import miscompile

    args = miscompile.make_parser().parse_args(
        ["--programs", "generator://csmith-v0", "--csmith-programs", "1", "--cases", "6"]
        + ["--length", "4", "--seed", "3", "--jobs", "1", "--max-seconds", "1e-9"]
    )
    report = miscompile.campaign(lambda: compiler_gym.make("llvm-v0"), args, say=lambda _: None)
    assert report.programs == 1 and report.cases == 0 and report.runs == 0
    assert report.outcomes == {} and report.findings == []
    args.max_seconds = 0  # no budget: every case runs
    report = miscompile.campaign(lambda: compiler_gym.make("llvm-v0"), args, say=lambda _: None)
    assert report.cases == 6 and report.runs == 6 and report.outcomes == {"ok": 6}
