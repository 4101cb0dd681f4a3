"""benchmark://builtin-v0: every program compiles, runs, checks itself and prints the recorded
output; URIs resolve."""

import subprocess

import numpy as np
import pytest

import compiler_gym
from compiler_gym.datasets import BenchmarkUri

DATASET = compiler_gym.make("llvm-v0").datasets.dataset("builtin-v0")


def test_at_least_ten_programs_and_qsort_default():
    assert DATASET.size >= 10
    assert "benchmark://builtin-v0/qsort" in list(DATASET.benchmark_uris())
    with compiler_gym.make("llvm-v0") as env:
        assert str(env.benchmark.uri) == "benchmark://builtin-v0/qsort"


@pytest.mark.parametrize("uri", list(DATASET.benchmark_uris()))
def test_program_runs_and_matches_expected_output(uri, tmp_path):
    b = DATASET.benchmark(uri)
    exe = tmp_path / "a.out"
    subprocess.run(
        ["clang-19", "-O1", *b.files, "-o", str(exe), *b.link_args], check=True, timeout=300
    )
    proc = subprocess.run([str(exe), *b.run_args], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == b.expected_output


def test_uri_forms():
    assert str(BenchmarkUri.from_string("builtin-v0/qsort")) == "benchmark://builtin-v0/qsort"
    b = DATASET.benchmark("benchmark://builtin-v0/qsort?dataset=2")
    assert b.run_args == ["2"]
    with pytest.raises(LookupError):
        DATASET.benchmark("benchmark://builtin-v0/qsort?dataset=99")
    # A ValueError too, in CompilerGym's cBench words first.
    with pytest.raises(ValueError, match=r"^Invalid dataset: abc: benchmark://builtin-v0/qsort"):
        DATASET.benchmark("benchmark://builtin-v0/qsort?dataset=abc")
    with pytest.raises(LookupError):
        compiler_gym.make("llvm-v0").datasets.benchmark("benchmark://nope-v0/x")
    rng = np.random.default_rng(0)
    assert DATASET.random_benchmark(rng) in set(DATASET.benchmark_uris())


def test_datasets_cli_lists_every_dataset(capsys):
    from compiler_gym.bin import datasets as cli

    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert "benchmark://builtin-v0" in out and "generator://llvm-stress-v0" in out
    assert "infinite" in out
    assert cli.main(["install", "benchmark://nope-v0"]) == 1
    assert "Unknown dataset 'nope-v0'; did you mean" in capsys.readouterr().err


def test_datasets_cli_uninstall_removes_where_each_dataset_keeps_its_files(
    tmp_path, monkeypatch, capsys
):
    """``uninstall`` calls the dataset's own ``uninstall()``: CompilerGym's datasets live under
    ``llvm-v0/benchmark/`` (cBench's runtime data beside them), not ``<site data>/<name>``."""
    from compiler_gym.bin import datasets as cli

    site, cache = tmp_path / "site", tmp_path / "cache"
    monkeypatch.setenv("COMPILER_GYM_SITE_DATA", str(site))
    monkeypatch.setenv("COMPILER_GYM_CACHE", str(cache))
    benchmarks = site / "llvm-v0" / "benchmark"
    placed = [
        benchmarks / "blas-v0" / "contents" / "blas" / "a.bc",
        benchmarks / "cbench-v1" / ".extracted",
        site / "llvm-v0" / "cbench-v1-runtime-data" / "runtime_data" / "unpacked",
        benchmarks / "npb-v0" / ".extracted",  # not named: stays
        cache / "csmith-v0" / "x.c",
    ]
    for path in placed:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    assert cli.main(["uninstall", "blas-v0", "benchmark://cbench-v1", "csmith-v0"]) == 0
    assert "benchmark://blas-v0: removed" in capsys.readouterr().out
    assert not (benchmarks / "blas-v0").exists()
    assert not (benchmarks / "cbench-v1").exists()
    assert not (site / "llvm-v0" / "cbench-v1-runtime-data").exists()
    assert not (cache / "csmith-v0").exists()
    assert (benchmarks / "npb-v0" / ".extracted").is_file()


def test_datasets_random_benchmark_weights():
    """weighted=True never picks an infinite dataset (size 0), as in CompilerGym; weights name
    the datasets to draw from."""
    import compiler_gym

    with compiler_gym.make("llvm-v0") as env:
        rng = np.random.default_rng(0)
        for _ in range(20):
            uri = env.datasets.random_benchmark(rng, weighted=True).uri
            assert not str(uri).startswith("generator://")
        weights = {"generator://llvm-stress-v0": 1.0}
        for _ in range(5):
            uri = env.datasets.random_benchmark(rng, weights=weights).uri
            assert str(uri).startswith("generator://llvm-stress-v0/")
        with pytest.raises(LookupError, match="nope"):
            env.datasets.random_benchmark(rng, weights={"nope": 1.0})
