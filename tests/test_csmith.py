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
        assert [p.name for p in (tmp_path / "cache" / "csmith-v0").iterdir()] == ["1.c"]
        assert list(workdir.iterdir()) == []  # csmith's platform.info stays out of the cwd
        _, _, done, info = env.step(env.action_space.flags.index("-mem2reg"))
        assert not done, info


def test_bad_seed():
    with compiler_gym.make("llvm-v0") as env:
        with pytest.raises(LookupError):
            env.reset(benchmark="generator://csmith-v0/-3")
