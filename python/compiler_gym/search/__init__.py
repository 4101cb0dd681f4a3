"""Search baselines over the environments, built on the engine's ``try_actions``."""

from compiler_gym.errors import ValidationUnavailableError, ValidationUnavailableWarning
from compiler_gym.search.greedy import greedy_search
from compiler_gym.search.nevergrad_search import CategoricalVector, nevergrad_search
from compiler_gym.search.random_search import SearchProgress, random_search

__all__ = [
    "CategoricalVector",
    "SearchProgress",
    "ValidationUnavailableError",
    "ValidationUnavailableWarning",
    "greedy_search",
    "nevergrad_search",
    "random_search",
]
