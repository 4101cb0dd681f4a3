"""CompilerGym's LLVM datasets, by their URIs: ``benchmark://cbench-v1/qsort``,
``benchmark://anghabench-v1/...``, ``benchmark://poj104-v1/...`` and the rest of what
CompilerGym's ``get_llvm_datasets()`` defines.

Each dataset is a row of :data:`DEFINITIONS`: the archives CompilerGym publishes (URLs and
sha256 sums, for Linux), the folder of the archive that holds the benchmarks, and the kind of
file a benchmark is. Nothing is downloaded until a dataset is used; then it installs as
CompilerGym installs it, in CompilerGym's layout::

    <site data>/llvm-v0/benchmark/<dataset>/manifest-<sha256>.txt   the benchmark names
    <site data>/llvm-v0/benchmark/<dataset>/contents/<prefix>/...   the unpacked archive
    <site data>/llvm-v0/benchmark/<dataset>/.extracted              marks a complete unpacking
    <site data>/llvm-v0/cbench-v1-runtime-data/runtime_data/...     cBench's input files

``<site data>/llvm-v0`` is ``$COMPILER_GYM_SITE_DATA/llvm-v0``, or the ``site_data_base`` a
dataset is given. Archives come from their URLs, or only from the mirror that
``$COMPILER_GYM_DATASET_MIRROR`` names (a directory or a URL prefix holding each file under
the name its URL ends with), or from a copy placed by hand in the dataset's folder; see
:func:`compiler_gym.util.download.fetch_published_file`. Bitcode from LLVM 10 is read by
LLVM 19; C, C++ and OpenCL sources are compiled with clang-19 when first used.

cBench's runnable programs run as CompilerGym runs them: with CompilerGym's command line per
input set (``?dataset=N`` picks one, 0 by default) over cBench's runtime data, and a
``_finfo_dataset`` file saying how many times to repeat. So ``Runtime``, ``IsRunnable`` and
``validate()`` work on them; the files a program writes count as its output when validating.
"""

from __future__ import annotations

import bz2
import hashlib
import logging
import os
import shutil
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Optional, Union

from tqdm import tqdm

from compiler_gym._engine import _C
from compiler_gym.datasets.benchmark import Benchmark, BenchmarkUri
from compiler_gym.datasets.dataset import Dataset
from compiler_gym.datasets.install import downloads_directory, file_lock, install_directory
from compiler_gym.errors import BenchmarkInitError, DatasetInitError
from compiler_gym.util.download import fetch_published_file, progress_disabled, url_filename
from compiler_gym.util.runfiles import site_data_path, write_atomically

logger = logging.getLogger(__name__)

_FB = "https://dl.fbaipublicfiles.com/compiler_gym/"

# What clang-10 accepted by default and clang-19 makes an error: the C sources of these
# datasets were chosen because clang-10 compiled them.
_OLD_C_FLAGS = (
    "-ferror-limit=1",
    "-w",
    "-Wno-error=implicit-function-declaration",
    "-Wno-error=implicit-int",
    "-Wno-error=int-conversion",
    "-Wno-error=incompatible-pointer-types",
)
_COMPILE_TIMEOUT_SECONDS = 300


@dataclass(frozen=True)
class Archive:
    """A file CompilerGym publishes: the URLs it is fetched from, in order, and its sha256."""

    urls: tuple[str, ...]
    sha256: str

    @property
    def filename(self) -> str:
        """Its name in a mirror and in a dataset's folder: the end of its first URL."""
        return url_filename(self.urls[0])


def _fb(filename: str, sha256: str) -> Archive:
    return Archive((_FB + filename,), sha256)


@dataclass(frozen=True)
class Definition:
    """One of CompilerGym's LLVM datasets: its archive (``strip_prefix`` is the folder in it
    that holds the benchmarks), the manifest of benchmark names (or, without one, the fixed
    ``benchmarks``), the suffix of a benchmark's file, and the class that reads it."""

    name: str
    description: str
    license: str
    archive: Archive
    strip_prefix: str
    manifest: Optional[Archive]
    kind: type
    suffix: str = ".bc"
    references: tuple[tuple[str, str], ...] = ()
    deprecated: str = ""
    sort_order: int = 0
    validatable: str = "No"
    benchmarks: tuple[str, ...] = ()
    extras: tuple[Archive, ...] = field(default=())  # more files the dataset needs


# -------------------------------------------------------------------------------------------
# cBench: CompilerGym's command lines, per program, over its runtime data ($D). A command with
# {i} is one input set per i in 1..20 (?dataset=0 is i=1); the others are one set each.

CBENCH_RUNTIME_DATA = _fb(
    "cBench-v0-runtime-data.tar.bz2",
    "a1b5b5d6b115e5809ccaefc2134434494271d184da67e2ee43d7f84d07329055",
)
CBENCH_INPUT_SETS = 20

