"""generator://llvm-stress-v0: seeds are benchmarks, generated once and deterministic."""

import shutil

import numpy as np
import pytest

import compiler_gym

pytestmark = pytest.mark.skipif(shutil.which("llvm-stress-19") is None, reason="no llvm-stress-19")


def test_seeds_are_benchmarks(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPILER_GYM_CACHE", str(tmp_path))
    with compiler_gym.make("llvm-v0") as env:
        dataset = env.datasets.dataset("generator://llvm-stress-v0")
        assert dataset.size == 0 and dataset.installed
        uris = []
        for uri in dataset.benchmark_uris():
            uris.append(uri)
            if len(uris) == 3:
                break
        assert uris[2] == "generator://llvm-stress-v0/2"
        hashes = []
        for _ in range(2):
            env.reset(benchmark="generator://llvm-stress-v0/7")
            assert env.observation["IrInstructionCount"] > 50
            env.step(env.action_space.flags.index("-instcombine"))
            hashes.append(env.observation["IrSha1"])
        assert hashes[0] == hashes[1]
        assert len(list((tmp_path / "llvm-stress-v0").iterdir())) == 1
        env.reset(benchmark="generator://llvm-stress-v0/8")
        assert env.observation["IrSha1"] != hashes[0]
        b = dataset.random_benchmark(np.random.default_rng(0))
        assert str(b.uri).startswith("generator://llvm-stress-v0/")


def test_bad_seed_is_a_lookup_error():
    with compiler_gym.make("llvm-v0") as env:
        with pytest.raises(LookupError):
            env.reset(benchmark="generator://llvm-stress-v0/not-a-seed")
