"""CompilerGym's downloaded ``gcc-v0`` datasets, by their URIs: ``benchmark://chstone-v0/<name>``
(the 12 CHStone programs, C source) and ``benchmark://anghabench-v1/<name>`` (AnghaBench's
C functions). CompilerGym's third ``gcc-v0`` dataset, ``generator://csmith-v0``, is
:class:`compiler_gym.datasets.csmith.CsmithDataset`.

They are the archives of CompilerGym's LLVM rows of the same names (the same URLs and sha256
sums: :data:`compiler_gym.datasets.compilergym_llvm_table.DEFINITIONS`), installed the same
way on first use (:class:`~compiler_gym.datasets.compilergym_llvm.CompilerGymDataset`: the
copy placed by hand, else ``$COMPILER_GYM_DATASET_MIRROR``, else the URLs; the sha256
checked, a mismatch a :class:`~compiler_gym.errors.DownloadFailed`; unpacked by
:mod:`compiler_gym.util.archive`), but in CompilerGym's ``gcc-v0`` place::

    <site data>/gcc-v0/benchmark/<dataset>/...

``<site data>/gcc-v0`` is ``$COMPILER_GYM_SITE_DATA/gcc-v0``, or the ``site_data_base`` a
dataset is given (``GccEnv(datasets_site_path=...)``). A benchmark is the C file itself,
preprocessed by the env's own GCC at reset (CompilerGym ran ``gcc -E`` on it when loading it):
a CHStone program's main file includes its folder's other files, found beside it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Optional, Union

from compiler_gym.datasets import compilergym_llvm
from compiler_gym.datasets.benchmark import Benchmark, BenchmarkUri
from compiler_gym.datasets.compilergym_llvm_table import DEFINITIONS, Archive, Definition
from compiler_gym.datasets.dataset import Dataset
from compiler_gym.util.runfiles import site_data_path

#: Where the datasets keep their files by default, under ``$COMPILER_GYM_SITE_DATA``.
SITE_FOLDER = "gcc-v0"


def _gcc_definition(
    name: str, definition: Optional[Definition], sort_order: Optional[int]
) -> Definition:
    """``definition`` (by default, the LLVM table's row ``name``), with ``sort_order``."""
    definition = definition or DEFINITIONS[name]
    if sort_order is not None:
        definition = dataclasses.replace(definition, sort_order=sort_order)
    return definition


def _gcc_benchmark(benchmark: Benchmark) -> Benchmark:
    """An LLVM dataset's benchmark, as gcc-v0 takes it: the same file, without the clang-only
    options the LLVM dataset preprocesses and compiles it with (``-ferror-limit``)."""
    benchmark.compile_args = []
    return benchmark


class _GccSite:
    """Keeps a CompilerGym dataset in ``<site data>/gcc-v0`` rather than ``llvm-v0``."""

    @property
    def root(self: compilergym_llvm.CompilerGymDataset) -> Path:
        """The dataset's folder, ``<site data>/gcc-v0/benchmark/<dataset>``."""
        base = self.site_data_base
        base = Path(base) if base is not None else site_data_path(SITE_FOLDER)
        uri = BenchmarkUri.from_string(self.definition.name)
        return base / uri.scheme / uri.dataset


class CHStoneDataset(_GccSite, compilergym_llvm.CHStoneDataset):
    """CompilerGym's gcc-v0 ``benchmark://chstone-v0``: the 12 CHStone programs as C source
    (``adpcm``, ``aes``, ``blowfish``, ``dfadd``, ``dfdiv``, ``dfmul``, ``dfsin``, ``gsm``,
    ``jpeg``, ``mips``, ``motion``, ``sha``), each its folder's main file."""

    def __init__(
        self,
        gcc_bin: Optional[Union[str, Path]] = None,
        site_data_base: Optional[Union[str, Path]] = None,
        sort_order: Optional[int] = None,
        *,
        definition: Optional[Definition] = None,
    ):
        """CompilerGym's arguments: programs are compiled by the env's own GCC, so
        ``gcc_bin`` only keeps its signature; ``site_data_base`` is where the dataset keeps
        its files (default ``$COMPILER_GYM_SITE_DATA/gcc-v0``)."""
        del gcc_bin
        row = _gcc_definition(self.default_name, definition, sort_order)
        super().__init__(site_data_base, definition=row)

    def _benchmark(self, uri: BenchmarkUri, name: str) -> Benchmark:
        return _gcc_benchmark(super()._benchmark(uri, name))


class AnghaBenchDataset(_GccSite, compilergym_llvm.AnghaBenchDataset):
    """CompilerGym's gcc-v0 ``benchmark://anghabench-v1``: AnghaBench's compile-only C
    functions, named by the LLVM dataset's manifest (downloaded when the names are first
    asked for)."""

    def __init__(
        self,
        site_data_base: Optional[Union[str, Path]] = None,
        sort_order: Optional[int] = None,
        manifest_url: Optional[str] = None,
        manifest_sha256: Optional[str] = None,
        deprecated: Optional[str] = None,
        name: Optional[str] = None,
        *,
        definition: Optional[Definition] = None,
    ):
        """CompilerGym's arguments: another manifest of names (its URL and sha256), a
        deprecation message, or another name for the same archive."""
        row = _gcc_definition(self.default_name, definition, sort_order)
        changes: dict = {}
        if manifest_url is not None or manifest_sha256 is not None:
            changes["manifest"] = Archive(
                (manifest_url or row.manifest.urls[0],),
                manifest_sha256 or row.manifest.sha256,
            )
        if deprecated is not None:
            changes["deprecated"] = deprecated
        if name is not None:
            changes["name"] = name
        super().__init__(site_data_base, definition=dataclasses.replace(row, **changes))

    def _benchmark(self, uri: BenchmarkUri, name: str) -> Benchmark:
        return _gcc_benchmark(super()._benchmark(uri, name))


def compilergym_gcc_datasets(
    site_data_base: Optional[Union[str, Path]] = None,
) -> list[Dataset]:
    """CompilerGym's downloaded gcc-v0 datasets (chstone-v0, anghabench-v1), keeping their
    files under ``site_data_base`` when given (else ``$COMPILER_GYM_SITE_DATA/gcc-v0``).
    Nothing is downloaded until a dataset is used."""
    return [
        CHStoneDataset(site_data_base=site_data_base),
        AnghaBenchDataset(site_data_base=site_data_base),
    ]


__all__ = [
    "AnghaBenchDataset",
    "CHStoneDataset",
    "SITE_FOLDER",
    "compilergym_gcc_datasets",
]
