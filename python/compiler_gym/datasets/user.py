"""Datasets of the user's own programs: a folder, a tarball, or a JSON manifest of URLs.

    datasets = env.datasets
    datasets.add(FilesDataset("benchmark://mine-v0", "~/src/programs"))
    datasets.add(TarDataset("benchmark://corpus-v0", "https://host/corpus.tar.gz", sha256="..."))
    datasets.add(ManifestDataset("benchmark://picked-v0", "https://host/manifest.json"))
    env.reset(benchmark="benchmark://mine-v0/sub/prog")   # the file sub/prog.c (or .ll, .bc)

A manifest is ``{"benchmarks": [{"name": "sub/prog.c", "url": "...", "sha256": "..."}]}``
(an entry may add ``"size"``, in bytes: a download of another size is refused).
Downloads and archives are installed under ``$COMPILER_GYM_SITE_DATA/user/<dataset>`` once,
under a file lock, with their sha256 checked; a failed or corrupt download leaves nothing.
Downloads are bounded as :mod:`compiler_gym.util.download` bounds them, and a tarball, or
a manifest's programs taken together, as :meth:`UnpackLimits.for_user
<compiler_gym.util.archive.UnpackLimits.for_user>` bounds an archive (unpacked bytes, number
of files): each limit is an environment variable that its error names. A tarball holds
regular files and folders only (see :mod:`compiler_gym.util.archive`).
"""

from __future__ import annotations

import copy
import json
import os
import shutil
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Optional, Union

from compiler_gym.datasets.benchmark import Benchmark, BenchmarkUri
from compiler_gym.datasets.dataset import Dataset
from compiler_gym.datasets.install import install_directory
from compiler_gym.datasets.make_benchmark import make_benchmark
from compiler_gym.errors import DatasetInitError
from compiler_gym.util.archive import UnpackLimits, unpack_tar
from compiler_gym.util.download import fetch_file, fetch_text
from compiler_gym.util.names import did_you_mean
from compiler_gym.util.runfiles import site_data_path

PROGRAM_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".ll", ".bc")
#: How many benchmarks a FilesDataset keeps made (compiled), most recently used first.
MEMOIZED_BENCHMARKS = 64

#: The download of a URL or a path to a file, checked and bounded: the package's one
#: transfer, :func:`compiler_gym.util.download.fetch_file`, under the name this module gave it.
fetch = fetch_file


