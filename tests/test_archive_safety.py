"""Hostile archives (issue 51, finding 1): every archive the package unpacks goes through
compiler_gym.util.archive, which writes regular files and folders inside the destination only,
whatever the Python version's tarfile filter lets through (CVE-2025-4517), within bounds on
unpacked bytes, members and compression ratio that environment variables set."""

from __future__ import annotations

import ast
import gzip
import io
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

import compiler_gym
from compiler_gym.datasets import TarDataset
from compiler_gym.datasets.gcc_torture import GccTortureDataset
from compiler_gym.datasets.pypi_c import Library, PypiCDataset
from compiler_gym.errors import DatasetInitError
from compiler_gym.util.archive import UnpackLimits, unpack_tar

PACKAGE = Path(compiler_gym.__file__).parent
PROGRAM = b"int main(void) { return 0; }\n"
# The releases whose tarfile filter holds against CVE-2025-4517 (and its siblings).
FIXED = {(3, 9): 23, (3, 10): 18, (3, 11): 13, (3, 12): 11, (3, 13): 4}


def vulnerable_python() -> bool:
    fixed = FIXED.get(sys.version_info[:2])
    return fixed is not None and sys.version_info[2] < fixed


# -------------------------------------------------------------------------------------------
# Writing archives.


def add(tar: tarfile.TarFile, name: str, kind=tarfile.REGTYPE, data: bytes = b"", **fields):
    info = tarfile.TarInfo(name)
    info.type = kind
    for key, value in fields.items():
        setattr(info, key, value)
    if kind in (tarfile.REGTYPE, tarfile.AREGTYPE):
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    else:
        tar.addfile(info)


