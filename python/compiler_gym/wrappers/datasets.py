"""CompilerGym's ``compiler_gym.wrappers.datasets``: the wrappers that choose each episode's
benchmark. Re-exported from :mod:`compiler_gym.wrappers.core`."""

from compiler_gym.wrappers.core import (
    CycleOverBenchmarks,
    CycleOverBenchmarksIterator,
    IterateOverBenchmarks,
    RandomOrderBenchmarks,
)

__all__ = [
    "CycleOverBenchmarks",
    "CycleOverBenchmarksIterator",
    "IterateOverBenchmarks",
    "RandomOrderBenchmarks",
]
