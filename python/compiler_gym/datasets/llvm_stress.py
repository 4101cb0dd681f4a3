"""generator://llvm-stress-v0/<seed>: random LLVM IR programs from ``llvm-stress-19``."""

from __future__ import annotations

from pathlib import Path

from compiler_gym.datasets.benchmark import Benchmark, BenchmarkUri
from compiler_gym.datasets.generator import SeededGeneratorDataset

# Instructions per generated function: enough for passes to act on, small enough to keep steps
# fast (llvm-stress' own default is 100).
_SIZE = 200


class LlvmStressDataset(SeededGeneratorDataset):
    """Random IR, not runnable, from ``llvm-stress-19 -seed=N``."""

    suffix = ".ll"
    cache_tag = f"-size{_SIZE}"

    def __init__(self, binary: str = "llvm-stress-19"):
        super().__init__(
            name="generator://llvm-stress-v0",
            description="Randomly generated LLVM IR (llvm-stress-19)",
            license="Apache-2.0 WITH LLVM-exception",
            binary=binary,
            sort_order=10,
        )

    def generator_args(self, seed: int) -> list[str]:
        """``-seed=N`` and this dataset's fixed ``-size`` (instructions per function)."""
        return [f"-seed={seed}", f"-size={_SIZE}"]

    def make_benchmark(self, uri: BenchmarkUri, path: Path) -> Benchmark:
        """A benchmark of the IR file at ``path``, read into memory."""
        return Benchmark(str(uri), data=path.read_bytes())
