"""benchmark://gcc-torture-v0: the C execution tests of GCC's torture suite.

The programs come from Debian's ``gcc-12-source`` package, fetched with ``apt-get download``
when the dataset is first used (or installed with ``python -m compiler_gym.bin.datasets
install gcc-torture-v0``). Each test is a small self-checking program: it calls ``abort()``
on failure and exits with 0 on success. Installing keeps the tests that clang-19 compiles on
this machine, and marks runnable those whose unoptimized build exits with 0 in time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from compiler_gym.datasets.benchmark import Benchmark
from compiler_gym.datasets.debian import apt_download, unpack_source
from compiler_gym.datasets.install import InstalledDataset, downloads_directory
from compiler_gym.errors import DatasetInitError

PACKAGE = "gcc-12-source"
# Inside the package: the GCC release tarball; inside that, the tests.
_TARBALL = r"usr/src/gcc-12/gcc-.*\.tar\.xz"
_TESTS = "/gcc/testsuite/gcc.c-torture/execute/"
# The tests are written in the C of older GCCs (implicit int, undeclared functions), which
# GCC 12 accepts with warnings and clang-19 rejects unless told otherwise; and they exercise
# corner cases on purpose, so their warnings are not ours to fix.
_COMPILE_ARGS = [
    "-w",
    "-Wno-error=implicit-int",
    "-Wno-error=implicit-function-declaration",
    "-Wno-error=int-conversion",
    "-Wno-error=incompatible-pointer-types",
    "-Wno-error=return-type",
]
# builtins/ tests link against companion libraries of GCC's harness: not standalone programs.
_SKIPPED_DIRS = ("builtins/",)


class GccTortureDataset(InstalledDataset):
    """GCC 12's ``gcc.c-torture/execute`` programs that clang-19 compiles.

    ``deb`` installs from a given ``.deb`` file instead of downloading one, and ``limit`` keeps
    only the first programs (in name order): both for tests.
    """

    # Kept programs are those clang-19 compiles (GCC envs refuse at reset what GCC cannot).
    probe_family = "llvm"

    def __init__(self, deb: Optional[Path] = None, limit: Optional[int] = None):
        super().__init__(
            site_name="gcc-torture-v0",
            name="benchmark://gcc-torture-v0",
            description="GCC 12 C torture execution tests that clang-19 compiles (gcc-12-source)",
            license="GPL-3.0-or-later WITH GCC-exception-3.1",
            sort_order=20,
        )
        self._deb = deb
        self._limit = limit

    def _benchmark(self, uri: str, root: Path, entry: dict) -> Benchmark:
        return self._program(uri, root / "src" / entry["file"], entry["runnable"])

    @staticmethod
    def _program(uri: str, path: Path, runnable: bool) -> Benchmark:
        return Benchmark(
            uri,
            files=[str(path)],
            compile_args=_COMPILE_ARGS,
            link_args=["-lm"],
            buildable=True,
            runnable=runnable,
        )

    # -----------------------------------------------------------------------------------------
    # Installing.

    def _build(self, scratch: Path) -> None:
        with downloads_directory(scratch) as tmp:
            deb = self._deb or self._download(tmp)
            version = self._extract(deb, scratch / "src")
        programs = sorted(
            str(p.relative_to(scratch / "src"))
            for p in (scratch / "src").rglob("*.c")
            if not str(p.relative_to(scratch / "src")).startswith(_SKIPPED_DIRS)
        )
        if self._limit is not None:
            programs = programs[: self._limit]
        if not programs:
            raise DatasetInitError(f"{deb}: no torture tests found in the package")
        verdicts = self.probe_all(
            {p: self._program(f"{self.name}/{p}", scratch / "src" / p, True) for p in programs}
        )
        kept = {
            p[: -len(".c")]: {"file": p, "runnable": v["ok"]}
            for p, v in verdicts.items()
            if v["error_type"] != "BENCHMARK_INIT"
        }
        dropped = {
            p[: -len(".c")]: v["error"].replace(f"{scratch}/src/", "").splitlines()[0]
            for p, v in verdicts.items()
            if p[: -len(".c")] not in kept
        }
        manifest = {"package": PACKAGE, "version": version, "benchmarks": kept, "dropped": dropped}
        # The manifest names files under src/, which the final rename moves: paths are relative.
        (scratch / "manifest.json").write_text(json.dumps(manifest, indent=1))

    @staticmethod
    def _download(directory: Path) -> Path:
        return apt_download(PACKAGE, directory)

    @staticmethod
    def _extract(deb: Path, destination: Path) -> str:
        """Streams the tests out of the package's GCC tarball; returns the tarball's name."""

        def select(name: str):
            at = name.find(_TESTS)
            return name[at + len(_TESTS) :] if at >= 0 else None

        return unpack_source(deb, PACKAGE, _TARBALL, destination, select)
