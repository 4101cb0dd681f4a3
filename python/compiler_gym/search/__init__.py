"""Search baselines over the environments, built on the engine's ``try_actions``."""

from compiler_gym.search.greedy import greedy_search

__all__ = ["greedy_search"]