# name: (command lines, link options)
CBENCH_RUNS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "bitcount": (("1125000", "512"), ()),
    "blowfish": (("d $D/office_data/{i}.benc output.txt 1234567890abcdeffedcba0987654321",), ()),
    "bzip2": (("-d -k -f -c $D/bzip2_data/{i}.bz2",), ()),
    "crc32": (("$D/telecom_data/{i}.pcm",), ()),
    "dijkstra": (("$D/network_dijkstra_data/{i}.dat",), ()),
    "gsm": (("-fps -c $D/telecom_gsm_data/{i}.au",), ()),
    "jpeg-c": (("-dct int -progressive -outfile output.jpeg $D/consumer_jpeg_data/{i}.ppm",), ()),
    "jpeg-d": (("-dct int -outfile output.ppm $D/consumer_jpeg_data/{i}.jpg",), ()),
    "patricia": (("$D/network_patricia_data/{i}.udp",), ()),
    "qsort": (("$D/automotive_qsort_data/{i}.dat",), ("-lm",)),
    "sha": (("$D/office_data/{i}.txt",), ()),
    "stringsearch": (("$D/office_data/{i}.txt $D/office_data/{i}.s.txt output.txt",), ("-lm",)),
    # One input set only, in CompilerGym: the others take very long or crash.
    "stringsearch2": (("$D/office_data/1.txt $D/office_data/1.s.txt output.txt",), ()),
    "susan": (("$D/automotive_susan_data/{i}.pgm output_large.corners.pgm -c",), ("-lm",)),
    "tiff2bw": (("$D/consumer_tiff_data/{i}.tif output.tif",), ("-lm",)),
    "tiff2rgba": (("$D/consumer_tiff_data/{i}.tif output.tif",), ("-lm",)),
    "tiffdither": (("$D/consumer_tiff_data/{i}.bw.tif out.tif",), ("-lm",)),
    "tiffmedian": (("$D/consumer_tiff_data/{i}.nocomp.tif output.tif",), ("-lm",)),
}


def cbench_commands(name: str) -> list[str]:
    """The command lines (with ``$D`` for the runtime data folder) of a runnable cBench
    program, one per input set; [] for a program CompilerGym does not run."""
    commands, _ = CBENCH_RUNS.get(name, ((), ()))
    out = []
    for command in commands:
        if "{i}" in command:
            out += [command.replace("{i}", str(i)) for i in range(1, CBENCH_INPUT_SETS + 1)]
        else:
            out.append(command)
    return out


# The program CompilerGym's harness ran around a cBench program, linked into it: before main,
# _finfo_dataset (how many times the program repeats its work) is written into the working
# directory, as CompilerGym's "echo 1 > _finfo_dataset" did; at exit, each file the program
# wrote there is summarised on standard output, so that comparing outputs compares them too.
CBENCH_HARNESS_SOURCE = r"""
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CG_MAX_FILES 256

static int cg_compare(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

static void cg_summarise_outputs(void) {
  char* names[CG_MAX_FILES];
  size_t count = 0;
  struct dirent* entry;
  DIR* dir;
  fflush(NULL);
  dir = opendir(".");
  if (dir == NULL) return;
  while ((entry = readdir(dir)) != NULL && count < CG_MAX_FILES) {
    struct stat info;
    if (strcmp(entry->d_name, "_finfo_dataset") == 0) continue;
    if (stat(entry->d_name, &info) != 0 || !S_ISREG(info.st_mode)) continue;
    names[count++] = strdup(entry->d_name);
  }
  closedir(dir);
  qsort(names, count, sizeof(names[0]), cg_compare);
  for (size_t i = 0; i < count; ++i) {
    uint64_t hash = 14695981039346656037ULL; /* FNV-1a */
    unsigned long long size = 0;
    unsigned char buffer[65536];
    size_t n;
    FILE* file = fopen(names[i], "rb");
    if (file == NULL) continue;
    while ((n = fread(buffer, 1, sizeof(buffer), file)) > 0) {
      for (size_t j = 0; j < n; ++j) hash = (hash ^ buffer[j]) * 1099511628211ULL;
      size += n;
    }
    fclose(file);
    printf("\n[compiler_gym: output file %s, %llu bytes, fnv1a64 %016llx]\n", names[i], size,
           (unsigned long long)hash);
    free(names[i]);
  }
  fflush(stdout);
}

__attribute__((constructor)) static void cg_cbench_harness(void) {
  if (access("_finfo_dataset", F_OK) != 0) {
    FILE* info = fopen("_finfo_dataset", "w");
    if (info != NULL) {
      fputs("1\n", info);
      fclose(info);
    }
  }
  atexit(cg_summarise_outputs);
}
"""


# -------------------------------------------------------------------------------------------
# The datasets.


