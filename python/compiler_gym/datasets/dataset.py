"""Dataset: a named collection of benchmarks, and Datasets: the collections an env knows."""

from __future__ import annotations

import re
import shutil
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from compiler_gym.datasets.benchmark import Benchmark, BenchmarkUri
from compiler_gym.util.names import did_you_mean
from compiler_gym.util.runfiles import cache_path, site_data_path


class Dataset:
    """Base class of datasets. Subclasses implement :meth:`benchmark_uris` and
    :meth:`benchmark_from_parsed_uri`."""

    def __init__(
        self,
        name: str,
        description: str,
        license: str,
        site_data_base: Optional[Union[str, Path]] = None,
        references: Optional[dict[str, str]] = None,
        deprecated: Union[bool, str] = False,
        sort_order: int = 0,
        validatable: str = "No",
        size: int = 0,
    ):
        """CompilerGym's arguments: ``site_data_base`` is the folder under which the
        dataset keeps its files (:attr:`site_data_path`), ``references`` names papers and
        sites, ``deprecated`` is true or a message (installing it then warns, and
        :meth:`Datasets.datasets` leaves it out), ``validatable`` says whether its
        benchmarks' behaviour can be checked ("Yes", "No", "Partially")."""
        self._name = name
        self._description = description
        self._license = license
        self.references = dict(references or {})
        self.site_data_base = site_data_base
        self._size = size
        self.sort_order = sort_order
        self._deprecation_message = deprecated
        self.validatable = validatable

    @property
    def name(self) -> str:
        """The dataset's URI, ``scheme://name-vN`` (read-only, as CompilerGym's)."""
        return self._name

    @property
    def description(self) -> str:
        """A short description of the dataset (read-only, as CompilerGym's)."""
        return self._description

    @property
    def license(self) -> str:
        """The dataset's license (read-only, as CompilerGym's)."""
        return self._license

    @property
    def deprecated(self) -> bool:
        """Whether the dataset is deprecated: :meth:`Datasets.datasets` leaves it out unless
        asked, and :meth:`install` warns."""
        return bool(self._deprecation_message)

    @property
    def scheme(self) -> str:
        """The URI scheme of the dataset's benchmarks: ``benchmark`` or ``generator``."""
        return BenchmarkUri.from_string(self.name).scheme

    @property
    def protocol(self) -> str:
        """The URI scheme (CompilerGym's older name of :attr:`scheme`)."""
        return self.scheme

    @property
    def version(self) -> int:
        """The N of a ``-vN`` name, else 0."""
        match = re.search(r"-v(\d+)$", self.name)
        return int(match.group(1)) if match else 0

    @property
    def site_data_base(self) -> Optional[Path]:
        """The folder under which the dataset keeps its files (None: the default place)."""
        return self._site_data_base

    @site_data_base.setter
    def site_data_base(self, base: Optional[Union[str, Path]]) -> None:
        self._site_data_base = Path(base).expanduser().resolve() if base is not None else None

    @property
    def has_site_data(self) -> bool:
        """Whether the dataset has a :attr:`site_data_path` (a ``site_data_base`` was given)."""
        return self._site_data_base is not None

    @property
    def site_data_path(self) -> Path:
        """``<site_data_base>/<scheme>/<name without scheme>``, an absolute path that may
        not exist yet; ``ValueError`` without a ``site_data_base`` (:attr:`has_site_data`),
        as CompilerGym's."""
        if self._site_data_base is None:
            raise ValueError(f"Dataset has no site data path: {self.name}")
        return self._site_data_base / self.scheme / BenchmarkUri.from_string(self.name).dataset

    infinite = False  # generators say True

    @property
    def size(self) -> int:
        """Number of benchmarks; 0 for a generator (:attr:`infinite`) or a dataset that is
        not installed yet."""
        return self._size

    @property
    def size_text(self) -> str:
        """The size as tools show it: ``infinite``, the count, or ``-`` when not installed."""
        if self.infinite:
            return "infinite"
        return str(self.size) if self.installed else "-"

    def __len__(self) -> int:
        return self.size

    @property
    def installed(self) -> bool:
        """Whether the dataset's benchmarks are available on this machine."""
        return True

    def install(self) -> None:
        """Makes the dataset available on this machine (idempotent). A deprecated dataset
        warns (``DeprecationWarning``, with its message), as CompilerGym's does; subclasses
        that install something call this first."""
        if self.deprecated:
            message = self._deprecation_message
            note = f" {message}" if isinstance(message, str) else ""
            warnings.warn(
                f"Dataset '{self.name}' is marked as deprecated.{note}",
                category=DeprecationWarning,
                stacklevel=2,
            )

    def uninstall(self) -> None:
        """Removes what :meth:`install` and use left on this machine (CompilerGym's method):
        by default the dataset's folders named after it without its scheme, under
        ``$COMPILER_GYM_CACHE`` and ``$COMPILER_GYM_SITE_DATA``, and its :attr:`site_data_path`
        when it has one; datasets that keep files elsewhere override it."""
        short = BenchmarkUri.from_string(self.name).dataset
        folders = [cache_path(short), site_data_path(short)]
        if self.has_site_data:
            folders.append(self.site_data_path)
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)

    def benchmark_uris(self) -> Iterator[str]:
        """The URIs of the dataset's benchmarks, in a fixed order (endless for generators)."""
        raise NotImplementedError

    def benchmarks(self) -> Iterator[Benchmark]:
        """The dataset's benchmarks, in :meth:`benchmark_uris` order."""
        for uri in self.benchmark_uris():
            yield self.benchmark(uri)

    def __iter__(self) -> Iterator[Benchmark]:
        """The dataset's benchmarks (:meth:`benchmarks`)."""
        return self.benchmarks()

    def __getitem__(self, uri: str) -> Benchmark:
        """A benchmark by URI (:meth:`benchmark`); ``LookupError`` when there is none."""
        return self.benchmark(uri)

    def benchmark_from_parsed_uri(self, uri: BenchmarkUri) -> Benchmark:
        """The benchmark of a parsed URI of this dataset; LookupError when it has none."""
        raise NotImplementedError

    def benchmark(self, uri: Optional[str] = None) -> Benchmark:
        """A benchmark by URI (or by name within this dataset); the first one if None."""
        if uri is None:
            uri = next(self.benchmark_uris())
        uri = str(uri)
        if "://" not in uri and not uri.startswith(self.name.split("://")[-1] + "/"):
            uri = f"{self.name}/{uri}"
        return self.benchmark_from_parsed_uri(BenchmarkUri.from_string(uri))

    def random_benchmark(self, random_state: Optional[np.random.Generator] = None) -> Benchmark:
        """A benchmark chosen uniformly at random."""
        rng = random_state or np.random.default_rng()
        uris = list(self.benchmark_uris())
        return self.benchmark(uris[int(rng.integers(len(uris)))])

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, size={self.size_text})"

    def __eq__(self, other) -> bool:
        """Datasets are equal by name, and equal to their name."""
        if isinstance(other, Dataset):
            return self.name == other.name
        if isinstance(other, str):
            return self.name == other
        return NotImplemented

    def __lt__(self, other: Union[Dataset, str]) -> bool:
        """Datasets order by name (and against a name), as CompilerGym's."""
        return self.name < (other.name if isinstance(other, Dataset) else other)

    def __le__(self, other: Union[Dataset, str]) -> bool:
        return self < other or self == other

    def __hash__(self) -> int:
        return hash(self.name)


