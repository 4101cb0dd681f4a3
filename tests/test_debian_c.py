"""benchmark://debian-c-v0: C libraries built from the upstream sources in Debian's packages,
each by its own build command, installed safely and once."""

import shutil
from pathlib import Path

import pytest

import compiler_gym
from compiler_gym.datasets.debian_c import LIBRARIES, DebianCDataset, Library, commands
from compiler_gym.errors import DatasetInitError

pytestmark = pytest.mark.skipif(
    shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None,
    reason="needs Debian's apt-get and dpkg-deb",
)

ZLIB = LIBRARIES[0]


@pytest.fixture(scope="module")
def deb(tmp_path_factory) -> Path:
    """The package zlib comes from, downloaded once for the module with the dataset's own
    downloader."""
    from compiler_gym.datasets.debian import apt_download

    return apt_download(ZLIB.package, tmp_path_factory.mktemp("deb"))


@pytest.fixture
def site_data(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("COMPILER_GYM_SITE_DATA", str(tmp_path / "site"))
    return tmp_path / "site"


def test_the_build_commands_are_the_library_s():
    built = commands(ZLIB)
    assert len(built) == 1 + 15 + 3
    assert built["zlib"] == (
        "cc -DHAVE_UNISTD_H -DHAVE_STDARG_H -D_LARGEFILE64_SOURCE=1 -I. -c "
        + " ".join(ZLIB.sources),
        False,
    )
    assert built["zlib/inflate"][0].endswith(" -c inflate.c")
    command, program = built["zlib/infcover"]
    assert program and command.endswith(" -o infcover")
    assert " test/infcover.c adler32.c " in command


def test_install_builds_every_benchmark_and_runs_the_test_programs(deb, site_data):
    dataset = DebianCDataset(debs={ZLIB.package: deb})
    dataset.install()
    manifest = dataset._manifest
    assert manifest["tarballs"]["zlib"].startswith("gcc-12")
    assert manifest["dropped"] == {}
    entries = manifest["benchmarks"]
    assert len(entries) == 19
    assert {n for n, e in entries.items() if e.get("runnable")} == {
        "zlib/example",
        "zlib/infcover",
        "zlib/minigzip",
    }
    # Only the library's directory was written: its sources, headers and test programs.
    written = {str(p.relative_to(site_data / "debian-c-v0")) for p in site_data.rglob("*.c")}
    assert written == {f"zlib/{f}" for f in ZLIB.sources} | {
        "zlib/test/example.c",
        "zlib/test/infcover.c",
        "zlib/test/minigzip.c",
    }

    with compiler_gym.make("llvm-ic-v0") as env:
        env.reset(benchmark="benchmark://debian-c-v0/zlib/adler32")
        assert not env.benchmark.runnable
        assert env.observation["IrInstructionCount"] == 659
        assert env.observation["IrInstructionCountOz"] == 297
        env.reset(benchmark="benchmark://debian-c-v0/zlib/infcover", action_space="PassesAll")
        assert env.benchmark.runnable
        env.reset(action_space="PassesParameterized")
        env.step(env.action_space.flags.index("default<Oz>"))
        assert env.episode_reward == 1.0
        assert env.validate().okay()  # the optimized test program still passes its checks
        assert sorted(env.datasets["debian-c-v0"].benchmark_uris())[0] == (
            "benchmark://debian-c-v0/zlib"
        )


def test_a_package_without_the_library_s_files_is_refused(deb, site_data, tmp_path):
    missing = Library(
        "nolib",
        ZLIB.package,
        ZLIB.tarball,
        "no/such/directory",
        "none",
        ("x.c",),
    )
    dataset = DebianCDataset(libraries=(missing,), debs={ZLIB.package: deb})
    with pytest.raises(DatasetInitError, match="lacks nolib's x.c"):
        dataset.install()
    assert not dataset.installed
    assert not (site_data / "debian-c-v0").exists()


def test_a_file_that_is_not_a_package_is_refused(site_data, tmp_path):
    fake = tmp_path / "gcc-12-source_0_all.deb"
    fake.write_bytes(b"not a package")
    dataset = DebianCDataset(debs={ZLIB.package: fake})
    with pytest.raises(DatasetInitError, match="is not a readable gcc-12-source package"):
        dataset.install()