class CompilerGymDataset(Dataset):
    """A dataset CompilerGym publishes as an archive (and a manifest of benchmark names),
    installed on first use in CompilerGym's layout; a benchmark is the file
    ``contents/<strip_prefix>/<name><suffix>``. Subclasses turn other files into programs."""

    # The dataset a class stands for when made without a definition (CompilerGym's classes,
    # e.g. ``CBenchDataset(site_data_base)``); None for the generic classes.
    default_name: Optional[str] = None

    def __init__(
        self,
        site_data_base: Optional[Union[str, Path]] = None,
        *,
        definition: Optional[Definition] = None,
    ):
        """The dataset of ``definition`` (by default, the row of :attr:`default_name`),
        keeping its files under ``site_data_base`` (default: ``$COMPILER_GYM_SITE_DATA/llvm-v0``)
        as CompilerGym's ``site_data_base`` argument does."""
        if definition is None:
            if self.default_name is None:
                raise TypeError(f"{type(self).__name__} needs a definition")
            definition = DEFINITIONS[self.default_name]
        super().__init__(
            name=definition.name,
            description=definition.description,
            license=definition.license,
            site_data_base=site_data_base,
            references=dict(definition.references),
            deprecated=definition.deprecated or False,
            sort_order=definition.sort_order,
            validatable=definition.validatable,
        )
        self.definition = definition
        self._names: Optional[list[str]] = None

    # ----------------------------------------------------------------------------------------
    # Where things are.

    @property
    def root(self) -> Path:
        """The dataset's folder, ``<site data>/llvm-v0/benchmark/<dataset>``."""
        base = self.site_data_base
        base = Path(base) if base is not None else site_data_path("llvm-v0")
        uri = BenchmarkUri.from_string(self.definition.name)
        return base / uri.scheme / uri.dataset

    @property
    def dataset_root(self) -> Path:
        """The folder of the unpacked archive that holds the benchmarks (CompilerGym's)."""
        return self.root / "contents" / self.definition.strip_prefix

    def placed_path(self, archive: Archive) -> Path:
        """Where a copy of ``archive`` placed by hand is used from: the dataset's folder."""
        return self.root / archive.filename

    def fetch(self, archive: Archive, folder: Path) -> Path:
        """A checked copy of ``archive``: the one placed by hand, else one fetched into
        ``folder`` (see :func:`~compiler_gym.util.download.fetch_published_file`)."""
        return fetch_published_file(
            archive.urls, archive.sha256, folder / archive.filename, self.placed_path(archive)
        )

    # ----------------------------------------------------------------------------------------
    # Benchmark names.

    @property
    def _manifest_path(self) -> Path:
        return self.root / f"manifest-{self.definition.manifest.sha256}.txt"

    def _benchmark_names(self) -> list[str]:
        if self._names is None:
            if self.definition.manifest is None:
                self._names = list(self.definition.benchmarks)
            else:
                if not self._manifest_path.is_file():
                    self._install_manifest()
                text = self._manifest_path.read_text(encoding="utf-8")
                self._names = [line for line in text.rstrip().split("\n") if line]
        return self._names

    def _install_manifest(self) -> None:
        manifest = self.definition.manifest
        self.root.mkdir(parents=True, exist_ok=True)
        with file_lock(self.root / ".manifest_lock"):
            if self._manifest_path.is_file():
                return
            remove_stale(self.root, ".manifest-")
            with tempfile.TemporaryDirectory(dir=self.root, prefix=".manifest-") as tmp:
                path = self.fetch(manifest, Path(tmp))
                try:
                    names = bz2.decompress(path.read_bytes())
                except (OSError, ValueError) as e:
                    raise DatasetInitError(f"{manifest.filename} is not bzip2 data: {e}") from e
            write_atomically(self._manifest_path, names)

    @property
    def size(self) -> int:
        """The number of benchmarks: known once the manifest is here (0 before, and for a
        dataset without a manifest until it is installed: counting them downloads nothing,
        and a dataset weighted by its size is not drawn before it is installed)."""
        if self.definition.manifest is None:
            return len(self.definition.benchmarks) if self.installed else 0
        if self._names is None and not self._manifest_path.is_file():
            return 0
        return len(self._benchmark_names())

    def benchmark_uris(self) -> Iterator[str]:
        """The URIs of the manifest's benchmarks (downloading the manifest on first use)."""
        for name in self._benchmark_names():
            yield f"{self.name}/{name}"

    # ----------------------------------------------------------------------------------------
    # Installing.

    @property
    def installed(self) -> bool:
        """Whether the archive is unpacked (CompilerGym's ``.extracted`` marker)."""
        return (self.root / ".extracted").is_file()

    def install(self) -> None:
        """Downloads (or takes from the mirror or a copy placed by hand), checks and unpacks
        the archive once, and the manifest of benchmark names with it; concurrent installs
        in threads or processes wait for the first. A deprecated dataset warns, as
        CompilerGym's do."""
        super().install()
        if self.installed:
            return
        self._benchmark_names()
        self.root.mkdir(parents=True, exist_ok=True)
        with file_lock(self.root / ".install_lock"):
            if self.installed:
                return
            # An unpacking that did not finish (CompilerGym's, killed part-way).
            shutil.rmtree(self.root / "contents", ignore_errors=True)
            logger.info("Installing the %s dataset", self.name)
            install_directory(self.root / "contents", self._unpack)
            (self.root / ".extracted").touch()

    def uninstall(self) -> None:
        """Removes the dataset's folder (CompilerGym's ``uninstall``), files placed by hand in
        it included."""
        shutil.rmtree(self.root, ignore_errors=True)
        self._names = None

    def _unpack(self, scratch: Path) -> None:
        archive = self.definition.archive
        with downloads_directory(scratch) as downloads:
            path = self.fetch(archive, downloads)
            unpack(path, scratch, desc=f"Unpacking {self.name}")
        if not (scratch / self.definition.strip_prefix).is_dir():
            raise DatasetInitError(
                f"{archive.filename} has no folder {self.definition.strip_prefix!r}: it is "
                f"not the archive of {self.name}"
            )

    # ----------------------------------------------------------------------------------------
    # Benchmarks.

    def benchmark_from_parsed_uri(self, uri: BenchmarkUri) -> Benchmark:
        """The benchmark named by the URI's path (installing the dataset first); LookupError
        when the dataset has no such file."""
        name = uri.path.lstrip("/")
        if not name:
            raise LookupError(f"No benchmark specified: {uri}")
        if ".." in PurePosixPath(name).parts:
            raise LookupError(f"Benchmark not found: {uri}")
        self.install()
        return self._benchmark(uri, name)

    def _file(self, uri: BenchmarkUri, name: str, suffix: str) -> Path:
        path = self.dataset_root / f"{name}{suffix}"
        if not path.is_file():
            raise LookupError(f"Benchmark not found: {uri} (file not found: {path})")
        return path

    def _benchmark(self, uri: BenchmarkUri, name: str) -> Benchmark:
        return Benchmark(str(uri), files=[str(self._file(uri, name, self.definition.suffix))])


class CSourceDataset(CompilerGymDataset):
    """Benchmarks that are C files, compiled by clang-19 when loaded (AnghaBench, Jotai)."""

    def _benchmark(self, uri: BenchmarkUri, name: str) -> Benchmark:
        path = self._file(uri, name, ".c")
        return Benchmark(str(uri), files=[str(path)], compile_args=list(_OLD_C_FLAGS))