def cve_2025_4517_tarball(path: Path, destination_length: int, victim: str) -> None:
    """The attack: 16 nested folders of long names, each reached through a one-letter link, so
    that a path through all of them resolves past PATH_MAX; ``os.path.realpath`` then stops
    resolving and treats the last link (to ``../`` x 16) as a folder. ``escape`` (that link,
    then ``..``) passes the "data" filter's check but is the destination's parent to the
    kernel: a file is created through it, and a hard link to ``victim`` there is
    overwritten. The names are sized for a destination path of ``destination_length``."""
    steps = "abcdefghijklmnop"
    long_name = "d" * min(250, (4000 - destination_length) // len(steps) - 1)
    with tarfile.open(path, "w") as tar:
        inner = ""
        for step in steps:
            add(tar, os.path.join(inner, long_name), tarfile.DIRTYPE)
            add(tar, os.path.join(inner, step), tarfile.SYMTYPE, linkname=long_name)
            inner = os.path.join(inner, long_name)
        last = os.path.join(*steps, "l" * 254)
        add(tar, last, tarfile.SYMTYPE, linkname="../" * len(steps))
        add(tar, "escape", tarfile.SYMTYPE, linkname=f"{last}/..")
        add(tar, "escape/created.txt", data=b"written outside\n")
        add(tar, "victim-link", tarfile.LNKTYPE, linkname=f"escape/{victim}")
        add(tar, "victim-link", data=b"overwritten\n")
        add(tar, "prog.c", data=PROGRAM)


def write_tar(path: Path, members) -> Path:
    """A tar of ``members``: (name, kind, data, fields) tuples."""
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as tar:
        for name, kind, data, fields in members:
            add(tar, name, kind, data, **fields)
    return path


@pytest.fixture
def site_data(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("COMPILER_GYM_SITE_DATA", str(tmp_path / "site"))
    for variable in (
        "COMPILER_GYM_MAX_UNPACKED_BYTES",
        "COMPILER_GYM_MAX_UNPACKED_MEMBERS",
        "COMPILER_GYM_MAX_UNPACK_RATIO",
    ):
        monkeypatch.delenv(variable, raising=False)
    return tmp_path / "site"


def only_the_lock(site_data: Path, name: str) -> list[str]:
    return sorted(p.name for p in (site_data / "user").iterdir())


# -------------------------------------------------------------------------------------------
# The CVE.


def test_the_package_never_calls_tarfiles_extract_or_extractall():
    """tarfile's extract/extractall rely on its filter, which CVE-2025-4517 defeats on this
    package's supported Pythons before 3.11.13, 3.12.11 and 3.13.4: nothing may call them."""
    calls = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("extract", "extractall", "unpack_archive"):
                calls.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {name}()")
    assert not calls, (
        "tarfile's extract/extractall (and shutil.unpack_archive) trust the Python version's "
        "tar filter, which CVE-2025-4517 lets write outside the destination before Python "
        "3.11.13 / 3.12.11 / 3.13.4; unpack with compiler_gym.util.archive.unpack_tar "
        f"instead: {calls}"
    )


@pytest.mark.skipif(not vulnerable_python(), reason="this Python's tarfile filter is fixed")
def test_the_attack_tarball_escapes_tarfiles_data_filter_on_this_python(tmp_path):
    """The tarball the next test uses is the real attack: on this Python, tarfile's own
    ``filter="data"`` writes outside its destination with it."""
    destination = tmp_path / "dest"
    destination.mkdir()
    (tmp_path / "victim.txt").write_text("original\n")
    cve_2025_4517_tarball(tmp_path / "x.tar", len(str(destination)), "victim.txt")
    with tarfile.open(tmp_path / "x.tar") as tar:
        tar.extractall(destination, filter="data")
    assert (tmp_path / "victim.txt").read_text() == "overwritten\n"
    assert (tmp_path / "created.txt").read_text() == "written outside\n"


def test_a_cve_2025_4517_tarball_writes_nothing_outside_its_dataset(tmp_path, site_data):
    """Loaded the documented way (``env.datasets.add(TarDataset(...))``, then ``reset``), the
    tarball is refused at its first link; the files beside the dataset's folder are as
    they were, and no dataset is installed."""
    user = site_data / "user"
    user.mkdir(parents=True)
    (user / "victim.txt").write_text("original\n")
    # The dataset unpacks into the scratch folder <site>/user/.evil-v0-XXXXXXXX.
    scratch_length = len(str(user / ".evil-v0-")) + 8
    tarball = tmp_path / "evil.tar"
    cve_2025_4517_tarball(tarball, scratch_length, "victim.txt")
    with compiler_gym.make("llvm-v0") as env:
        env.datasets.add(TarDataset("benchmark://evil-v0", str(tarball)))
        with pytest.raises(DatasetInitError, match="member 'a' is a symbolic link to 'ddd"):
            env.reset(benchmark="benchmark://evil-v0/prog")
    assert (user / "victim.txt").read_text() == "original\n"
    assert not (user / "created.txt").exists()
    assert sorted(p.name for p in user.iterdir()) == [".evil-v0.lock", "victim.txt"]


# -------------------------------------------------------------------------------------------
# Members that are refused.

LINK = {"linkname": "prog.c"}


@pytest.mark.parametrize(
    "member, message",
    [
        (("inside.c", tarfile.SYMTYPE, b"", LINK), "member 'inside.c' is a symbolic link to"),
        (("hard.c", tarfile.LNKTYPE, b"", LINK), "member 'hard.c' is a hard link to 'prog.c'"),
        (("pipe", tarfile.FIFOTYPE, b"", {}), "member 'pipe' is a FIFO"),
        (("tty", tarfile.CHRTYPE, b"", {}), "member 'tty' is a character device"),
        (("disk", tarfile.BLKTYPE, b"", {}), "member 'disk' is a block device"),
        (("holes.c", tarfile.GNUTYPE_SPARSE, b"", {}), "member 'holes.c' is a sparse file"),
        (("/tmp/abs.c", tarfile.REGTYPE, PROGRAM, {}), "member '/tmp/abs.c' has an absolute"),
        (("sub/../../up.c", tarfile.REGTYPE, PROGRAM, {}), "member 'sub/../../up.c' climbs out"),
        (("prog.c", tarfile.REGTYPE, PROGRAM, {}), "member 'prog.c' is already in the archive"),
        (("prog.c/x.c", tarfile.REGTYPE, PROGRAM, {}), "needs 'prog.c' as a folder"),
        (("x" * 1100 + ".c", tarfile.REGTYPE, PROGRAM, {}), "has a name over 1024 bytes"),
    ],
    ids=lambda v: v if isinstance(v, str) else v[0][:20],
)
def test_a_tarball_of_anything_but_files_and_folders_is_refused(
    member, message, tmp_path, site_data
):
    """Links (inside or out), devices, FIFOs, sparse files, absolute paths, ``..``, a name
    given twice or a file where a folder must be: each is refused, naming the member, and
    leaves nothing installed and nothing outside."""
    tarball = write_tar(tmp_path / "bad.tar", [("prog.c", tarfile.REGTYPE, PROGRAM, {}), member])
    dataset = TarDataset("benchmark://bad-v0", str(tarball))
    with pytest.raises(DatasetInitError, match=message.replace("(", r"\(")):
        dataset.install()
    assert not dataset.installed
    assert only_the_lock(site_data, "bad-v0") == [".bad-v0.lock"]
    assert not list(tmp_path.rglob("up.c")) and not Path("/tmp/abs.c").exists()


def test_a_plain_tarball_with_folders_unpacks(tmp_path, site_data):
    """What the refusals leave: a ``./``-prefixed tarball of folders and files unpacks as
    it always did."""
    tarball = tmp_path / "ok.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        add(tar, ".", tarfile.DIRTYPE)
        add(tar, "./sub", tarfile.DIRTYPE)
        add(tar, "./sub/prog.c", data=PROGRAM)
        add(tar, "./sub/empty", tarfile.DIRTYPE)
    dataset = TarDataset("benchmark://ok-v0", str(tarball))
    assert list(dataset.benchmark_uris()) == ["benchmark://ok-v0/sub/prog"]
    assert (dataset.root / "sub" / "prog.c").read_bytes() == PROGRAM
    assert (dataset.root / "sub" / "empty").is_dir()


def test_pypi_sdists_member_climbing_out_is_refused(tmp_path):
    """An sdist member that the dataset keeps but whose name climbs out with ``..`` (a
    header "in" an include folder) was written outside the dataset; now it is refused."""
    library = Library("demo", "demo", "demo-1.0.tar.gz", "0" * 64, "MIT", ("src/*.c",), ("src",))
    archive = tmp_path / library.filename
    with tarfile.open(archive, "w:gz") as tar:
        add(tar, "demo-1.0/src/demo.c", data=PROGRAM)
        add(tar, "demo-1.0/src/../../../evil.h", data=b"#error owned\n")
    destination = tmp_path / "site" / "pypi-c-v0" / "demo"
    with pytest.raises(
        DatasetInitError, match=r"member 'demo-1.0/src/\.\./\.\./\.\./evil.h' climbs"
    ):
        PypiCDataset._extract(library, archive, destination)
    assert not list(tmp_path.rglob("evil.h"))


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb")
def test_gcc_torture_packages_test_climbing_out_is_refused(tmp_path):
    """A package whose GCC tarball holds a "test" named with ``..``: written outside the
    dataset before, refused now."""
    tests = "gcc-12.9.9/gcc/testsuite/gcc.c-torture/execute/"
    inner = io.BytesIO()
    with tarfile.open(fileobj=inner, mode="w:xz") as tar:
        add(tar, tests + "ok.c", data=PROGRAM)
        add(tar, tests + "../../../evil.c", data=b"#error owned\n")  # to tmp_path
    root = tmp_path / "pkg"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "DEBIAN" / "control").write_text(
        "Package: gcc-12-source\nVersion: 0\nArchitecture: all\nMaintainer: t <t@t>\n"
        "Description: test\n"
    )
    (root / "usr/src/gcc-12").mkdir(parents=True)
    (root / "usr/src/gcc-12/gcc-12.9.9.tar.xz").write_bytes(inner.getvalue())
    deb = tmp_path / "gcc-12-source_0_all.deb"
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "--build", str(root), str(deb)],
        check=True,
        capture_output=True,
    )
    destination = tmp_path / "site" / "gcc-torture-v0" / "src"
    with pytest.raises(DatasetInitError, match="evil.c' climbs out with '..'"):
        GccTortureDataset._extract(deb, destination)
    assert not list(tmp_path.rglob("evil.c"))


