"""Dataset: a named collection of benchmarks, and Datasets: the collections an env knows."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import Optional

import numpy as np

from compiler_gym.datasets.benchmark import Benchmark, BenchmarkUri
from compiler_gym.util.names import did_you_mean


class Dataset:
    """Base class of datasets. Subclasses implement :meth:`benchmark_uris` and
    :meth:`benchmark_from_parsed_uri`."""

    def __init__(
        self,
        name: str,
        description: str,
        license: str,
        size: int = 0,
        sort_order: int = 0,
        deprecated: bool = False,
    ):
        self.name = name
        self.description = description
        self.license = license
        self._size = size
        self.sort_order = sort_order
        self.deprecated = deprecated

    @property
    def size(self) -> int:
        """Number of benchmarks; 0 means infinite (a generator)."""
        return self._size

    def __len__(self) -> int:
        return self.size

    @property
    def installed(self) -> bool:
        return True

    def install(self) -> None:
        """Makes the dataset available on this machine (idempotent)."""

    def benchmark_uris(self) -> Iterator[str]:
        raise NotImplementedError

    def benchmarks(self) -> Iterator[Benchmark]:
        for uri in self.benchmark_uris():
            yield self.benchmark(uri)

    def benchmark_from_parsed_uri(self, uri: BenchmarkUri) -> Benchmark:
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
        size = "infinite" if self.size == 0 else self.size
        return f"{type(self).__name__}({self.name!r}, size={size})"


class Datasets:
    """The datasets of an environment, iterated in (sort order, name) order."""

    def __init__(self, datasets: Iterable[Dataset]):
        self._datasets: dict[str, Dataset] = {}
        for d in datasets:
            self._datasets[d.name] = d

    def datasets(self, with_deprecated: bool = False) -> Iterator[Dataset]:
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
        self._datasets[dataset.name] = dataset

    def dataset(self, name: str) -> Dataset:
        """A dataset by name (``benchmark://builtin-v0`` or ``builtin-v0``)."""
        key = name if "://" in name else f"benchmark://{name}"
        key = BenchmarkUri.from_string(key).dataset_uri
        if key not in self._datasets:
            raise LookupError(f"Dataset not found: {name}{did_you_mean(key, self._datasets)}")
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
        iterators = [d.benchmark_uris() for d in self.datasets(with_deprecated)]
        for group in itertools.zip_longest(*iterators):
            for uri in group:
                if uri is not None:
                    yield uri

    def random_benchmark(
        self, random_state: Optional[np.random.Generator] = None, weighted: bool = False
    ) -> Benchmark:
        """A random benchmark: a random dataset, then a random benchmark of it (or, with
        ``weighted``, datasets weighted by their size)."""
        rng = random_state or np.random.default_rng()
        datasets: list[Dataset] = list(self.datasets())
        if weighted:
            sizes = np.array([d.size for d in datasets], dtype=float)
            if (sizes == 0).any():
                raise ValueError("Cannot weight by size with infinite datasets")
            dataset = datasets[int(rng.choice(len(datasets), p=sizes / sizes.sum()))]
        else:
            dataset = datasets[int(rng.integers(len(datasets)))]
        return dataset.random_benchmark(rng)
