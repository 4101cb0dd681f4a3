"""generator://llvm-stress-v0/<seed>: random LLVM IR programs from ``llvm-stress-19``.

An infinite dataset: every seed is a benchmark. Generated IR is cached in
``$COMPILER_GYM_CACHE/llvm-stress-v0`` so a seed runs the generator once per machine.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Optional

import numpy as np

from compiler_gym.datasets.benchmark import Benchmark, BenchmarkUri
from compiler_gym.datasets.dataset import Dataset
from compiler_gym.errors import BenchmarkInitError
from compiler_gym.util.runfiles import cache_path

# Instructions per generated function: large enough for passes to act on, small enough to keep
# steps fast (llvm-stress' own default is 100).
_SIZE = 200
_TIMEOUT_SECONDS = 60


class LlvmStressDataset(Dataset):
    """Random (not runnable) IR from ``llvm-stress-19 -seed=N``; infinite, so ``size`` is 0."""

    def __init__(self, binary: str = "llvm-stress-19"):
        super().__init__(
            name="generator://llvm-stress-v0",
            description="Randomly generated LLVM IR (llvm-stress-19)",
            license="Apache-2.0 WITH LLVM-exception",
            size=0,
            sort_order=10,
        )
        self._binary = binary

    @property
    def installed(self) -> bool:
        return shutil.which(self._binary) is not None

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
            seed = int(uri.path)
        except ValueError:
            raise LookupError(f"Not a seed: {uri}") from None
        if seed < 0:
            raise LookupError(f"Seeds are non-negative: {uri}")
        path = cache_path("llvm-stress-v0", f"{seed}-{_SIZE}.ll")
        if not path.is_file():
            self._generate(seed, path)
        return Benchmark(str(uri), data=path.read_bytes())

    def _generate(self, seed: int, path: Path) -> None:
        binary = shutil.which(self._binary)
        if binary is None:
            raise BenchmarkInitError(f"{self._binary} not found: install Debian's llvm-19")
        try:
            proc = subprocess.run(
                [binary, f"-seed={seed}", f"-size={_SIZE}"],
                capture_output=True,
                timeout=_TIMEOUT_SECONDS,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise BenchmarkInitError(f"llvm-stress-19 timed out on seed {seed}") from None
        if proc.returncode != 0 or not proc.stdout:
            raise BenchmarkInitError(
                f"llvm-stress-19 failed on seed {seed}: {proc.stderr.decode(errors='replace')}"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        # Write then rename, so a concurrent reader never sees half a file.
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as f:
            f.write(proc.stdout)
        Path(f.name).replace(path)
