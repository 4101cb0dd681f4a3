"""CompilerGym's ``compiler_gym.envs.llvm.llvm_benchmark``: making LLVM benchmarks from C, C++
and bitcode, and splitting and merging them."""

from compiler_gym.datasets.make_benchmark import (
    ClangInvocation,
    make_benchmark,
    make_benchmark_from_command_line,
    make_benchmark_from_source,
)
from compiler_gym.envs.llvm import (
    get_system_library_flags,
    merge_benchmarks,
    split_benchmark_by_function,
)

__all__ = [
    "ClangInvocation",
    "get_system_library_flags",
    "make_benchmark",
    "make_benchmark_from_command_line",
    "make_benchmark_from_source",
    "merge_benchmarks",
    "split_benchmark_by_function",
]
