"""CompilerGym's gcc-v0 datasets (issue 52, item 4): ``benchmark://chstone-v0/<name>`` and
``benchmark://anghabench-v1/<name>`` under ``gcc-v0``, installed on first use from CompilerGym's
archives (pinned by sha256), beside the generator ``csmith-v0`` that gcc-v0 had already.

Nothing here touches the network: the tests write archives in the layout of CompilerGym's
(the folder names of its archives, C programs written here) into a folder that
``$COMPILER_GYM_DATASET_MIRROR`` names, standing in for the download.
"""

from __future__ import annotations

import bz2
import dataclasses
import hashlib
import io
import tarfile
from pathlib import Path

import pytest

import compiler_gym
from compiler_gym.datasets import compilergym_gcc as gcc_datasets
from compiler_gym.datasets import compilergym_llvm_table as table
from compiler_gym.errors import DownloadFailed

# CompilerGym's gcc-v0 chstone-v0: its URIs, archive and sha256 (compiler_gym/envs/gcc/
# datasets/chstone.py at its last release).
CHSTONE_URIS = [
    f"benchmark://chstone-v0/{name}"
    for name in ("adpcm aes blowfish dfadd dfdiv dfmul dfsin gsm jpeg mips motion sha".split())
]
CHSTONE_URL = (
    "https://github.com/ChrisCummins/patmos_HLS/archive/"
    "e62d878ceb91e5a18007ca2e0a9602ee44ff7d59.tar.gz"
)
CHSTONE_SHA256 = "f7acab9d3c3dc7b971e62c8454bc909d84bddb6d0a96378e41beb94231739acb"
CHSTONE_PREFIX = "patmos_HLS-e62d878ceb91e5a18007ca2e0a9602ee44ff7d59/benchmarks/CHStone"
# Its anghabench-v1 (compiler_gym/envs/gcc/datasets/anghabench.py).
ANGHABENCH_URL = (
    "https://github.com/brenocfg/AnghaBench/archive/d8034ac8562b8c978376008f4b33df01b8887b19.tar.gz"
)
ANGHABENCH_SHA256 = "85d068e4ce44f2581e3355ee7a8f3ccb92568e9f5bd338bc3a918566f3aff42f"
ANGHABENCH_MANIFEST_SHA256 = "14df85f650199498cf769715e9f0d7841d09f9fa62a95b8ecc242bdaf227f33a"

# CHStone's main files that are not named after their folder.
MAIN_FILES = {"blowfish": "bf.c", "motion": "mpeg2.c", "sha": "sha_driver.c", "jpeg": "main.c"}


def write_tar(path: Path, files: dict[str, bytes]) -> str:
    """A gzip'd tar archive of ``files`` (name: contents); returns its sha256."""
    with tarfile.open(path, "w:gz") as tar:
        for name, data in sorted(files.items()):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return hashlib.sha256(path.read_bytes()).hexdigest()


def chstone_files() -> dict[str, bytes]:
    """CHStone's layout: a folder per program with its main file; jpeg's main file includes
    a sibling file, as CHStone's programs include theirs."""
    files = {}
    for uri in CHSTONE_URIS:
        name = uri.rsplit("/", 1)[1]
        main = MAIN_FILES.get(name, f"{name}.c")
        body = f"int {name}_value(int x) {{ return x * {len(name)} + 1; }}\n"
        files[f"{CHSTONE_PREFIX}/{name}/{main}"] = body.encode()
    files[f"{CHSTONE_PREFIX}/jpeg/main.c"] = (
        b'#include "decode.c"\nint main(void) { return decode(2); }\n'
    )
    files[f"{CHSTONE_PREFIX}/jpeg/decode.c"] = b"int decode(int x) { return x - 2; }\n"
    return files