def test_a_selected_link_is_refused_and_others_are_skipped(tmp_path):
    """With ``select``, members not chosen are never written, whatever they are; a chosen one
    must be a regular file."""
    archive = write_tar(
        tmp_path / "a.tar",
        [
            ("top/keep.c", tarfile.REGTYPE, PROGRAM, {}),
            ("top/elsewhere", tarfile.SYMTYPE, b"", {"linkname": "/etc"}),
            ("top/link.c", tarfile.SYMTYPE, b"", {"linkname": "/etc/passwd"}),
        ],
    )

    def keep_c(name: str):
        return name.split("/", 1)[1] if name.endswith(".c") else None

    limits = UnpackLimits.for_user()
    with pytest.raises(DatasetInitError, match="'top/link.c' is a symbolic link to '/etc/passwd'"):
        unpack_tar(archive, tmp_path / "out", limits=limits, label="a.tar", select=keep_c)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["keep.c"]


# -------------------------------------------------------------------------------------------
# Bounds.


class _Zeros(io.RawIOBase):
    """``size`` zero bytes, made as they are read (an archive member without the memory)."""

    def __init__(self, size: int):
        self.left = size

    def readable(self):
        return True

    def readinto(self, buffer):
        n = min(len(buffer), self.left)
        buffer[:n] = bytes(n)
        self.left -= n
        return n


