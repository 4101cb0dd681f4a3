"""Seeded generator datasets: every non-negative seed is a benchmark.

A generator runs once per seed and machine; its output is cached in ``$COMPILER_GYM_CACHE`` and
written atomically, so concurrent envs never read half a file.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Optional

import numpy as np

from compiler_gym._engine import _C
from compiler_gym.datasets.benchmark import Benchmark, BenchmarkUri
from compiler_gym.datasets.dataset import Dataset
from compiler_gym.errors import BenchmarkInitError
from compiler_gym.util.runfiles import cache_path, write_atomically


class SeededGeneratorDataset(Dataset):
    """An infinite dataset (``size`` 0) whose benchmark ``<name>/<seed>`` is the output of
    running ``binary`` with :meth:`generator_args`. Subclasses say how to turn that file into a
    Benchmark."""

    infinite = True
    suffix = ".txt"
    cache_tag = ""  # names the generator settings in cached file names
    timeout_seconds = 60
    attempts = 2  # runs of the generator before a seed counts as failed
    # Generators take 32-bit seeds: csmith reads 2**32 as 0 and llvm-stress refuses it, so a
    # larger seed would be another seed's program under a second name.
    max_seed = 2**32 - 1

    def __init__(self, name: str, description: str, license: str, binary: str, sort_order: int):
        super().__init__(name, description, license, size=0, sort_order=sort_order)
        self.binary = binary

    @property
    def installed(self) -> bool:
        return shutil.which(self.binary) is not None

    def generator_args(self, seed: int) -> list[str]:
        """The arguments of ``binary`` that make it print the program of ``seed``; subclasses
        define them."""
        raise NotImplementedError

    def make_benchmark(self, uri: BenchmarkUri, path: Path) -> Benchmark:
        """The benchmark ``uri`` of the generator's output for its seed, cached at ``path``;
        subclasses define it."""
        raise NotImplementedError

    def benchmark_uris(self) -> Iterator[str]:
        seed = 0
        while True:
            yield f"{self.name}/{seed}"
            seed += 1

    def random_benchmark(self, random_state: Optional[np.random.Generator] = None) -> Benchmark:
        rng = random_state or np.random.default_rng()
        return self.benchmark(f"{self.name}/{int(rng.integers(2**31))}")

    def benchmark_from_parsed_uri(self, uri: BenchmarkUri) -> Benchmark:
        try:
            seed = int(uri.name)
        except ValueError:
            raise LookupError(f"Not a seed: {uri}") from None
        return self._benchmark_of_seed(uri, seed, self.attempts)

    def benchmark_from_seed(self, seed: int, max_retries: int = 3, retry_count: int = 0):
        """The benchmark of ``seed`` (CompilerGym's call): the generator runs at most
        ``max_retries - retry_count`` times (at least once) before ``BenchmarkInitError``
        (an ``OSError``); a ``retry_count`` that has reached ``max_retries`` raises it at once,
        as CompilerGym's did."""
        if retry_count >= max_retries:
            name = Path(self.binary).name.capitalize()
            raise BenchmarkInitError(
                f"{name} failed after {retry_count} "
                f"{'attempt' if retry_count == 1 else 'attempts'} with seed {seed}"
            )
        uri = BenchmarkUri.from_string(f"{self.name}/{seed}")
        return self._benchmark_of_seed(uri, seed, max(1, max_retries - retry_count))

    def _benchmark_of_seed(self, uri: BenchmarkUri, seed: int, attempts: int) -> Benchmark:
        if not 0 <= seed <= self.max_seed:
            raise LookupError(f"Seeds are 0 to {self.max_seed}: {uri}")
        path = cache_path(self.name.split("://")[-1], f"{seed}{self.cache_tag}{self.suffix}")
        if not path.is_file():
            self._generate(seed, path, attempts)
        return self.make_benchmark(uri, path)

    def _generate(self, seed: int, path: Path, attempts: int) -> None:
        binary = shutil.which(self.binary)
        if binary is None:
            raise BenchmarkInitError(f"{self.binary} not found: install it with scripts/setup.sh")
        # In the engine's sandbox: a fresh scratch directory (generators may drop files in
        # their working directory; csmith writes platform.info) and a time limit. A seed's
        # output is deterministic, so a failure is retried only in case it came from the
        # machine (load, memory), not from the seed.
        for _ in range(attempts):
            proc = _C.run_sandboxed(
                [binary, *self.generator_args(seed)], timeout_seconds=self.timeout_seconds
            )
            if proc["ok"] and proc["stdout"]:
                break
        else:
            stderr = proc["stderr"].decode(errors="replace").strip()
            what = (
                f"timed out after {self.timeout_seconds} s"
                if proc["timed_out"]
                else f"failed ({proc['description']}): {stderr}"
            )
            raise BenchmarkInitError(f"{self.binary} {what} on seed {seed} ({attempts} attempts)")
        write_atomically(path, proc["stdout"])