class FilesDataset(Dataset):
    """Every program file (``.c .cc .cpp .cxx .ll .bc``) under ``root``, recursively; the
    benchmark ``<name>/<relative path without suffix>`` is that file. Sources are compiled
    with ``copt`` and linked with ``link_args``; ``runnable`` says whether the programs run
    without arguments and check themselves (exit code 0). A benchmark is made (its source
    compiled) once per URI while its file and the headers it includes are unchanged; the last
    :data:`MEMOIZED_BENCHMARKS` made are kept.

    CompilerGym's keywords work too: ``dataset_root`` for ``root``, ``file_glob`` to take
    only the files it matches (relative to the root, e.g. ``"*/*.bc"``),
    ``benchmark_file_suffix`` to take only files with that suffix (any suffix), named without
    it, ``memoize_uris`` (default True, as CompilerGym's) to list the folder once and keep
    that list, ``site_data_base`` and the other arguments of :class:`Dataset`
    (``references``, ``deprecated``, ``validatable``).

    ``every_file`` (default: True when the folder is given as CompilerGym's ``dataset_root``,
    False for ``root``) takes every file, as CompilerGym's FilesDataset did: a file that is
    not a program is named with its whole name (``notes.txt``) and its benchmark is the file
    as it is (:meth:`Benchmark.from_file`). Files are listed in CompilerGym's order: a
    folder's files by name, then its subfolders by name.
    """

    def __init__(
        self,
        name: str,
        root: Optional[Union[str, Path]] = None,
        description: str = "user programs",
        license: str = "unknown",
        copt: Optional[list[str]] = None,
        link_args: Optional[list[str]] = None,
        runnable: bool = False,
        sort_order: int = 50,
        *,
        dataset_root: Optional[Union[str, Path]] = None,
        file_glob: Optional[str] = None,
        benchmark_file_suffix: str = "",
        memoize_uris: bool = True,
        site_data_base: Optional[Union[str, Path]] = None,
        every_file: Optional[bool] = None,
        **dataset_args,
    ):
        if (root is None) == (dataset_root is None):
            raise TypeError("FilesDataset needs one of root and dataset_root")
        super().__init__(
            name,
            description,
            license,
            site_data_base=site_data_base,
            sort_order=sort_order,
            **dataset_args,
        )
        self.memoize_uris = memoize_uris
        self._memoized_files: Optional[dict[str, Path]] = None
        self._root = Path(root if root is not None else dataset_root).expanduser()
        self.file_glob = file_glob
        self.benchmark_file_suffix = benchmark_file_suffix
        self.every_file = dataset_root is not None if every_file is None else every_file
        self.copt = list(copt or [])
        self.link_args = list(link_args or [])
        self.runnable = runnable
        # The benchmarks made so far with their files' stamps, least recently used first (see
        # benchmark_from_parsed_uri).
        self._made: OrderedDict[tuple, tuple[Benchmark, tuple]] = OrderedDict()

    @property
    def root(self) -> Path:
        """The directory whose program files are the dataset's benchmarks."""
        return self._root

    @property
    def size(self) -> int:
        return len(self._files())

    def _files(self) -> dict[str, Path]:
        """The dataset's files by benchmark name (listed once when ``memoize_uris``)."""
        if self._memoized_files is not None:
            return self._memoized_files
        self.install()
        files = {}
        suffix = self.benchmark_file_suffix
        globbed = set(self.root.glob(self.file_glob)) if self.file_glob else None
        for path in _walk(self.root):
            if globbed is not None and path not in globbed:
                continue
            relative = path.relative_to(self.root).as_posix()
            if suffix:
                if not relative.endswith(suffix):
                    continue
                name = relative[: -len(suffix)]
            elif path.suffix in PROGRAM_SUFFIXES:
                name = path.relative_to(self.root).with_suffix("").as_posix()
            elif self.every_file:
                name = relative
            else:
                continue
            files.setdefault(name, path)  # a.c and a.ll: the first in name order
        if self.memoize_uris:
            self._memoized_files = files
        return files

    def benchmark_uris(self) -> Iterator[str]:
        for name in self._files():
            yield f"{self.name}/{name}"

    def benchmark_from_parsed_uri(self, uri: BenchmarkUri) -> Benchmark:
        path = self._files().get(uri.name)
        if path is None:
            hint = did_you_mean(uri.name, self._files())
            raise LookupError(f"Benchmark not found: {uri}{hint}")
        # make_benchmark compiles a source each time: the result is kept per URI and build
        # options, for as long as the files it was made from (the source and the headers it
        # included: modification time and size) are the same.
        if not path.is_file():
            raise LookupError(f"Benchmark not found: {uri} (the file {path} is gone)")
        if path.suffix not in PROGRAM_SUFFIXES:
            return Benchmark.from_file(str(uri), path)  # not a program: the file as it is
        key = (str(uri), tuple(self.copt), tuple(self.link_args), self.runnable)
        made = self._made.get(key)
        if made is not None and made[1] == _stamps(made[0]._inputs):
            benchmark = made[0]
            self._made.move_to_end(key)
        else:
            benchmark = make_benchmark(
                path,
                copt=self.copt,
                link_args=self.link_args,
                runnable=self.runnable,
                uri=str(uri),
            )
            self._made.pop(key, None)
            while len(self._made) >= MEMOIZED_BENCHMARKS:
                self._made.popitem(last=False)
            # Stamped after the build: a file changed during it is seen as changed next time.
            self._made[key] = (benchmark, _stamps(benchmark._inputs))
        return _copy(benchmark)


def _walk(root: Path) -> Iterator[Path]:
    """The regular files under ``root`` in CompilerGym's order: a folder's files by name,
    then each subfolder's, by name."""
    for folder, subfolders, names in os.walk(root):
        subfolders.sort()
        for name in sorted(names):
            path = Path(folder) / name
            if path.is_file():
                yield path


def _stamps(paths) -> tuple:
    """Each file with its modification time and size; None for one that is gone."""
    out = []
    for path in paths:
        try:
            stat = os.stat(path)
            out.append((path, stat.st_mtime_ns, stat.st_size))
        except OSError:
            out.append((path, None, None))
    return tuple(out)


def _copy(benchmark: Benchmark) -> Benchmark:
    """A copy of a memoized benchmark that its caller may change (its lists, its validation
    callbacks) without changing the memoized one; the program's bytes are shared."""
    out = copy.copy(benchmark)
    lists = ("files", "compile_args", "link_args", "run_args", "_validation_callbacks", "_sources")
    for attribute in lists:
        setattr(out, attribute, list(getattr(benchmark, attribute)))
    out.known_costs = dict(benchmark.known_costs)
    return out


