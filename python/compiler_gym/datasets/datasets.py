"""CompilerGym's ``compiler_gym.datasets.datasets``: the collection of an env's datasets."""

from compiler_gym.datasets.dataset import Datasets, round_robin_iterables

__all__ = ["Datasets", "round_robin_iterables"]
