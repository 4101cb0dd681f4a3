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


@pytest.mark.parametrize("isolation", ["none", "process"])
def test_known_costs_are_used_instead_of_computing_them(isolation):
    # A Ray driver ships baselines with a program: the engine takes them as given (the values
    # here are deliberately not the real ones, so that a recomputed baseline would show).
    from compiler_gym.datasets import Benchmark

    with compiler_gym.make("llvm-v0", benchmark="benchmark://builtin-v0/crc32") as env:
        env.reset()
        bitcode = env.observation["Bitcode"]
        real_oz = env.observation["IrInstructionCountOz"]
    uri = f"benchmark://known-costs-v0/crc32-{isolation}"
    seeded = Benchmark(
        uri, data=bitcode, known_costs={"Oz/IrInstructionCount": 7, "O0/IrInstructionCount": 1007}
    )
    with compiler_gym.make(
        "llvm-ic-v0", benchmark=seeded, isolation=isolation, reward_space="IrInstructionCountOz"
    ) as env:
        env.reset()
        assert env.observation["IrInstructionCountOz"] == 7 != real_oz
        assert env.observation["IrInstructionCountO0"] == 1007
        count = env.observation["IrInstructionCount"]
        _, reward, _, _ = env.step(env.action_space["-mem2reg"])
        after = env.observation["IrInstructionCount"]
        # IrInstructionCountOz: (before - after) / (O0 - Oz), with the given O0 and Oz.
        assert reward == pytest.approx((count - after) / (1007 - 7))


def test_an_unknown_known_cost_is_refused():
    from compiler_gym.datasets import Benchmark
    from compiler_gym.errors import BenchmarkInitError

    with compiler_gym.make("llvm-v0", benchmark="benchmark://builtin-v0/crc32") as env:
        env.reset()
        bitcode = env.observation["Bitcode"]
        uri = "benchmark://known-costs-v0/bad"
        env.reset(benchmark=Benchmark(uri, data=bitcode))  # the program is cached now
        bad = Benchmark(uri, data=bitcode, known_costs={"Os/X": 1})
        with pytest.raises((ValueError, BenchmarkInitError), match="unknown known cost 'Os/X'"):
            env.reset(benchmark=bad)
