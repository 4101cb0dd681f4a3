"""generator://csmith-v0: seeds are C programs, generated once, compiled with clang-19."""

import shutil

import pytest

import compiler_gym

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
