"""generator://csmith-v0: seeds are C programs, generated once, compiled with clang-19."""

import shutil

import pytest

import compiler_gym
from compiler_gym.envs.gcc.datasets import CsmithBenchmark
from compiler_gym.errors import BenchmarkInitError

pytestmark = pytest.mark.skipif(shutil.which("csmith") is None, reason="csmith not installed")


def test_seed_is_a_compilable_program(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPILER_GYM_CACHE", str(tmp_path / "cache"))
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    with compiler_gym.make("llvm-v0") as env:
        dataset = env.datasets.dataset("generator://csmith-v0")
        assert dataset.installed and dataset.size == 0
        env.reset(benchmark="generator://csmith-v0/1")
        assert env.observation["IrInstructionCount"] > 100
        assert env.observation["IsBuildable"] is True
        first = env.observation["IrSha1"]
        env.reset(benchmark="generator://csmith-v0/1")
        assert env.observation["IrSha1"] == first
        cached = sorted(p.name for p in (tmp_path / "cache" / "csmith-v0").iterdir())
        assert cached == ["1.c", "1.json"]  # the program and its runnability verdict
        assert list(workdir.iterdir()) == []  # csmith's platform.info stays out of the cwd
        _, _, done, info = env.step(env.action_space.flags.index("-mem2reg"))
        assert not done, info


def test_bad_seed():
    with compiler_gym.make("llvm-v0") as env:
        with pytest.raises(LookupError):
            env.reset(benchmark="generator://csmith-v0/-3")


def test_terminating_seed_is_runnable_and_validates(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPILER_GYM_CACHE", str(tmp_path / "cache"))
    with compiler_gym.make("llvm-v0") as env:
        benchmark = env.datasets.benchmark("generator://csmith-v0/0")
        assert benchmark.runnable
        assert benchmark.expected_output.startswith("checksum = ")
        env.reset(benchmark=benchmark)
        assert env.observation["IsRunnable"] is True
        assert len(env.observation["Runtime"]) == 1
        env.multistep([env.action_space.flags.index(f) for f in ("-sroa", "-instcombine", "-gvn")])
        result = env.validate()
        assert result.okay(), result.errors
        assert result.benchmark_semantics_validated


def test_program_that_does_not_end_in_time_is_not_runnable(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPILER_GYM_CACHE", str(tmp_path / "cache"))
    with compiler_gym.make("llvm-v0") as env:
        dataset = env.datasets.dataset("generator://csmith-v0")
        # A stand-in for a csmith program that loops: the probe's time limit decides.
        program = tmp_path / "loop.c"
        program.write_text("int main(void) { for (;;) {} }\n")
        monkeypatch.setattr(dataset, "probe_timeout_seconds", 0.5)
        verdict = dataset._probe(program)
        assert verdict == {"runnable": False, "reason": "run: timed out after 0.5 s"}


def test_generator_failure_is_retried_then_reported(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPILER_GYM_CACHE", str(tmp_path / "cache"))
    # A stand-in generator that always fails, counting its runs.
    count = tmp_path / "runs"
    fake = tmp_path / "fake-csmith"
    fake.write_text(f"#!/bin/sh\necho run >> {count}\necho 'out of memory' >&2\nexit 1\n")
    fake.chmod(0o755)
    with compiler_gym.make("llvm-v0") as env:
        dataset = env.datasets.dataset("generator://csmith-v0")
        monkeypatch.setattr(dataset, "binary", str(fake))
        with pytest.raises(BenchmarkInitError, match="out of memory on seed 5 \\(2 attempts\\)"):
            dataset.benchmark("generator://csmith-v0/5")
        assert count.read_text() == "run\nrun\n"
        # CompilerGym's benchmark_from_seed: its retry budget, then an OSError.
        with pytest.raises(OSError, match="on seed 6 \\(3 attempts\\)"):
            dataset.benchmark_from_seed(6)
    assert count.read_text() == "run\n" * 5


def test_benchmark_from_seed_has_the_source(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPILER_GYM_CACHE", str(tmp_path / "cache"))
    with compiler_gym.make("gcc-v0") as env:
        dataset = env.datasets.dataset("generator://csmith-v0")
        benchmark = dataset.benchmark_from_seed(4)
        assert isinstance(benchmark, CsmithBenchmark)
        assert benchmark == dataset.benchmark("generator://csmith-v0/4")
        assert benchmark.source == (tmp_path / "cache" / "csmith-v0" / "4.c").read_text()
        assert "csmith" in benchmark.source.lower()