# CHStone's programs whose main file is not named after their folder.
_CHSTONE_MAIN_FILES = {
    "blowfish": "bf.c",
    "motion": "mpeg2.c",
    "sha": "sha_driver.c",
    "jpeg": "main.c",
}


class CHStoneDataset(CSourceDataset):
    """CHStone: a fixed list of programs, each a folder with its main C file."""

    default_name = "benchmark://chstone-v0"

    def _benchmark(self, uri: BenchmarkUri, name: str) -> Benchmark:
        if name not in self.definition.benchmarks:
            raise LookupError(f"Benchmark not found: {uri}")
        main = _CHSTONE_MAIN_FILES.get(name, f"{name}.c")
        path = self._file(uri, f"{name}/{main}", "")
        return Benchmark(str(uri), files=[str(path)], compile_args=list(_OLD_C_FLAGS))


def poj104_source(text: str) -> str:
    """A POJ-104 solution as C++ that clang compiles, as CompilerGym prepares it: ``main``
    declared ``int``, the standard library included, and the constants many solutions use
    without defining them."""
    text = text.replace("void main", "int main").replace("\nmain", "int main")
    if text.startswith("main"):
        text = "int " + text
    prelude = (
        "#include <bits/stdc++.h>\nusing namespace std;\n"
        "#define LEN 128\n#define MAX_LENGTH 1024\n#define MAX 1024\n"
    )
    return prelude + text


class POJ104Dataset(CompilerGymDataset):
    """POJ-104: C++ solutions stored as ``.txt``; each is prepared (:func:`poj104_source`)
    into a ``.cc`` file beside it, once, and compiled by clang-19 as C++11."""

    default_name = "benchmark://poj104-v1"

    def _benchmark(self, uri: BenchmarkUri, name: str) -> Benchmark:
        text_path = self._file(uri, name, ".txt")
        source = text_path.with_suffix(".cc")
        if not source.is_file():
            text = text_path.read_text(encoding="utf-8", errors="replace")
            write_atomically(source, poj104_source(text).encode("utf-8"))
        return Benchmark(
            str(uri),
            files=[str(source)],
            compile_args=["-ferror-limit=1", "-w", "-std=c++11"],
        )


def _clang() -> str:
    from compiler_gym.envs.llvm_env import clang_path  # the engine's clang-19

    return clang_path()


def _compile(args: list[str], what: str) -> None:
    """Runs clang-19 with ``args`` in the engine's sandbox; BenchmarkInitError with its
    diagnostics when it fails."""
    result = _C.run_sandboxed([_clang(), *args], timeout_seconds=_COMPILE_TIMEOUT_SECONDS)
    if not result["ok"]:
        stderr = result["stderr"].decode(errors="replace").strip()
        raise BenchmarkInitError(
            f"Cannot compile {what}: clang-19 {result['description']}\n{stderr[:4000]}"
        )


class CLgenDataset(CompilerGymDataset):
    """CLgen's OpenCL kernels (``.cl``), compiled to bitcode by clang-19 when first used
    (cached beside the kernel), with libclc's headers and ``opencl.h`` (the dataset's two
    extra files, installed with it). CompilerGym compiled them for NVPTX; here they are
    compiled for the host, the one target whose code generator the engine links."""

    default_name = "benchmark://clgen-v0"

    @property
    def installed(self) -> bool:
        return super().installed and (self.root / ".opencl-installed").is_file()

    def install(self) -> None:
        """Installs the kernels, then libclc's headers and ``opencl.h``."""
        super().install()
        if (self.root / ".opencl-installed").is_file():
            return
        with file_lock(self.root / ".install_lock"):
            if (self.root / ".opencl-installed").is_file():
                return
            libclc, header = self.definition.extras
            remove_stale(self.root, ".opencl-")
            shutil.rmtree(self.root / "libclc", ignore_errors=True)
            with tempfile.TemporaryDirectory(dir=self.root, prefix=".opencl-") as tmp:
                tmp = Path(tmp)
                path = self.fetch(libclc, tmp)
                unpack(path, tmp / "libclc", desc="Unpacking libclc")
                path = self.fetch(header, tmp)
                shutil.copyfile(path, tmp / "opencl.h.tmp")
                os.replace(tmp / "opencl.h.tmp", self.root / "opencl.h")
                (tmp / "libclc").rename(self.root / "libclc")
            (self.root / ".opencl-installed").touch()

    def _benchmark(self, uri: BenchmarkUri, name: str) -> Benchmark:
        kernel = self._file(uri, name, ".cl")
        bitcode = kernel.with_suffix(".bc")
        if not bitcode.is_file():
            with tempfile.TemporaryDirectory(dir=bitcode.parent, prefix=".clgen-") as tmp:
                out = Path(tmp) / "kernel.bc"
                _compile(
                    [
                        "-c",
                        "-emit-llvm",
                        "-O1",
                        "-Xclang",
                        "-disable-llvm-passes",
                        "-isystem",
                        str(self.root / "libclc"),
                        "-include",
                        str(self.root / "opencl.h"),
                        "-ferror-limit=1",
                        "-w",
                        str(kernel),
                        "-o",
                        str(out),
                    ],
                    str(uri),
                )
                os.replace(out, bitcode)
        return Benchmark(str(uri), files=[str(bitcode)])