@pytest.fixture
def site(tmp_path, monkeypatch) -> Path:
    """A fresh site data folder, and a mirror folder (empty) standing in for the network."""
    monkeypatch.setenv("COMPILER_GYM_SITE_DATA", str(tmp_path / "site"))
    monkeypatch.setenv("COMPILER_GYM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("COMPILER_GYM_QUIET", "1")
    (tmp_path / "mirror").mkdir()
    monkeypatch.setenv("COMPILER_GYM_DATASET_MIRROR", str(tmp_path / "mirror"))
    return tmp_path / "site"


@pytest.fixture
def mirror(site) -> Path:
    return site.parent / "mirror"


def expect_archive(monkeypatch, name: str, sha256: str) -> None:
    """Makes the table's row ``name`` pin ``sha256`` (a test archive's) for its archive."""
    row = table.DEFINITIONS[name]
    archive = dataclasses.replace(row.archive, sha256=sha256)
    monkeypatch.setitem(table.DEFINITIONS, name, dataclasses.replace(row, archive=archive))


def test_gcc_v0_offers_compilergym_s_datasets_without_downloading(site):
    with compiler_gym.make("gcc-v0") as env:
        names = [d.name for d in env.datasets]
        for name in ("benchmark://chstone-v0", "benchmark://anghabench-v1"):
            assert names.count(name) == 1
        assert "generator://csmith-v0" in names  # already gcc-v0's, not duplicated
        chstone = env.datasets["chstone-v0"]
        assert isinstance(chstone, gcc_datasets.CHStoneDataset)
        assert list(chstone.benchmark_uris()) == CHSTONE_URIS
        assert not chstone.installed and chstone.size == 0
        assert chstone.root == site / "gcc-v0" / "benchmark" / "chstone-v0"
    # CompilerGym's archives, URLs and sums.
    row = chstone.definition
    assert (row.archive.urls, row.archive.sha256) == ((CHSTONE_URL,), CHSTONE_SHA256)
    assert row.strip_prefix == CHSTONE_PREFIX
    angha = gcc_datasets.AnghaBenchDataset().definition
    assert (angha.archive.urls, angha.archive.sha256) == ((ANGHABENCH_URL,), ANGHABENCH_SHA256)
    assert angha.manifest.sha256 == ANGHABENCH_MANIFEST_SHA256
    assert not site.exists()  # nothing fetched, nothing written


def test_chstone_installs_from_the_mirror_and_each_program_compiles(site, mirror, monkeypatch):
    sha256 = write_tar(mirror / Path(CHSTONE_URL).name, chstone_files())
    expect_archive(monkeypatch, "benchmark://chstone-v0", sha256)
    with compiler_gym.make("gcc-v0", reward_space="obj_size") as env:
        env.reset(benchmark="benchmark://chstone-v0/jpeg")
        # Preprocessed by gcc-v0's GCC (gcc -E -P): the sibling file included from its folder.
        assert env.source.split() == (
            "int decode(int x) { return x - 2; } int main(void) { return decode(2); }".split()
        )
        assert env.obj_size > 0
        for uri in CHSTONE_URIS:
            env.reset(benchmark=uri)
            name = uri.rsplit("/", 1)[1]
            expected = "int decode(int x)" if name == "jpeg" else f"int {name}_value(int x)"
            assert env.source.startswith(expected), uri
            assert env.obj_size > 0, uri
        assert env.datasets["chstone-v0"].size == 12
        with pytest.raises(LookupError, match="Benchmark not found"):
            env.reset(benchmark="chstone-v0/nope")
    root = site / "gcc-v0" / "benchmark" / "chstone-v0"
    assert (root / ".extracted").is_file()
    assert (root / "contents" / CHSTONE_PREFIX / "sha" / "sha_driver.c").is_file()


def test_an_archive_that_is_not_compilergym_s_is_refused(site, mirror):
    """The mirror's archive is ours; the dataset pins CompilerGym's sha256."""
    write_tar(mirror / Path(CHSTONE_URL).name, chstone_files())
    with compiler_gym.make("gcc-v0") as env:
        with pytest.raises(DownloadFailed, match="sha256 mismatch") as error:
            env.reset(benchmark="chstone-v0/adpcm")
        assert CHSTONE_SHA256 in str(error.value)
        assert not env.datasets["chstone-v0"].installed
    assert not (site / "gcc-v0" / "benchmark" / "chstone-v0" / "contents").exists()


def test_anghabench_installs_by_its_manifest_and_compiles(site, mirror, monkeypatch):
    prefix = "AnghaBench-d8034ac8562b8c978376008f4b33df01b8887b19"
    files = {
        f"{prefix}/lib/src/extr_a.c_f.c": b"typedef int T;\nT f(T x) { return x + 3; }\n",
        f"{prefix}/lib/src/extr_a.c_g.c": b"int g(int x) { return x << 1; }\n",
    }
    sha256 = write_tar(mirror / Path(ANGHABENCH_URL).name, files)
    manifest = table.DEFINITIONS["benchmark://anghabench-v1"].manifest
    names = b"lib/src/extr_a.c_f\nlib/src/extr_a.c_g\n"
    (mirror / manifest.filename).write_bytes(bz2.compress(names))
    expect_archive(monkeypatch, "benchmark://anghabench-v1", sha256)
    monkeypatch.setitem(
        table.DEFINITIONS,
        "benchmark://anghabench-v1",
        dataclasses.replace(
            table.DEFINITIONS["benchmark://anghabench-v1"],
            manifest=dataclasses.replace(
                manifest, sha256=hashlib.sha256(bz2.compress(names)).hexdigest()
            ),
        ),
    )
    with compiler_gym.make("gcc-v0") as env:
        uris = list(env.datasets["anghabench-v1"].benchmark_uris())
        assert uris == [
            "benchmark://anghabench-v1/lib/src/extr_a.c_f",
            "benchmark://anghabench-v1/lib/src/extr_a.c_g",
        ]
        env.reset(benchmark=uris[0])
        assert env.source.split() == "typedef int T; T f(T x) { return x + 3; }".split()
        assert env.obj_size > 0
    assert (site / "gcc-v0" / "benchmark" / "anghabench-v1" / ".extracted").is_file()


def test_compilergym_s_constructors_and_the_alias_module(tmp_path):
    from compiler_gym.envs.gcc.datasets import AnghaBenchDataset, CHStoneDataset

    chstone = CHStoneDataset("gcc", tmp_path, sort_order=3)
    assert (chstone.name, chstone.sort_order) == ("benchmark://chstone-v0", 3)
    assert chstone.root == tmp_path / "benchmark" / "chstone-v0"
    angha = AnghaBenchDataset(
        tmp_path, manifest_url="https://example.org/m.bz2", manifest_sha256="ab" * 32
    )
    assert (angha.definition.manifest.urls, angha.definition.manifest.sha256) == (
        ("https://example.org/m.bz2",),
        "ab" * 32,
    )
    assert AnghaBenchDataset(tmp_path, name="benchmark://anghabench-v0").name == (
        "benchmark://anghabench-v0"
    )