def test_a_decompression_bomb_is_refused_by_default(tmp_path, site_data):
    """A small tarball that unpacks to far more than it is (80 MiB of zeros in ~80 KB) stops
    at 64 MiB under the default ratio bound, naming it; nothing stays."""
    tarball = tmp_path / "bomb.tar.gz"
    with gzip.GzipFile(tarball, "wb", compresslevel=1) as packed:
        with tarfile.open(fileobj=packed, mode="w") as tar:
            add(tar, "prog.c", data=PROGRAM)
            info = tarfile.TarInfo("zeros.bc")
            info.size = 80 << 20
            tar.addfile(info, io.BufferedReader(_Zeros(info.size)))
    assert tarball.stat().st_size < 1 << 20
    dataset = TarDataset("benchmark://bomb-v0", str(tarball))
    with pytest.raises(DatasetInitError, match=r"COMPILER_GYM_MAX_UNPACK_RATIO=100\b"):
        dataset.install()
    assert only_the_lock(site_data, "bomb-v0") == [".bomb-v0.lock"]


@pytest.mark.parametrize(
    "variable, value, message",
    [
        ("COMPILER_GYM_MAX_UNPACKED_BYTES", "100000", "unpacks to more than 100000 bytes"),
        ("COMPILER_GYM_MAX_UNPACKED_MEMBERS", "10", "has more than 10 members"),
        ("COMPILER_GYM_MAX_UNPACK_RATIO", "0.5", r"over 0\.5 times its size"),
    ],
)
def test_each_unpack_limit_is_an_environment_variable_its_error_names(
    variable, value, message, tmp_path, site_data, monkeypatch
):
    """Twenty 10 KB programs: over each limit once it is lowered, with an error naming the
    limit and its variable, and nothing left behind; within them by default."""
    members = [(f"p{i}.c", tarfile.REGTYPE, PROGRAM + bytes(10_000), {}) for i in range(20)]
    tarball = write_tar(tmp_path / "many.tar", members)
    monkeypatch.setenv(variable, value)
    if variable == "COMPILER_GYM_MAX_UNPACK_RATIO":
        monkeypatch.setattr("compiler_gym.util.archive.RATIO_FLOOR_BYTES", 0)
    dataset = TarDataset("benchmark://many-v0", str(tarball))
    with pytest.raises(DatasetInitError, match=f"{message}.*\\${variable}={value}; set it higher"):
        dataset.install()
    assert only_the_lock(site_data, "many-v0") == [".many-v0.lock"]
    monkeypatch.delenv(variable)
    assert dataset.size == 20


def test_an_oversized_extended_header_is_refused_before_it_is_read(tmp_path, site_data):
    """A pax header of 2 MiB (tarfile would read it into memory whole) is refused."""
    tarball = tmp_path / "pax.tar"
    with tarfile.open(tarball, "w", format=tarfile.PAX_FORMAT) as tar:
        info = tarfile.TarInfo("prog.c")
        info.size = len(PROGRAM)
        info.pax_headers = {"comment": "x" * (2 << 20)}
        tar.addfile(info, io.BytesIO(PROGRAM))
    dataset = TarDataset("benchmark://pax-v0", str(tarball))
    with pytest.raises(DatasetInitError, match="extended header .* not a program archive's"):
        dataset.install()
    assert only_the_lock(site_data, "pax-v0") == [".pax-v0.lock"]


def test_a_bad_limit_value_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("COMPILER_GYM_MAX_UNPACKED_MEMBERS", "lots")
    with pytest.raises(ValueError, match=r"\$COMPILER_GYM_MAX_UNPACKED_MEMBERS must be a positive"):
        UnpackLimits.for_user()
