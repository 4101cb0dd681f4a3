"""generator://csmith-v0/<seed>: random C programs from Debian's ``csmith``.

Each program prints a checksum of its global state. It is compiled with csmith's runtime
headers from Debian's ``libcsmith-dev``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from compiler_gym._engine import _C
from compiler_gym.datasets.benchmark import Benchmark, BenchmarkSource, BenchmarkUri
from compiler_gym.datasets.generator import SeededGeneratorDataset
from compiler_gym.util.runfiles import write_atomically

_INCLUDE_DIR = "/usr/include/csmith"


@contextmanager
def _scratch_dir(prefix: str) -> Iterator[str]:
    """A temporary directory that the engine removes later if this process dies first."""
    path = _C.make_temp_dir(prefix)
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


class CsmithBenchmark(Benchmark):
    """A csmith program: a :class:`Benchmark` with its C ``source`` (CompilerGym's class)."""

    @property
    def source(self) -> str:
        """The generated C program."""
        return Path(self.files[0]).read_text()

    @property
    def sources(self) -> list[BenchmarkSource]:
        """The program as CompilerGym named it: one file, ``source.c``."""
        return [BenchmarkSource("source.c", Path(self.files[0]).read_bytes())]


class CsmithDataset(SeededGeneratorDataset):
    """Random C programs from ``csmith --seed N``.

    Buildable. Runnable when the program, built once at -O1 when the seed is first used, ends
    within ``probe_timeout_seconds`` (csmith sometimes emits programs that run for hours); its
    checksum line is then the benchmark's expected output. The verdict is cached beside the
    program.
    """

    probe_timeout_seconds = 10

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
        """``--seed N``: csmith's program for seed ``N``."""
        return ["--seed", str(seed)]

    def _probe(self, path: Path) -> dict:
        """Builds and runs the program once: is it runnable, and what does it print?"""
        with _scratch_dir("compiler_gym-csmith") as scratch:
            build = _C.run_sandboxed(
                [
                    _C.family_call("llvm", "clang_path"),
                    "-O1",
                    "-w",
                    "-I",
                    _INCLUDE_DIR,
                    str(path),
                    "-o",
                    "a.out",
                ],
                timeout_seconds=300,
                workdir=scratch,
            )
            if not build["ok"]:
                return {"runnable": False, "reason": f"build: {build['description']}"}
            run = _C.run_sandboxed(
                [str(Path(scratch) / "a.out")],
                timeout_seconds=self.probe_timeout_seconds,
                memory_bytes=1 << 30,
                isolated=True,  # a generated program: no network, no writes outside scratch
            )
        if not run["ok"]:
            return {"runnable": False, "reason": f"run: {run['description']}"}
        return {"runnable": True, "expected_output": run["stdout"].decode(errors="replace")}

    def make_benchmark(self, uri: BenchmarkUri, path: Path) -> Benchmark:
        """A buildable benchmark of the C file at ``path``; a probe run on first use, its verdict
        cached beside the file, says whether it is runnable and what it prints."""
        verdict_path = path.with_suffix(".json")
        if not verdict_path.is_file():
            write_atomically(verdict_path, json.dumps(self._probe(path)).encode())
        verdict = json.loads(verdict_path.read_text())
        return CsmithBenchmark(
            str(uri),
            files=[str(path)],
            # csmith's programs trip many warnings by design; they are not ours to fix.
            compile_args=["-I", _INCLUDE_DIR, "-w"],
            link_args=[],
            run_args=[],
            buildable=True,
            runnable=verdict["runnable"],
            expected_output=verdict.get("expected_output"),
        )
