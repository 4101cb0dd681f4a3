"""Benchmarks (programs to compile) and datasets (named collections of them): the classes, the
benchmarks made from user code, and the datasets of the user's own files."""

from compiler_gym.datasets.benchmark import Benchmark, BenchmarkSource, BenchmarkUri
from compiler_gym.datasets.builtin import BuiltinDataset
from compiler_gym.datasets.dataset import Dataset, Datasets, round_robin_iterables
from compiler_gym.datasets.make_benchmark import (
    ClangInvocation,
    make_benchmark,
    make_benchmark_from_command_line,
    make_benchmark_from_source,
)
from compiler_gym.datasets.user import (
    FilesDataset,
    ManifestDataset,
    TarDataset,
    dataset_from_path,
)

__all__ = [
    "Benchmark",
    "BenchmarkSource",
    "BenchmarkUri",
    "Dataset",
    "Datasets",
    "BuiltinDataset",
    "FilesDataset",
    "ManifestDataset",
    "TarDataset",
    "dataset_from_path",
    "ClangInvocation",
    "make_benchmark",
    "make_benchmark_from_command_line",
    "make_benchmark_from_source",
    "round_robin_iterables",
]
