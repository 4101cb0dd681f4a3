"""benchmark://pypi-c-v0: real-world C libraries from pinned PyPI source distributions.

Python packages often carry the C library they wrap. This dataset downloads pinned sdists from
PyPI (the index's simple API, ``$COMPILER_GYM_PYPI_INDEX`` to use another), checks each
against its sha256, and keeps the library's own C sources (not the Python bindings):

    benchmark://pypi-c-v0/<library>                  every translation unit, linked
    benchmark://pypi-c-v0/<library>/<path/to/file>   one translation unit

Installing probes each benchmark with the engine and keeps those that clang-19 compiles; the
manifest lists the rest with the reason. None is runnable: libraries have no ``main``.
Each sdist is downloaded at its pinned size (any other is refused) and unpacked by
:func:`compiler_gym.util.archive.unpack_tar`: only the files it keeps, regular files inside the
library's folder.
"""

from __future__ import annotations

import html.parser
import json
import os
import urllib.parse
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath
from typing import Optional

from tqdm import tqdm

from compiler_gym.datasets.benchmark import Benchmark
from compiler_gym.datasets.install import InstalledDataset, downloads_directory
from compiler_gym.errors import DatasetInitError, DownloadFailed
from compiler_gym.util.archive import UnpackLimits, unpack_tar
from compiler_gym.util.download import fetch_bytes, fetch_file

DEFAULT_INDEX = "https://pypi.org/simple/"


@dataclass(frozen=True)
class Library:
    """A C library inside a pinned sdist: which files, and how to compile them."""

    name: str
    project: str  # the PyPI project
    filename: str  # the sdist
    sha256: str
    license: str
    sources: tuple[str, ...]  # globs relative to the sdist's top directory
    includes: tuple[str, ...] = ()  # -I directories, likewise
    defines: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()  # globs of sources to leave out
    link: bool = True  # False: the files are separate programs that cannot be linked together
    size: Optional[int] = None  # the sdist's size in bytes (PyPI's), checked like its sha256


# The pins. Licenses are the libraries' own (not the Python wrappers').
LIBRARIES = (
    Library("sqlite", "sqlean-py", "sqlean_py-3.50.4.5.tar.gz",
            "9764b565e7ab430ab6e9e43cb2816199c2b39926dffc93c212a52f0019278459",
            "blessing (public domain)", ("sqlite/sqlite3.c",), ("sqlite",),
            ("-DSQLITE_THREADSAFE=0", "-DSQLITE_OMIT_LOAD_EXTENSION"), size=3482387),
    Library("zstd", "zstandard", "zstandard-0.25.0.tar.gz",
            "7713e1179d162cf5c7906da876ec2ccb9c3a9dcbdffef0cc7f70c3667a205f0b",
            "BSD-3-Clause", ("zstd/zstd.c",), ("zstd",), ("-DZSTD_MULTITHREAD=0",), size=711513),
    Library("lz4", "lz4", "lz4-4.4.5.tar.gz",
            "5f0b9e53c1e82e88c10d7c180069363980136b9d7a8306c4dca4f760d60c39f0",
            "BSD-2-Clause", ("lz4libs/*.c",), ("lz4libs",), size=172886),
    Library("brotli", "brotli", "brotli-1.2.1.tar.gz",
            "02b2f7b5a83485efe448a44ddf7983def05c3bb1dcf917d4f7154070260e13de",
            "MIT", ("c/common/*.c", "c/dec/*.c", "c/enc/*.c"), ("c/include",), size=7389447),
    Library("zopfli", "zopfli", "zopfli-0.4.3.tar.gz",
            "d3a50f91a13cea9bafe025de8fd87a005eb26de02a4f0c193127ddbf23ac8ebe",
            "Apache-2.0", ("zopfli/src/zopfli/*.c",), ("zopfli/src/zopfli",), size=179156),
    Library("xxhash", "xxhash", "xxhash-4.1.0.tar.gz",
            "c9b288e4c1f5dae54417bc8a05e6f6daf505783d916b4783f4dd2f2e7d5db486",
            "BSD-2-Clause", ("deps/xxhash/xxhash.c",), ("deps/xxhash",), size=114122),
    Library("pycryptodome", "pycryptodome", "pycryptodome-4.4.0.tar.gz",
            "eab7620c60c85f3fa251d026ec06e094f036d96187bebb9752e46fbcebabbb55",
            "BSD-2-Clause AND public domain", ("src/*.c",), ("src",),
            # What pycryptodome's build detects on x86-64 Linux (compiler_opt.py).
            ("-DHAVE_STDINT_H", "-DHAVE_UINT128", "-DHAVE_POSIX_MEMALIGN"),
            exclude=("src/*_armv8.c", "src/*_neon.c", "src/*_pmull.c", "src/test_*.c"),
            link=False, size=1825611),
    Library("cmark-gfm", "cmarkgfm", "cmarkgfm-2025.10.22.tar.gz",
            "5bec61007b65b919488442c838c58a6c8bf4741f5103c593b2ef180d39818eda",
            "BSD-2-Clause", ("third_party/cmark/src/*.c", "third_party/cmark/extensions/*.c"),
            ("third_party/cmark/src", "third_party/cmark/extensions", "generated/unix"),
            size=146727),
    Library("crc32c", "crc32c", "crc32c-2.9.post0.tar.gz",
            "6a089e0340de8438e836a09e613c6b541675d0f3aa92b3fe34295aaba62f014f",
            "LGPL-2.1-or-later",
            ("src/crc32c/ext/crc32c_sw.c", "src/crc32c/ext/crc32c_adler.c",
             "src/crc32c/ext/checksse42.c"),
            ("src/crc32c/ext",), size=48258),
)  # fmt: skip


