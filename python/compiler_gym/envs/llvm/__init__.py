"""CompilerGym's ``compiler_gym.envs.llvm``: the LLVM environment and its helpers, under the
names CompilerGym users import (the implementation lives in ``compiler_gym.envs.llvm_env``
and ``compiler_gym.datasets``)."""

from __future__ import annotations

import functools
import hashlib
import json
import re
import subprocess
from typing import Union

from compiler_gym._engine import _C
from compiler_gym.datasets import Benchmark, ClangInvocation, make_benchmark
from compiler_gym.datasets.make_benchmark import make_benchmark_from_command_line
from compiler_gym.envs.llvm.compute_observation import compute_observation
from compiler_gym.envs.llvm_env import LlvmEnv, clang_path


@functools.cache
def get_system_library_flags() -> list[str]:
    """The ``-isystem <dir>`` flags of clang's default include search path, for compiling
    a program outside the environment as the environment does."""
    result = subprocess.run(
        [clang_path(), "-xc++", "-E", "-v", "-", "-o", "/dev/null"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    match = re.search(
        r"#include <\.\.\.> search starts here:\n(.*?)\nEnd of search list", result.stderr, re.S
    )
    if result.returncode != 0 or match is None:
        raise OSError(f"cannot read clang's include search path: {result.stderr[-500:]}")
    flags = []
    for line in match.group(1).splitlines():
        directory = line.strip().removesuffix(" (framework directory)")
        if directory:
            flags += ["-isystem", directory]
    return flags


def _ir_of(benchmark: Union[str, Benchmark], timeout: float) -> str:
    """The benchmark's module as the environment loads it, as IR text, made in a worker
    process bounded by ``timeout`` seconds."""
    parameters = {"worker.step_timeout_seconds": timeout}
    with LlvmEnv(isolation="process", parameters=parameters) as env:
        env.reset(benchmark=benchmark)
        return env.observation["Ir"]


def split_benchmark_by_function(
    benchmark: Union[str, Benchmark], timeout: float = 300
) -> list[Benchmark]:
    """One benchmark per function that ``benchmark`` defines (CompilerGym's, as
    ``llvm-extract`` would make them): each holds its function and declarations of what it
    uses, and is named ``<benchmark URI>/<function name>``. ``ValueError`` for a program that
    defines no function."""
    uri = str(benchmark.uri if isinstance(benchmark, Benchmark) else benchmark)
    parts = json.loads(_C.family_call("llvm", "split_by_function", _ir_of(benchmark, timeout)))
    return [Benchmark(f"{uri}/{name}", data=ir.encode()) for name, ir in parts]


def merge_benchmarks(benchmarks: list[Union[str, Benchmark]], timeout: float = 300) -> Benchmark:
    """One benchmark linking the modules of ``benchmarks`` (CompilerGym's, as ``llvm-link``),
    named ``benchmark://llvm-link-v0/<SHA-256 of its IR, 16 digits>``. ``ValueError`` when they
    cannot be linked, such as two definitions of one symbol."""
    modules = [_ir_of(b, timeout) for b in benchmarks]
    ir = _C.family_call("llvm", "link", json.dumps(modules))
    digest = hashlib.sha256(ir.encode()).hexdigest()[:16]
    return Benchmark(f"benchmark://llvm-link-v0/{digest}", data=ir.encode())


__all__ = [
    "ClangInvocation",
    "LlvmEnv",
    "compute_observation",
    "get_system_library_flags",
    "make_benchmark",
    "make_benchmark_from_command_line",
    "merge_benchmarks",
    "split_benchmark_by_function",
]