class CBenchDataset(CompilerGymDataset):
    """cBench, with CompilerGym's runtime data and command lines: its runnable programs
    (:data:`CBENCH_RUNS`) are buildable and runnable, ``?dataset=N`` picking the input set
    (ValueError for one it does not have)."""

    default_name = "benchmark://cbench-v1"

    @property
    def runtime_data(self) -> Path:
        """cBench's input files (``$D`` in the command lines), in CompilerGym's place."""
        return self.root.parent.parent / "cbench-v1-runtime-data" / "runtime_data"

    @property
    def installed(self) -> bool:
        return super().installed and (self.runtime_data / "unpacked").is_file()

    def install(self) -> None:
        """Installs the bitcode, then the runtime data."""
        super().install()
        if (self.runtime_data / "unpacked").is_file():
            return
        folder = self.runtime_data.parent
        folder.parent.mkdir(parents=True, exist_ok=True)
        with file_lock(folder.parent / ".cbench-v1-runtime-data.install_lock"):
            if (self.runtime_data / "unpacked").is_file():
                return
            shutil.rmtree(folder, ignore_errors=True)  # a partial unpacking
            install_directory(folder, self._unpack_runtime_data)

    def uninstall(self) -> None:
        """Removes the dataset's folder and cBench's runtime data."""
        super().uninstall()
        shutil.rmtree(self.runtime_data.parent, ignore_errors=True)

    def _unpack_runtime_data(self, scratch: Path) -> None:
        archive = CBENCH_RUNTIME_DATA
        with downloads_directory(scratch) as downloads:
            path = self.fetch(archive, downloads)
            unpack(path, scratch, desc="Unpacking cBench's runtime data")
        if not (scratch / "runtime_data").is_dir():
            raise DatasetInitError(f"{archive.filename} has no folder 'runtime_data'")
        (scratch / "runtime_data" / "unpacked").touch()

    def harness(self) -> Path:
        """The object file of the harness linked into each runnable program
        (:data:`CBENCH_HARNESS_SOURCE`), compiled by clang-19 once per harness version."""
        digest = hashlib.sha256(CBENCH_HARNESS_SOURCE.encode()).hexdigest()[:12]
        path = self.root / f"cbench-harness-{digest}.o"
        if path.is_file():
            return path
        with file_lock(self.root / ".harness_lock"):
            if not path.is_file():
                remove_stale(self.root, ".harness-")
                with tempfile.TemporaryDirectory(dir=self.root, prefix=".harness-") as tmp:
                    source = Path(tmp) / "harness.c"
                    source.write_text(CBENCH_HARNESS_SOURCE)
                    out = Path(tmp) / "harness.o"
                    _compile(["-c", "-O2", "-fPIE", str(source), "-o", str(out)], "the harness")
                    os.replace(out, path)
        return path

    def _benchmark(self, uri: BenchmarkUri, name: str) -> Benchmark:
        benchmark = super()._benchmark(uri, name)
        commands = cbench_commands(name)
        if not commands:
            return benchmark  # CompilerGym does not run it either
        value = uri.params.get("dataset", ["0"])[-1]
        try:
            index = int(value)
        except ValueError as e:
            raise ValueError(f"Invalid dataset: {value}") from e
        if not 0 <= index < len(commands):
            raise ValueError(f"Invalid dataset: {index}")
        _, link_options = CBENCH_RUNS[name]
        benchmark.run_args = commands[index].replace("$D", str(self.runtime_data)).split()
        benchmark.link_args = [str(self.harness()), *link_options]
        benchmark.buildable = True
        benchmark.runnable = True
        return benchmark


class AnghaBenchDataset(CSourceDataset):
    """CompilerGym's ``benchmark://anghabench-v1``."""

    default_name = "benchmark://anghabench-v1"


class JotaiBenchDataset(CSourceDataset):
    """CompilerGym's ``benchmark://jotaibench-v0``."""

    default_name = "benchmark://jotaibench-v0"


class BlasDataset(CompilerGymDataset):
    """CompilerGym's ``benchmark://blas-v0``."""

    default_name = "benchmark://blas-v0"


class GitHubDataset(CompilerGymDataset):
    """CompilerGym's ``benchmark://github-v0``."""

    default_name = "benchmark://github-v0"


class LinuxDataset(CompilerGymDataset):
    """CompilerGym's ``benchmark://linux-v0``."""

    default_name = "benchmark://linux-v0"


class MibenchDataset(CompilerGymDataset):
    """CompilerGym's ``benchmark://mibench-v1``."""

    default_name = "benchmark://mibench-v1"


class NPBDataset(CompilerGymDataset):
    """CompilerGym's ``benchmark://npb-v0``."""

    default_name = "benchmark://npb-v0"


class OpenCVDataset(CompilerGymDataset):
    """CompilerGym's ``benchmark://opencv-v0``."""

    default_name = "benchmark://opencv-v0"


class TensorFlowDataset(CompilerGymDataset):
    """CompilerGym's ``benchmark://tensorflow-v0``."""

    default_name = "benchmark://tensorflow-v0"


def remove_stale(folder: Path, prefix: str) -> None:
    """Removes the scratch folders named ``<prefix>*`` that a process killed part-way left in
    ``folder``; called under the lock of the work that makes them, so none is in use."""
    for stale in folder.glob(f"{prefix}*"):
        shutil.rmtree(stale, ignore_errors=True)


def unpack(archive: Path, destination: Path, desc: str) -> int:
    """Unpacks a tar archive (any compression) into ``destination``, counting files on a
    progress bar; returns how many. Members that would land outside ``destination`` (absolute
    paths, links out) are refused: DatasetInitError."""
    count = 0
    try:
        with (
            tarfile.open(archive, "r:*") as tar,
            tqdm(desc=desc, unit=" files", leave=False, disable=progress_disabled()) as bar,
        ):
            for member in tar:
                tar.extract(member, destination, filter="data")
                if member.isfile():
                    count += 1
                    bar.update()
    except (tarfile.TarError, EOFError, OSError) as e:
        raise DatasetInitError(f"{archive.name} is not a readable tar archive: {e}") from e
    return count


