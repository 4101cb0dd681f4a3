"""benchmark://pypi-c-v0: C libraries from pinned PyPI sdists, checked and installed once."""

import dataclasses

import pytest

import compiler_gym
from compiler_gym.datasets.pypi_c import LIBRARIES, PypiCDataset
from compiler_gym.errors import DatasetInitError

# Two small libraries keep the test quick; the full set is measured by
# benchmarks/dataset_counts.py.
SMALL = tuple(lib for lib in LIBRARIES if lib.name in ("xxhash", "lz4"))


@pytest.fixture
def site_data(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPILER_GYM_SITE_DATA", str(tmp_path / "site"))
    return tmp_path / "site"


def test_pins_are_complete():
    names = [lib.name for lib in LIBRARIES]
    assert len(names) == len(set(names))
    for lib in LIBRARIES:
        assert len(lib.sha256) == 64 and lib.filename.endswith(".tar.gz"), lib.name
    for wanted in ("sqlite", "zstd", "lz4", "brotli", "zopfli", "xxhash", "pycryptodome"):
        assert wanted in names


def test_install_library_and_translation_units(site_data):
    dataset = PypiCDataset(SMALL)
    dataset.install()
    uris = list(dataset.benchmark_uris())
    # xxhash is one file (one benchmark); lz4 is the linked library and one per file.
    assert "benchmark://pypi-c-v0/xxhash" in uris
    assert "benchmark://pypi-c-v0/lz4" in uris
    lz4_files = [u for u in uris if u.startswith("benchmark://pypi-c-v0/lz4/")]
    assert {u.rsplit("/", 1)[1] for u in lz4_files} >= {"lz4", "lz4hc", "lz4frame"}
    manifest = dataset._manifest
    lz4 = next(lib for lib in SMALL if lib.name == "lz4")
    assert manifest["sdists"]["lz4"] == {"sdist": lz4.filename, "sha256": lz4.sha256}
    with compiler_gym.make("llvm-v0") as env:
        env.reset(benchmark=dataset.benchmark("benchmark://pypi-c-v0/lz4"))
        linked = env.observation["IrInstructionCount"]
        total = 0
        for uri in lz4_files:
            env.reset(benchmark=dataset.benchmark(uri))
            total += env.observation["IrInstructionCount"]
            assert env.observation["IsRunnable"] is False
        assert linked <= total  # linking merges what several files share
        _, _, done, _ = env.step(env.action_space.flags.index("-sroa"))
        assert not done
    stamp = (site_data / "pypi-c-v0" / "manifest.json").stat().st_mtime_ns
    PypiCDataset(SMALL).install()
    assert (site_data / "pypi-c-v0" / "manifest.json").stat().st_mtime_ns == stamp


def test_wrong_digest_installs_nothing(site_data):
    tampered = (dataclasses.replace(SMALL[0], sha256="0" * 64),)
    with pytest.raises(DatasetInitError, match="sha256 mismatch"):
        PypiCDataset(tampered).install()
    assert not (site_data / "pypi-c-v0").exists()


def test_unknown_file_is_a_clear_error(site_data):
    missing = (dataclasses.replace(SMALL[0], filename="lz4-0.0.0.tar.gz"),)
    with pytest.raises(DatasetInitError, match="lz4-0.0.0.tar.gz is not on"):
        PypiCDataset(missing).install()
    assert not (site_data / "pypi-c-v0").exists()


def test_llvm_envs_know_the_dataset():
    with compiler_gym.make("llvm-v0") as env:
        dataset = env.datasets.dataset("pypi-c-v0")
        assert isinstance(dataset, PypiCDataset)
        assert "sqlite" in dataset.description and "zstd" in dataset.description
