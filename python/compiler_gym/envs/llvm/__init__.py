"""CompilerGym's ``compiler_gym.envs.llvm``: the LLVM environment and its helpers, under the
names CompilerGym users import (the implementation lives in ``compiler_gym.envs.llvm_env``
and ``compiler_gym.datasets``)."""

from __future__ import annotations

import hashlib
import json
from typing import Union

from compiler_gym._engine import _C
from compiler_gym.datasets import Benchmark, ClangInvocation, make_benchmark
from compiler_gym.datasets.host_compiler import (
    HostCompilerFailure,
    UnableToParseHostCompilerOutput,
    get_system_library_flags,
)
from compiler_gym.datasets.make_benchmark import (
    make_benchmark_from_command_line,
    make_benchmark_from_source,
)
from compiler_gym.envs.llvm.compute_observation import compute_observation
from compiler_gym.envs.llvm_env import LlvmEnv
from compiler_gym.errors import BenchmarkInitError


def _ir_of(benchmark: Union[str, Benchmark], timeout: float) -> str:
    """The benchmark's module as the environment loads it, as IR text, made in a worker
    process bounded by ``timeout`` seconds."""
    parameters = {"worker.step_timeout_seconds": timeout}
    with LlvmEnv(isolation="process", parameters=parameters) as env:
        env.reset(benchmark=benchmark)
        return env.observation["Ir"]


def split_benchmark_by_function(
    benchmark: Union[str, Benchmark], maximum_function_count: int = 0, timeout: float = 300
) -> list[Benchmark]:
    """One benchmark per function that ``benchmark`` defines (CompilerGym's, as
    ``llvm-extract`` would make them): each holds its function and declarations of what it
    uses, and is named ``<benchmark URI>/<function name>``; a positive
    ``maximum_function_count`` keeps the first that many. ``ValueError`` (``No functions
    found ...``) for a program that defines no function. Unlike CompilerGym's, no benchmark of
    the global initializers comes first: each part is one function."""
    uri = str(benchmark.uri if isinstance(benchmark, Benchmark) else benchmark)
    try:
        ir = _ir_of(benchmark, timeout)
    except BenchmarkInitError:
        # A module that defines nothing does not load in an env; it is split as it is, to
        # say that it has no function.
        if not isinstance(benchmark, Benchmark) or benchmark.files or not benchmark.data:
            raise
        ir = benchmark.data
    try:
        parts = json.loads(_C.family_call("llvm", "split_by_function", ir))
    except ValueError as e:
        if "defines no function" not in str(e):
            raise
        raise ValueError(f"No functions found in {uri}: {e}") from None
    if maximum_function_count > 0:
        parts = parts[:maximum_function_count]
    return [Benchmark(f"{uri}/{name}", data=part.encode()) for name, part in parts]


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
    "HostCompilerFailure",
    "LlvmEnv",
    "UnableToParseHostCompilerOutput",
    "compute_observation",
    "get_system_library_flags",
    "make_benchmark",
    "make_benchmark_from_command_line",
    "make_benchmark_from_source",
    "merge_benchmarks",
    "split_benchmark_by_function",
]