def _matches(path: str, globs: tuple[str, ...]) -> bool:
    """Whether a glob matches the whole path, "*" staying within one directory."""
    depth = len(PurePosixPath(path).parts)
    return any(fnmatch(path, g) and len(PurePosixPath(g).parts) == depth for g in globs)


class _Links(html.parser.HTMLParser):
    """The file links of a PEP 503 simple-index page."""

    def __init__(self):
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            href = dict(attrs).get("href")
            if href:
                self.links.append(href)


def sdist_url(library: Library, index: str) -> str:
    """The download URL of the library's pinned sdist on a simple index."""
    page = urllib.parse.urljoin(index.rstrip("/") + "/", f"{library.project}/")
    try:
        text = fetch_bytes(page).decode("utf-8", errors="replace")  # a manifest's bounds
    except DownloadFailed as e:
        raise DownloadFailed(f"Cannot read the index page {page}: {e}") from e
    parser = _Links()
    parser.feed(text)
    for href in parser.links:
        if urllib.parse.urlparse(href).path.rsplit("/", 1)[-1] == library.filename:
            return urllib.parse.urljoin(page, href)
    raise DatasetInitError(f"{library.filename} is not on {page}")


class PypiCDataset(InstalledDataset):
    """C libraries from pinned PyPI sdists; ``libraries`` chooses a subset (tests)."""

    # Kept programs are those clang-19 compiles (GCC envs refuse at reset what GCC cannot).
    probe_family = "llvm"

    def __init__(
        self, libraries: Optional[tuple[Library, ...]] = None, index: Optional[str] = None
    ):
        self.libraries = libraries if libraries is not None else LIBRARIES
        super().__init__(
            site_name="pypi-c-v0",
            name="benchmark://pypi-c-v0",
            description="C libraries from pinned PyPI sdists: "
            + ", ".join(lib.name for lib in self.libraries),
            license="per library: "
            + "; ".join(f"{lib.name} {lib.license}" for lib in self.libraries),
            sort_order=30,
        )
        self.index = index or os.environ.get("COMPILER_GYM_PYPI_INDEX") or DEFAULT_INDEX

    def _benchmark(self, uri: str, root: Path, entry: dict) -> Benchmark:
        return Benchmark(
            uri,
            files=[str(root / f) for f in entry["files"]],
            compile_args=[a.replace("{root}", str(root)) for a in entry["compile_args"]],
        )

    # -----------------------------------------------------------------------------------------
    # Installing.

    def _build(self, scratch: Path) -> None:
        entries: dict[str, dict] = {}
        sdists = {}
        with downloads_directory(scratch) as tmp:
            for library in tqdm(self.libraries, desc="Downloading sdists", disable=None):
                archive = tmp / library.filename
                fetch_file(
                    sdist_url(library, self.index), archive, library.sha256, size=library.size
                )
                files = self._extract(library, archive, scratch / library.name)
                sdists[library.name] = {"sdist": library.filename, "sha256": library.sha256}
                compile_args = [f"-I{{root}}/{library.name}/{d}" for d in library.includes]
                compile_args += ["-w", *library.defines]
                if library.link and len(files) > 1:
                    entries[library.name] = {"files": files, "compile_args": compile_args}
                for f in files:
                    relative = PurePosixPath(f).relative_to(library.name).with_suffix("")
                    name = f"{library.name}/{relative}" if len(files) > 1 else library.name
                    entries[name] = {"files": [f], "compile_args": compile_args}
        verdicts = self.probe_all(
            {n: self._benchmark(f"{self.name}/{n}", scratch, e) for n, e in entries.items()}
        )
        kept = {n: e for n, e in entries.items() if verdicts[n]["ok"]}
        dropped = {
            n: verdicts[n]["error"].replace(f"{scratch}/", "").splitlines()[0]
            for n in entries
            if n not in kept
        }
        manifest = {"sdists": sdists, "benchmarks": kept, "dropped": dropped}
        (scratch / "manifest.json").write_text(json.dumps(manifest, indent=1))

    @staticmethod
    def _extract(library: Library, archive: Path, destination: Path) -> list[str]:
        """Extracts the library's sources and headers; returns its sources, relative to the
        dataset root (``<library>/<path>``)."""
        sources = []
        source_dirs = {str(PurePosixPath(g).parent) for g in library.sources}

        def select(name: str) -> Optional[str]:
            parts = PurePosixPath(name).parts
            if len(parts) < 2:
                return None
            path = str(PurePosixPath(*parts[1:]))  # below the sdist's top directory
            is_source = _matches(path, library.sources) and not _matches(path, library.exclude)
            in_include = any(path.startswith(d + "/") for d in library.includes)
            beside_sources = str(PurePosixPath(path).parent) in source_dirs
            is_header = path.endswith((".h", ".inc")) and (in_include or beside_sources)
            # .c files in include directories may be #included by other sources.
            if not (is_source or is_header or (in_include and path.endswith(".c"))):
                return None
            if is_source:
                sources.append(f"{library.name}/{path}")
            return path

        # Only the files chosen are written, each a regular file below ``destination``.
        unpack_tar(
            archive,
            destination,
            limits=UnpackLimits.for_published(),
            label=library.filename,
            select=select,
        )
        if not sources:
            raise DatasetInitError(f"{library.filename} has no sources matching {library.sources}")
        return sorted(sources)
