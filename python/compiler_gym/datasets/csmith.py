"""generator://csmith-v0/<seed>: random C programs from Debian's ``csmith``.

Each program prints a checksum of its global state. It is compiled with csmith's runtime
headers from Debian's ``libcsmith-dev``.
"""

from __future__ import annotations

from pathlib import Path

from compiler_gym.datasets.benchmark import Benchmark, BenchmarkUri
from compiler_gym.datasets.generator import SeededGeneratorDataset

_INCLUDE_DIR = "/usr/include/csmith"


class CsmithDataset(SeededGeneratorDataset):
    """Random C programs from ``csmith --seed N``.

    Buildable. Not yet marked runnable: csmith sometimes emits programs that never terminate,
    and telling those apart needs the sandboxed runner (time and memory limits) that the
    runtime work brings.
    """

    suffix = ".c"

    def __init__(self, binary: str = "csmith"):
        super().__init__(
            name="generator://csmith-v0",
            description="Random C programs that print a checksum (csmith)",
            license="BSD-2-Clause",
            binary=binary,
            sort_order=11,
        )

    @property
    def installed(self) -> bool:
        return super().installed and Path(_INCLUDE_DIR, "csmith.h").is_file()

    def generator_args(self, seed: int) -> list[str]:
        return ["--seed", str(seed)]

    def make_benchmark(self, uri: BenchmarkUri, path: Path) -> Benchmark:
        return Benchmark(
            str(uri),
            files=[str(path)],
            # csmith's programs trip many warnings by design; they are not ours to fix.
            compile_args=["-I", _INCLUDE_DIR, "-w"],
            link_args=[],
            run_args=[],
            buildable=True,
            runnable=False,
        )