# -------------------------------------------------------------------------------------------
# The table: CompilerGym's facts (Linux files), one row per dataset.

_ANGHABENCH_TAR = Archive(
    (
        "https://github.com/brenocfg/AnghaBench/archive/"
        "d8034ac8562b8c978376008f4b33df01b8887b19.tar.gz",
    ),
    "85d068e4ce44f2581e3355ee7a8f3ccb92568e9f5bd338bc3a918566f3aff42f",
)
_ANGHABENCH = {
    "description": "Compile-only C/C++ functions extracted from GitHub",
    "license": "Unknown. See: https://github.com/brenocfg/AnghaBench/issues/1",
    "archive": _ANGHABENCH_TAR,
    "strip_prefix": "AnghaBench-d8034ac8562b8c978376008f4b33df01b8887b19",
    "suffix": ".c",
    "references": (
        ("Paper", "https://homepages.dcc.ufmg.br/~fernando/publications/papers/FaustinoCGO21.pdf"),
        ("Homepage", "http://cuda.dcc.ufmg.br/angha/"),
    ),
}
_CBENCH_REFERENCES = (
    ("Paper", "https://arxiv.org/pdf/1407.3487.pdf"),
    ("Homepage", "https://ctuning.org/wiki/index.php/CTools:CBench"),
)
_CBENCH_V1_TAR = _fb(
    "llvm_bitcodes-10.0.0-cBench-v1-linux.tar.bz2",
    "601fff3944c866f6617e653b6eb5c1521382c935f56ca1f36a9f5cf1a49f3de5",
)
_MIBENCH_MANIFEST = _fb(
    "llvm_bitcodes-10.0.0-mibench-v0-manifest.bz2",
    "8ed985d685b48f444a3312cd84ccc5debda4a839850e442a3cdc93910ba0dc5f",
)
_MIBENCH_REFERENCES = (("Paper", "http://vhosts.eecs.umich.edu/mibench/Publications/MiBench.pdf"),)
_POJ104_REFERENCES = (
    ("Paper", "https://ojs.aaai.org/index.php/AAAI/article/download/10139/9998"),
    ("Homepage", "https://sites.google.com/site/treebasedcnn/"),
)

