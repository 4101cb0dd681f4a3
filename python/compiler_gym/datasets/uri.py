"""CompilerGym's ``compiler_gym.datasets.uri``: benchmark URIs."""

from compiler_gym.datasets.benchmark import BenchmarkUri

__all__ = ["BenchmarkUri"]