def rebase_site_data(
    datasets: list[Dataset], site_data_base: Optional[Union[str, Path]]
) -> list[Dataset]:
    """``datasets``, each keeping its installed files under ``site_data_base`` when one is
    given (CompilerGym's ``site_data_base`` / ``datasets_site_path`` arguments)."""
    if site_data_base is not None:
        for dataset in datasets:
            dataset.site_data_base = site_data_base
    return datasets


def round_robin_iterables(iters: Iterable[Iterable[Any]]) -> Iterator[Any]:
    """One item of each iterable in turn, dropping each when it runs out, until all have:
    an infinite iterable never starves the others."""
    iterators = [iter(i) for i in iters]
    while iterators:
        alive = []
        for it in iterators:
            try:
                yield next(it)
            except StopIteration:
                continue
            alive.append(it)
        iterators = alive


class Datasets:
    """The datasets of an environment, iterated in (sort order, name) order."""

    def __init__(self, datasets: Iterable[Dataset]):
        self._datasets: dict[str, Dataset] = {}
        for d in datasets:
            self.add(d)

    @staticmethod
    def _key(name: str) -> str:
        """A dataset's key: its URI with the scheme (``builtin-v0`` is ``benchmark://...``)."""
        key = name if "://" in name else f"benchmark://{name}"
        return BenchmarkUri.from_string(key).dataset_uri

    def datasets(self, with_deprecated: bool = False) -> Iterator[Dataset]:
        """The datasets in (sort order, name) order, deprecated ones only when asked."""
        for d in sorted(self._datasets.values(), key=lambda d: (d.sort_order, d.name)):
            if with_deprecated or not d.deprecated:
                yield d

    def __iter__(self) -> Iterator[Dataset]:
        return self.datasets()

    def __len__(self) -> int:
        return len(self._datasets)

    def __contains__(self, name: str) -> bool:
        try:
            self.dataset(name)
            return True
        except LookupError:
            return False

    def __getitem__(self, name: str) -> Dataset:
        return self.dataset(name)

    def add(self, dataset: Dataset) -> None:
        """Adds (or replaces, by name) a dataset; a name without a scheme is a
        ``benchmark://`` one."""
        self._datasets[self._key(dataset.name)] = dataset

    def __setitem__(self, name: str, dataset: Dataset) -> None:
        """``datasets[name] = dataset``, as CompilerGym adds one: found as ``name`` (its own
        name, as a rule; another one is the key it is found by)."""
        self._datasets[self._key(name)] = dataset

    def __delitem__(self, name: str) -> None:
        """Removes a dataset by name (LookupError when there is none)."""
        self.dataset(name)  # LookupError with the closest names
        del self._datasets[self._key(name)]

    def dataset(self, name: str) -> Dataset:
        """A dataset by name (``benchmark://builtin-v0`` or ``builtin-v0``)."""
        key = self._key(name)
        if key not in self._datasets:
            # Compared without the scheme, which every name shares: "bar-v0" is not close to
            # "foo-v0", as "benchmark://bar-v0" would be to "benchmark://foo-v0".
            short = BenchmarkUri.from_string(key).dataset
            close = [
                k
                for k in self._datasets
                if did_you_mean(short, [BenchmarkUri.from_string(k).dataset])
            ]
            raise LookupError(f"Dataset not found: {name}{did_you_mean(key, close)}")
        return self._datasets[key]

    def benchmark(self, uri: str) -> Benchmark:
        """Resolves a benchmark URI to a Benchmark; raises LookupError if unknown."""
        parsed = BenchmarkUri.from_string(str(uri))
        if parsed.scheme == "file":
            return Benchmark.from_file(str(parsed), parsed.path)
        return self.dataset(parsed.dataset_uri).benchmark_from_parsed_uri(parsed)

    def benchmark_uris(self, with_deprecated: bool = False) -> Iterator[str]:
        """All benchmark URIs, round-robin over the datasets so infinite ones do not starve
        the others."""
        yield from round_robin_iterables(d.benchmark_uris() for d in self.datasets(with_deprecated))

    def benchmarks(self, with_deprecated: bool = False) -> Iterator[Benchmark]:
        """All benchmarks, in :meth:`benchmark_uris` order (each loaded as it is reached)."""
        yield from round_robin_iterables(d.benchmarks() for d in self.datasets(with_deprecated))

    def random_benchmark(
        self,
        random_state: Optional[np.random.Generator] = None,
        weighted: bool = False,
        weights: Optional[dict[str, float]] = None,
    ) -> Benchmark:
        """A random benchmark: a random dataset, then a random benchmark of it. With
        ``weighted``, datasets are weighted by their size (an infinite one, size 0, is never
        chosen, as in CompilerGym); ``weights`` maps dataset names to weights instead."""
        rng = random_state or np.random.default_rng()
        datasets: list[Dataset] = list(self.datasets())
        if weights is not None:
            by_name = {self.dataset(name).name: float(w) for name, w in weights.items()}
            p = np.array([by_name.get(d.name, 0.0) for d in datasets])
        elif weighted:
            p = np.array([d.size for d in datasets], dtype=float)
        else:
            return datasets[int(rng.integers(len(datasets)))].random_benchmark(rng)
        if (p < 0).any() or not p.sum() > 0:
            raise ValueError("dataset weights must be >= 0 with a positive sum")
        dataset = datasets[int(rng.choice(len(datasets), p=p / p.sum()))]
        return dataset.random_benchmark(rng)