class _InstalledDataset(FilesDataset):
    """A FilesDataset whose files are installed under site data by ``_build``."""

    def __init__(self, name: str, **kwargs):
        short = BenchmarkUri.from_string(name).dataset
        super().__init__(name, site_data_path("user", short), **kwargs)

    @property
    def installed(self) -> bool:
        return self.root.is_dir()

    def install(self) -> None:
        super().install()  # a deprecated dataset warns
        install_directory(self.root, self._build)

    def uninstall(self) -> None:
        """Removes the installed files (and :meth:`Dataset.uninstall`'s folders)."""
        shutil.rmtree(self.root, ignore_errors=True)
        self._memoized_files = None
        self._made.clear()
        super().uninstall()

    def _build(self, scratch: Path) -> None:
        raise NotImplementedError


class TarDataset(_InstalledDataset):
    """The program files of a tarball (``.tar``, ``.tar.gz``, ``.tar.bz2``, ``.tar.xz``) at a
    URL or path, optionally checked against its sha256, extracted on first use by
    :func:`~compiler_gym.util.archive.unpack_tar`: regular files and folders only, within
    :meth:`UnpackLimits.for_user <compiler_gym.util.archive.UnpackLimits.for_user>`."""

    def __init__(self, name: str, tarball: str, sha256: Optional[str] = None, **kwargs):
        super().__init__(name, **kwargs)
        self.tarball = str(tarball)
        self.sha256 = sha256

    def _build(self, scratch: Path) -> None:
        archive = scratch.parent / f"{scratch.name}.archive"
        try:
            fetch_file(self.tarball, archive, self.sha256)
            # Not tarfile's extractall(filter="data"): see compiler_gym.util.archive.
            unpack_tar(archive, scratch, limits=UnpackLimits.for_user(), label=self.tarball)
        finally:
            archive.unlink(missing_ok=True)
        if not any(p.suffix in PROGRAM_SUFFIXES for p in scratch.rglob("*")):
            raise DatasetInitError(f"{self.tarball} holds no program files")


class ManifestDataset(_InstalledDataset):
    """Programs listed by a JSON manifest (a URL, a path, or the dict itself), each downloaded
    and checked against its sha256 on first use."""

    def __init__(self, name: str, manifest: Union[str, dict], **kwargs):
        super().__init__(name, **kwargs)
        self.manifest = manifest

    def _load_manifest(self) -> dict:
        if isinstance(self.manifest, dict):
            return self.manifest
        try:
            return json.loads(fetch_text(self.manifest))  # at most $COMPILER_GYM_MAX_MANIFEST_BYTES
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise DatasetInitError(f"{self.manifest} is not a JSON manifest: {e}") from e

    def _build(self, scratch: Path) -> None:
        manifest = self._load_manifest()
        entries = manifest.get("benchmarks") if isinstance(manifest, dict) else None
        if not entries:
            raise DatasetInitError(f"{self.manifest}: the manifest lists no benchmarks")
        # The programs of a manifest are bounded as the files of a tarball are.
        limits = UnpackLimits.for_user()
        if limits.max_members.value is not None and len(entries) > limits.max_members.value:
            raise DatasetInitError(limits.max_members.exceeded(f"{self.manifest} lists more"))
        total = 0
        for entry in entries:
            try:
                name, url, sha256 = entry["name"], entry["url"], entry["sha256"]
            except (KeyError, TypeError) as e:
                raise DatasetInitError(f"manifest entry {entry!r} lacks {e}") from e
            size = entry.get("size")
            if size is not None and (type(size) is not int or size < 0):
                raise DatasetInitError(f"manifest entry {name!r}: size {size!r} is not a size")
            relative = PurePosixPath(name)
            if relative.is_absolute() or ".." in relative.parts:
                raise DatasetInitError(f"manifest name {name!r} leaves the dataset directory")
            if relative.suffix not in PROGRAM_SUFFIXES:
                raise DatasetInitError(f"manifest name {name!r} is not a program file")
            target = scratch / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            fetch_file(url, target, sha256, size=size)
            total += target.stat().st_size
            if limits.max_bytes.value is not None and total > limits.max_bytes.value:
                raise DatasetInitError(
                    limits.max_bytes.exceeded(f"{self.manifest}'s programs add up to more")
                )


def dataset_from_path(name: str, path: Union[str, Path], **kwargs) -> FilesDataset:
    """A dataset of a folder (FilesDataset) or of a tarball (TarDataset) on disk."""
    path = Path(path).expanduser()
    if path.is_dir():
        return FilesDataset(name, path, **kwargs)
    if path.is_file():
        return TarDataset(name, str(path), **kwargs)
    raise FileNotFoundError(f"No such folder or tarball: {path}")


__all__ = [
    "FilesDataset",
    "ManifestDataset",
    "TarDataset",
    "dataset_from_path",
    "fetch",
]
