"""The O0/O3/Oz baselines equal running LLVM's default pipelines: in process on a fresh copy of
the module, and with opt-19 on the same bitcode."""

import subprocess

import pytest

import compiler_gym

URIS = [
    "benchmark://builtin-v0/qsort",
    "benchmark://builtin-v0/crc32",
    "benchmark://builtin-v0/sha256",
]


@pytest.mark.parametrize("uri", URIS)
@pytest.mark.parametrize("level", ["O0", "O3", "Oz"])
def test_baseline_matches_opt19(uri, level, opt19, tmp_path):
    with compiler_gym.make("llvm-v0", benchmark=uri) as env:
        env.reset()
        bitcode = tmp_path / "in.bc"
        env.write_bitcode(bitcode)
        expected = env.observation[f"IrInstructionCount{level}"]
        out = tmp_path / "out.bc"
        subprocess.run(
            [opt19, f"-passes=default<{level}>", str(bitcode), "-o", str(out)],
            check=True,
            timeout=300,
        )
        # Count opt-19's output with the same counter: load it as a benchmark.
        env.reset(benchmark=f"file://{out}")
        assert env.observation["IrInstructionCount"] == expected


def test_text_size_baselines_are_ordered():
    with compiler_gym.make("llvm-v0", benchmark="benchmark://builtin-v0/qsort") as env:
        env.reset()
        assert env.observation["ObjectTextSizeOz"] < env.observation["ObjectTextSizeO0"]
        assert env.observation["TextSizeOz"] < env.observation["TextSizeO0"]
        assert env.observation["TextSizeO0"] == env.observation["TextSizeBytes"]
