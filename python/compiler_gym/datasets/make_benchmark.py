"""Benchmarks from user code: files (sources, IR, bitcode) or a source string."""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Optional, Union

from compiler_gym.datasets.benchmark import Benchmark
from compiler_gym.util.runfiles import cache_path

_SOURCE_SUFFIXES = {".c", ".cc", ".cpp", ".cxx", ".C", ".i", ".ii"}


def make_benchmark(
    inputs: Union[str, Path, Sequence[Union[str, Path]]],
    copt: Optional[list[str]] = None,
    link_args: Optional[list[str]] = None,
    runnable: bool = False,
    uri: Optional[str] = None,
) -> Benchmark:
    """Makes a benchmark from one or more files: C/C++ sources (compiled with clang-19),
    ``.ll`` text IR, or ``.bc`` bitcode. Several files are linked into one module.

    The URI defaults to ``benchmark://user-v0/<hash>`` of the file contents and flags, so the
    same inputs give the same benchmark. Compilation happens on the next ``reset()``.
    """
    paths = [Path(inputs)] if isinstance(inputs, (str, Path)) else [Path(p) for p in inputs]
    if not paths:
        raise ValueError("No inputs")
    digest = hashlib.sha256()
    for p in paths:
        if not p.is_file():
            raise FileNotFoundError(f"File not found: {p}")
        digest.update(p.read_bytes())
    for flag in copt or []:
        digest.update(flag.encode())
    has_sources = any(p.suffix in _SOURCE_SUFFIXES for p in paths)
    return Benchmark(
        uri or f"benchmark://user-v0/{digest.hexdigest()[:16]}",
        files=[str(p.resolve()) for p in paths],
        compile_args=list(copt or []),
        link_args=list(link_args or []),
        buildable=has_sources,
        runnable=runnable and has_sources,
    )


def make_benchmark_from_source(
    source: str, copt: Optional[list[str]] = None, lang: str = "c", runnable: bool = False
) -> Benchmark:
    """Makes a benchmark from a C (``lang="c"``) or C++ (``"c++"``) source string."""
    suffix = {"c": ".c", "c++": ".cc", "cpp": ".cc"}.get(lang)
    if suffix is None:
        raise ValueError(f"Unknown language {lang!r}")
    digest = hashlib.sha256(source.encode() + "\0".join(copt or []).encode()).hexdigest()[:16]
    directory = cache_path("user-v0")
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{digest}{suffix}"
    if not path.is_file():
        # Write then rename: a concurrent reader never sees a half-written file.
        with tempfile.NamedTemporaryFile("w", dir=directory, suffix=suffix, delete=False) as f:
            f.write(source)
        Path(f.name).replace(path)
    return make_benchmark(path, copt=copt, runnable=runnable, uri=f"benchmark://user-v0/{digest}")
