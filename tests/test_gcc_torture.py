"""benchmark://gcc-torture-v0: installed from Debian's gcc-12-source, safely and once."""

import shutil
import threading
from pathlib import Path

import pytest

import compiler_gym
from compiler_gym.datasets.gcc_torture import PACKAGE, GccTortureDataset
from compiler_gym.errors import DatasetInitError

pytestmark = pytest.mark.skipif(
    shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None,
    reason="needs Debian's apt-get and dpkg-deb",
)

LIMIT = 24  # programs probed per install: the whole suite takes minutes


@pytest.fixture(scope="module")
def deb(tmp_path_factory) -> Path:
    """The package, downloaded once for the module with the dataset's own downloader."""
    return GccTortureDataset._download(tmp_path_factory.mktemp("deb"))


@pytest.fixture
def site_data(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("COMPILER_GYM_SITE_DATA", str(tmp_path / "site"))
    return tmp_path / "site"


def test_install_resolves_runs_and_validates(deb, site_data):
    dataset = GccTortureDataset(deb=deb, limit=LIMIT)
    assert not dataset.installed
    dataset.install()
    assert dataset.installed
    manifest = dataset._manifest
    assert manifest["version"].startswith("gcc-12")
    # Most of the suite compiles with clang-19; what does not is listed with the reason.
    assert dataset.size + len(manifest["dropped"]) == LIMIT
    assert dataset.size >= LIMIT * 3 // 4
    assert all("cannot compile" in reason for reason in manifest["dropped"].values())
    uris = list(dataset.benchmark_uris())
    assert len(uris) == dataset.size
    runnable = [u for u in uris if dataset.benchmark(u).runnable]
    assert len(runnable) >= dataset.size * 3 // 4
    with compiler_gym.make("llvm-v0") as env:
        env.reset(benchmark=dataset.benchmark(runnable[0]))
        assert env.observation["IsRunnable"] is True
        env.multistep([env.action_space.flags.index(f) for f in ("-sroa", "-gvn")])
        result = env.validate()
        assert result.okay(), result.errors
        assert result.benchmark_semantics_validated
    with pytest.raises(LookupError):
        dataset.benchmark("benchmark://gcc-torture-v0/not-a-test")


def test_install_is_idempotent_and_concurrent_installs_build_once(deb, site_data):
    datasets = [GccTortureDataset(deb=deb, limit=4) for _ in range(3)]
    threads = [threading.Thread(target=d.install) for d in datasets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    manifest = site_data / "gcc-torture-v0" / "manifest.json"
    stamp = manifest.stat().st_mtime_ns
    GccTortureDataset(deb=deb, limit=4).install()
    assert manifest.stat().st_mtime_ns == stamp  # nothing rebuilt
    leftovers = [p.name for p in site_data.iterdir() if p.name != "gcc-torture-v0"]
    assert leftovers == [".gcc-torture-v0.lock"]


def test_corrupt_package_is_a_clear_error_and_leaves_nothing(tmp_path, site_data):
    broken = tmp_path / f"{PACKAGE}_0_all.deb"
    broken.write_bytes(b"!<arch>\nthis is not a debian package")
    with pytest.raises(DatasetInitError, match="not a readable gcc-12-source package"):
        GccTortureDataset(deb=broken, limit=4).install()
    assert not (site_data / "gcc-torture-v0").exists()
    assert [p.name for p in site_data.iterdir()] == [".gcc-torture-v0.lock"]


def test_failing_download_is_a_clear_error(tmp_path, site_data, monkeypatch):
    # An apt-get that fails as it does without a network or package lists.
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    apt = fake_bin / "apt-get"
    apt.write_text("#!/bin/sh\necho 'E: Unable to locate package gcc-12-source' >&2\nexit 100\n")
    apt.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_bin}:/usr/bin:/bin")
    with pytest.raises(DatasetInitError, match="Unable to locate package"):
        GccTortureDataset(limit=4).install()
    assert not (site_data / "gcc-torture-v0").exists()
