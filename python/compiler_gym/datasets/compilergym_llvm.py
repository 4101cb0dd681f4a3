"""CompilerGym's LLVM datasets, by their URIs: ``benchmark://cbench-v1/qsort``,
``benchmark://anghabench-v1/...``, ``benchmark://poj104-v1/...`` and the rest of what
CompilerGym's ``get_llvm_datasets()`` defines.

Each dataset is a row of :data:`DEFINITIONS` (the table, in
:mod:`compiler_gym.datasets.compilergym_llvm_table`): the archives CompilerGym publishes (URLs
and sha256 sums, for Linux), the folder of the archive that holds the benchmarks, the kind of
file a benchmark is, and the class here that reads it. Nothing is downloaded until a dataset
is used; then it installs as CompilerGym installs it, in CompilerGym's layout::

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
import tempfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Optional, Union

from compiler_gym._engine import _C
from compiler_gym.datasets.benchmark import Benchmark, BenchmarkUri
from compiler_gym.datasets.compilergym_llvm_table import (
    CBENCH_INPUT_SETS,
    CBENCH_RUNS,
    CBENCH_RUNTIME_DATA,
    DEFINITIONS,
    Archive,
    Definition,
)
from compiler_gym.datasets.dataset import Dataset
from compiler_gym.datasets.install import downloads_directory, file_lock, install_directory
from compiler_gym.errors import BenchmarkInitError, DatasetInitError
from compiler_gym.util.archive import UnpackLimits, unpack_tar
from compiler_gym.util.download import DownloadLimits, fetch_published_file
from compiler_gym.util.limits import Limit
from compiler_gym.util.runfiles import site_data_path, write_atomically

logger = logging.getLogger(__name__)

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

    def fetch(self, archive: Archive, folder: Path, max_bytes: Optional[Limit] = None) -> Path:
        """A checked copy of ``archive``: the one placed by hand, else one fetched into
        ``folder`` (see :func:`~compiler_gym.util.download.fetch_published_file`), of at most
        ``max_bytes`` (``$COMPILER_GYM_MAX_DOWNLOAD_BYTES`` by default: the table gives no
        sizes)."""
        return fetch_published_file(
            archive.urls,
            archive.sha256,
            folder / archive.filename,
            self.placed_path(archive),
            max_bytes=max_bytes,
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
                # A list of names: bounded as a manifest, not as an archive.
                cap = DownloadLimits.from_environment().max_manifest_bytes
                path = self.fetch(manifest, Path(tmp), max_bytes=cap)
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
    """Unpacks a tar archive (plain, gzip, bzip2 or xz) into ``destination``, counting files on
    a progress bar; returns how many. Only regular files and folders inside ``destination``
    are written, within the limits of an archive the package pins
    (:meth:`UnpackLimits.for_published <compiler_gym.util.archive.UnpackLimits.for_published>`);
    anything else is refused: DatasetInitError (see :func:`compiler_gym.util.archive.unpack_tar`).
    """
    limits = UnpackLimits.for_published()
    return unpack_tar(archive, destination, limits=limits, label=archive.name, desc=desc)


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
    return [dataset_class(row)(site_data_base, definition=row) for row in DEFINITIONS.values()]


#: The classes a row's ``kind`` names.
DATASET_CLASSES: dict[str, type[CompilerGymDataset]] = {
    cls.__name__: cls
    for cls in (
        CompilerGymDataset,
        CSourceDataset,
        CHStoneDataset,
        POJ104Dataset,
        CLgenDataset,
        CBenchDataset,
        AnghaBenchDataset,
        JotaiBenchDataset,
        BlasDataset,
        GitHubDataset,
        LinuxDataset,
        MibenchDataset,
        NPBDataset,
        OpenCVDataset,
        TensorFlowDataset,
    )
}


def dataset_class(definition: Definition) -> type[CompilerGymDataset]:
    """The class that reads a row's dataset: the one its ``kind`` names."""
    return DATASET_CLASSES[definition.kind]


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
    "DATASET_CLASSES",
    "DEFINITIONS",
    "Definition",
    "POJ104Dataset",
    "cbench_commands",
    "compilergym_llvm_datasets",
    "dataset_class",
    "definition_archives",
    "poj104_source",
    "unpack",
]
