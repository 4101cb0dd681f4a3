"""CompilerGym's ``compiler_gym.wrappers.time_limit``: the wrapper that ends an episode after a
number of steps. Re-exported from :mod:`compiler_gym.wrappers.core`."""

from compiler_gym.wrappers.core import TimeLimit

__all__ = ["TimeLimit"]
