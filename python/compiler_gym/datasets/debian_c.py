"""benchmark://debian-c-v0: C libraries and their programs from the upstream sources that
Debian's packages carry, each built by its own build command.

A library is a directory of an upstream source tarball inside a Debian binary package (zlib
inside ``gcc-12-source``'s GCC tarball), fetched with ``apt-get download`` when the dataset is
first used (``python -m compiler_gym.bin.datasets install debian-c-v0``). Its benchmarks are
built from command lines, parsed as :func:`~compiler_gym.datasets.make_benchmark_from_command_line`
parses them (the same allow-list of flags):

* ``<library>``: every source of the library linked into one module (no ``main``);
* ``<library>/<file>``: each source alone (``cc -c``);
* ``<library>/<program>``: a program of the library's own test suite (``example``,
  ``infcover``, ...) linked with the library; runnable when its unoptimized build, run
  without arguments, exits with 0 in time on this machine (the install runs each once).

Installing keeps what clang-19 compiles and lists the rest with the reason.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Optional

from compiler_gym.datasets.benchmark import Benchmark
from compiler_gym.datasets.debian import apt_download, unpack_source
from compiler_gym.datasets.install import InstalledDataset, downloads_directory
from compiler_gym.datasets.make_benchmark import _parse_compiler_arguments
from compiler_gym.errors import DatasetInitError


@dataclass(frozen=True)
class Library:
    """A C library in an upstream tarball that a Debian package carries, and its build."""

    name: str
    package: str  # the Debian binary package
    tarball: str  # a regular expression of the tarball's path inside the package
    directory: str  # the library's directory inside the tarball, below its top directory
    license: str
    sources: tuple[str, ...]  # the library's sources, relative to ``directory``
    flags: str = ""  # its compile flags, as its build passes them
    programs: tuple[tuple[str, str], ...] = ()  # (name, the source with main) of its tests


LIBRARIES = (
    Library(
        "zlib",
        "gcc-12-source",
        r"usr/src/gcc-12/gcc-.*\.tar\.xz",
        "zlib",
        "Zlib",
        (
            "adler32.c", "compress.c", "crc32.c", "deflate.c", "gzclose.c", "gzlib.c",
            "gzread.c", "gzwrite.c", "infback.c", "inffast.c", "inflate.c", "inftrees.c",
            "trees.c", "uncompr.c", "zutil.c",
        ),
        # What zlib's configure defines on Linux.
        "-DHAVE_UNISTD_H -DHAVE_STDARG_H -D_LARGEFILE64_SOURCE=1 -I.",
        (("example", "test/example.c"), ("infcover", "test/infcover.c"),
         ("minigzip", "test/minigzip.c")),
    ),
)  # fmt: skip


def commands(library: Library) -> dict[str, tuple[str, bool]]:
    """The library's benchmarks: name -> (the build command, run in the library's directory;
    whether it is a program to run)."""
    sources = " ".join(library.sources)
    out = {library.name: (f"cc {library.flags} -c {sources}", False)}
    for source in library.sources:
        stem = PurePosixPath(source).with_suffix("")
        out[f"{library.name}/{stem}"] = (f"cc {library.flags} -c {source}", False)
    for name, main in library.programs:
        out[f"{library.name}/{name}"] = (f"cc {library.flags} {main} {sources} -o {name}", True)
    return out


class DebianCDataset(InstalledDataset):
    """C libraries from the upstream sources in Debian's packages; ``libraries`` chooses a
    subset and ``debs`` maps a package to a ``.deb`` file to install from (tests)."""

    # Kept programs are those clang-19 compiles (GCC envs refuse at reset what GCC cannot).
    probe_family = "llvm"

    def __init__(
        self,
        libraries: Optional[tuple[Library, ...]] = None,
        debs: Optional[dict[str, Path]] = None,
    ):
        self.libraries = libraries if libraries is not None else LIBRARIES
        super().__init__(
            site_name="debian-c-v0",
            name="benchmark://debian-c-v0",
            description="C libraries and their test programs from the upstream sources in "
            "Debian's packages: "
            + ", ".join(f"{lib.name} ({lib.package})" for lib in self.libraries),
            license="per library: "
            + "; ".join(f"{lib.name} {lib.license}" for lib in self.libraries),
            sort_order=35,
        )
        self._debs = dict(debs or {})

    def _benchmark(self, uri: str, root: Path, entry: dict) -> Benchmark:
        return self._build_benchmark(uri, root / entry["directory"], entry)

    @staticmethod
    def _build_benchmark(uri: str, directory: Path, entry: dict) -> Benchmark:
        words = shlex.split(entry["command"])
        files, compile_args, link_args = _parse_compiler_arguments(
            words[1:], directory, repr(entry["command"])
        )
        return Benchmark(
            uri,
            files=files,
            compile_args=compile_args,
            link_args=link_args,
            buildable=entry["program"],
            runnable=entry.get("runnable", entry["program"]),
        )

    # -----------------------------------------------------------------------------------------
    # Installing.

    def _build(self, scratch: Path) -> None:
        entries: dict[str, dict] = {}
        tarballs = {}
        with downloads_directory(scratch) as tmp:
            for library in self.libraries:
                deb = self._debs.get(library.package) or apt_download(library.package, tmp)
                tarballs[library.name] = self._extract(library, deb, scratch / library.name)
                for name, (command, program) in commands(library).items():
                    entries[name] = {
                        "directory": library.name,
                        "command": command,
                        "program": program,
                    }
        verdicts = self.probe_all(
            {
                n: self._build_benchmark(f"{self.name}/{n}", scratch / e["directory"], e)
                for n, e in entries.items()
            }
        )
        kept, dropped = {}, {}
        for name, entry in entries.items():
            verdict = verdicts[name]
            if entry["program"] and verdict["error_type"] != "BENCHMARK_INIT":
                kept[name] = {**entry, "runnable": bool(verdict["ok"])}
            elif verdict["ok"]:
                kept[name] = entry
            else:
                error = verdict["error"].replace(f"{scratch}/", "").splitlines()
                dropped[name] = error[0] if error else verdict["error_type"]
        manifest = {"tarballs": tarballs, "benchmarks": kept, "dropped": dropped}
        (scratch / "manifest.json").write_text(json.dumps(manifest, indent=1))

    @staticmethod
    def _extract(library: Library, deb: Path, destination: Path) -> str:
        """Streams the library's directory (sources, headers, its test programs) out of the
        package's tarball into ``destination``; returns the tarball's name."""
        prefix = library.directory.strip("/") + "/"
        wanted = set(library.sources) | {main for _, main in library.programs}

        def select(name: str) -> Optional[str]:
            parts = PurePosixPath(name).parts
            path = str(PurePosixPath(*parts[1:])) if len(parts) > 1 else ""
            if not path.startswith(prefix):
                return None
            relative = path[len(prefix) :]
            return relative if relative in wanted or relative.endswith(".h") else None

        version = unpack_source(deb, library.package, library.tarball, destination, select)
        missing = sorted(f for f in wanted if not (destination / f).is_file())
        if missing:
            raise DatasetInitError(
                f"{deb.name}: {version} lacks {library.name}'s {', '.join(missing)}"
            )
        return version