_ROWS = (
    Definition(
        name="benchmark://anghabench-v1",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-anghabench-v1-linux-manifest.bz2",
            "14df85f650199498cf769715e9f0d7841d09f9fa62a95b8ecc242bdaf227f33a",
        ),
        kind=AnghaBenchDataset,
        **_ANGHABENCH,
    ),
    Definition(
        name="benchmark://anghabench-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-anghabench-v0-linux-manifest.bz2",
            "a038d25d39ee9472662a9704dfff19c9e3512ff6a70f1067af85c5cb3784b477",
        ),
        deprecated="Please use anghabench-v1",
        kind=CSourceDataset,
        **_ANGHABENCH,
    ),
    Definition(
        name="benchmark://jotaibench-v0",
        description="Compile-only C/C++ functions extracted from GitHub",
        license="GNU General Public License v3.0 (GPLv3)",
        archive=Archive(
            (
                "https://github.com/ChrisCummins/jotai-benchmarks/raw/"
                "ca26ccd27afecf38919c1e101c64e3cc17e39631/benchmarks/jotaibench.bz2",
            ),
            "b5a51af3d4e2f77a66001635ec64ed321e0ece19873c4a888040859af7556401",
        ),
        strip_prefix="jotaibench/jotaibench-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-jotaibench-v0.bz2",
            "ac4ee456e52073964d472d3e3969058b2f3052f8a4b402719013a3c603eb4b62",
        ),
        kind=JotaiBenchDataset,
        suffix=".c",
        references=(
            (
                "Paper",
                "https://homepages.dcc.ufmg.br/~fernando/publications/papers/FaustinoCGO21.pdf",
            ),
            ("Homepage", "http://cuda.dcc.ufmg.br/angha/"),
        ),
    ),
    Definition(
        name="benchmark://blas-v0",
        description="Basic linear algebra kernels",
        license="BSD 3-Clause",
        archive=_fb(
            "llvm_bitcodes-10.0.0-blas-v0.tar.bz2",
            "e724a8114709f8480adeb9873d48e426e8d9444b00cddce48e342b9f0f2b096d",
        ),
        strip_prefix="blas-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-blas-v0-manifest.bz2",
            "6946437dcb0da5fad3ed8a7fd83eb4294964198391d5537b1310e22d7ceebff4",
        ),
        kind=BlasDataset,
        references=(("Homepage", "http://www.netlib.org/blas/"),),
    ),
    Definition(
        name="benchmark://clgen-v0",
        description="Synthetically generated OpenCL kernels",
        license="GNU General Public License v3.0",
        archive=Archive(
            (
                "https://github.com/ChrisCummins/paper-synthesizing-benchmarks/raw/"
                "e45b6dffe9998f612624f05a6c4878ab4bcc84ec/data/clgen-1000.tar.bz2",
            ),
            "0bbd1b737f2537305e4db09b2971a5fa848b7c3a978bff6b570f45d1a488a72c",
        ),
        strip_prefix="clgen-1000/kernels",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-clgen-v0-manifest.bz2",
            "d2bbc1da5a24a8cb03b604d1d8e59227b33bdfcd964ebe741ca8339f1c8d65cc",
        ),
        kind=CLgenDataset,
        suffix=".cl",
        references=(
            ("Paper", "https://chriscummins.cc/pub/2017-cgo.pdf"),
            ("Homepage", "https://github.com/ChrisCummins/clgen"),
        ),
        extras=(
            _fb(
                "libclc-v0.tar.bz2",
                "f1c511f2ac12adf98dcc0fbfc4e09d0f755fa403c18f1fb1ffa5547e1fa1a499",
            ),
            Archive(
                (
                    "https://github.com/ChrisCummins/clgen/raw/"
                    "463c0adcd8abcf2432b24df0aca594b77a69e9d3/deeplearning/clgen/data/include/"
                    "opencl.h",
                ),
                "f95b9f4c8b1d09114e491846d0d41425d24930ac167e024f45dab8071d19f3f7",
            ),
        ),
    ),
    Definition(
        name="benchmark://cbench-v1",
        description="Runnable C benchmarks",
        license="BSD 3-Clause",
        archive=_CBENCH_V1_TAR,
        strip_prefix="cBench-v1",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-cbench-v1-manifest.bz2",
            "eeffd7593aeb696a160fd22e6b0c382198a65d0918b8440253ea458cfe927741",
        ),
        kind=CBenchDataset,
        references=_CBENCH_REFERENCES,
        sort_order=-1,
        validatable="Partially",
        extras=(CBENCH_RUNTIME_DATA,),
    ),
    Definition(
        name="benchmark://cBench-v1",
        description="Runnable C benchmarks",
        license="BSD 3-Clause",
        archive=_CBENCH_V1_TAR,
        strip_prefix="cBench-v1",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-cBench-v1-manifest.bz2",
            "635b94eeb2784dfedb3b53fd8f84517c3b4b95d851ddb662d4c1058c72dc81e0",
        ),
        kind=CompilerGymDataset,
        references=_CBENCH_REFERENCES,
        deprecated=(
            "Please use 'benchmark://cbench-v1' (note the lowercase name). "
            "The dataset is the same, only the name has changed"
        ),
        sort_order=100,
        validatable="Partially",
    ),
    Definition(
        name="benchmark://cBench-v0",
        description="Runnable C benchmarks",
        license="BSD 3-Clause",
        archive=_fb(
            "llvm_bitcodes-10.0.0-cBench-v0-linux.tar.bz2",
            "9b5838a90895579aab3b9375e8eeb3ed2ae58e0ad354fec7eb4f8b31ecb4a360",
        ),
        strip_prefix="cBench-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-cBench-v0-manifest.bz2",
            "635b94eeb2784dfedb3b53fd8f84517c3b4b95d851ddb662d4c1058c72dc81e0",
        ),
        kind=CompilerGymDataset,
        references=_CBENCH_REFERENCES,
        deprecated="Please use 'benchmark://cbench-v1'",
    ),
    Definition(
        name="benchmark://chstone-v0",
        description="Benchmarks for C-based High-Level Synthesis",
        license="Mixture of open source and public domain licenses",
        archive=Archive(
            (
                "https://github.com/ChrisCummins/patmos_HLS/archive/"
                "e62d878ceb91e5a18007ca2e0a9602ee44ff7d59.tar.gz",
            ),
            "f7acab9d3c3dc7b971e62c8454bc909d84bddb6d0a96378e41beb94231739acb",
        ),
        strip_prefix="patmos_HLS-e62d878ceb91e5a18007ca2e0a9602ee44ff7d59/benchmarks/CHStone",
        manifest=None,
        kind=CHStoneDataset,
        suffix=".c",
        references=(
            ("Paper", "http://www.yxi.com/applications/iscas2008-300_1027.pdf"),
            ("Homepage", "http://www.ertl.jp/chstone/"),
        ),
        benchmarks=(
            "adpcm",
            "aes",
            "blowfish",
            "dfadd",
            "dfdiv",
            "dfmul",
            "dfsin",
            "gsm",
            "jpeg",
            "mips",
            "motion",
            "sha",
        ),
    ),
    Definition(
        name="benchmark://github-v0",
        description="Compile-only C/C++ objects from GitHub",
        license="CC BY 4.0",
        archive=_fb(
            "llvm_bitcodes-10.0.0-github-v0.tar.bz2",
            "880269dd7a5c2508ea222a2e54c318c38c8090eb105c0a87c595e9dd31720764",
        ),
        strip_prefix="github-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-github-v0-linux-manifest.bz2",
            "aede9ca78657b4694ada9a4592d93f0bbeb3b3bd0fff3b537209850228480d3b",
        ),
        kind=GitHubDataset,
        references=(("Paper", "https://arxiv.org/pdf/2012.01470.pdf"),),
    ),
    Definition(
        name="benchmark://linux-v0",
        description="Compile-only object files from C Linux kernel",
        license="GPL-2.0",
        archive=_fb(
            "llvm_bitcodes-10.0.0-linux-v0.tar.bz2",
            "a1ae5c376af30ab042c9e54dc432f89ce75f9ebaee953bc19c08aff070f12566",
        ),
        strip_prefix="linux-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-linux-v0-linux-manifest.bz2",
            "32ceb8576f683798010816ac605ee496f386ddbbe64be9e0796015d247a73f92",
        ),
        kind=LinuxDataset,
        references=(("Homepage", "https://www.linux.org/"),),
    ),
    Definition(
        name="benchmark://mibench-v1",
        description="C benchmarks",
        license="BSD 3-Clause",
        archive=_fb(
            "llvm_bitcodes-10.0.0-mibench-v1.tar.bz2",
            "795b80d3198bc96e394823a4cb294d256845beffccce52fea0e3446395212bb5",
        ),
        strip_prefix="mibench-v1",
        manifest=_MIBENCH_MANIFEST,
        kind=MibenchDataset,
        references=_MIBENCH_REFERENCES,
    ),
    Definition(
        name="benchmark://mibench-v0",
        description="C benchmarks",
        license="BSD 3-Clause",
        archive=_fb(
            "llvm_bitcodes-10.0.0-mibench-v0.tar.bz2",
            "128c090c40b955b99fdf766da167a5f642018fb35c16a1d082f63be2e977eb13",
        ),
        strip_prefix="mibench-v0",
        manifest=_MIBENCH_MANIFEST,
        kind=CompilerGymDataset,
        references=_MIBENCH_REFERENCES,
        deprecated="Please use mibench-v1",
        sort_order=100,
    ),
    Definition(
        name="benchmark://npb-v0",
        description="NASA Parallel Benchmarks",
        license="NASA Open Source Agreement v1.3",
        archive=_fb(
            "llvm_bitcodes-10.0.0-npb-v0.tar.bz2",
            "793ac2e7a4f4ed83709e8a270371e65b724da09eaa0095c52e7f4209f63bb1f2",
        ),
        strip_prefix="npb-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-npb-v0-manifest.bz2",
            "89eccb7f1b0b9e1f82b9b900b9f686ff5b189a2a67a4f8969a15901cd315dba2",
        ),
        kind=NPBDataset,
    ),
    Definition(
        name="benchmark://opencv-v0",
        description="Compile-only object files from C++ OpenCV library",
        license="Apache 2.0",
        archive=_fb(
            "llvm_bitcodes-10.0.0-opencv-v0.tar.bz2",
            "003df853bd58df93572862ca2f934c7b129db2a3573bcae69a2e59431037205c",
        ),
        strip_prefix="opencv-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-opencv-v0-manifest.bz2",
            "8de96f722fab18f3a2a74db74b4038c7947fe8b3da867c9260206fdf5338cd81",
        ),
        kind=OpenCVDataset,
        references=(("Homepage", "https://opencv.org/"),),
    ),
    Definition(
        name="benchmark://poj104-v1",
        description="Solutions to programming programs",
        license="BSD 3-Clause",
        archive=Archive(
            (
                _FB + "llvm_bitcodes-10.0.0-poj104-v1.tar.gz",
                "https://drive.google.com/u/0/uc?id=0B2i-vWnOu7MxVlJwQXN6eVNONUU&export=download",
            ),
            "c0b8ef3ee9c9159c882dc9337cb46da0e612a28e24852a83f8a1cd68c838f390",
        ),
        strip_prefix="ProgramData",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-poj104-v1-linux-manifest.bz2",
            "ee6253ee826e171816105e76fa78c0d3cbd319ef66e10da4bcf9cf8a78e12ab9",
        ),
        kind=POJ104Dataset,
        suffix=".txt",
        references=_POJ104_REFERENCES,
    ),
    Definition(
        name="benchmark://poj104-v0",
        description="Solutions to programming programs",
        license="BSD 3-Clause",
        archive=_fb(
            "llvm_bitcodes-10.0.0-poj104-v0.tar.bz2",
            "6254d629887f6b51efc1177788b0ce37339d5f3456fb8784415ed3b8c25cce27",
        ),
        strip_prefix="poj104-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-poj104-v0-manifest.bz2",
            "ac3eaaad7d2878d871ed2b5c72a3f39c058ea6694989af5c86cd162414db750b",
        ),
        kind=CompilerGymDataset,
        references=_POJ104_REFERENCES,
        deprecated="Please update to benchmark://poj104-v1.",
        sort_order=100,
    ),
    Definition(
        name="benchmark://tensorflow-v0",
        description="Compile-only object files from C++ TensorFlow library",
        license="Apache 2.0",
        archive=_fb(
            "llvm_bitcodes-10.0.0-tensorflow-v0.tar.bz2",
            "f77dd1988c772e8359e1303cc9aba0d73d5eb27e0c98415ac3348076ab94efd1",
        ),
        strip_prefix="tensorflow-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-tensorflow-v0-manifest.bz2",
            "cffc45cd10250d483cb093dec913c8a7da64026686284cccf404623bd1da6da8",
        ),
        kind=TensorFlowDataset,
        references=(("Homepage", "https://www.tensorflow.org/"),),
    ),
)

#: CompilerGym's LLVM datasets that download, by name (``generator://csmith-v0`` and
#: ``generator://llvm-stress-v0`` are this project's generators).
DEFINITIONS: dict[str, Definition] = {row.name: row for row in _ROWS}


def definition_archives(definition: Definition) -> list[Archive]:
    """Every file a dataset installs from: its archive, its manifest, its extra files."""
    manifest = [definition.manifest] if definition.manifest is not None else []
    return [definition.archive, *manifest, *definition.extras]


def compilergym_llvm_datasets(
    site_data_base: Optional[Union[str, Path]] = None,
) -> list[Dataset]:
    """A dataset object for each of :data:`DEFINITIONS` (deprecated ones included, hidden
    from listings as CompilerGym hides them), keeping its files under ``site_data_base`` when
    given (else ``$COMPILER_GYM_SITE_DATA/llvm-v0``)."""
    return [row.kind(site_data_base, definition=row) for row in DEFINITIONS.values()]


__all__ = [
    "AnghaBenchDataset",
    "Archive",
    "BlasDataset",
    "GitHubDataset",
    "JotaiBenchDataset",
    "LinuxDataset",
    "MibenchDataset",
    "NPBDataset",
    "OpenCVDataset",
    "TensorFlowDataset",
    "CBenchDataset",
    "CHStoneDataset",
    "CLgenDataset",
    "CSourceDataset",
    "CompilerGymDataset",
    "DEFINITIONS",
    "Definition",
    "POJ104Dataset",
    "cbench_commands",
    "compilergym_llvm_datasets",
    "definition_archives",
    "poj104_source",
    "unpack",
]
