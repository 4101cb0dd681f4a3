"""CompilerGym's ``compiler_gym.wrappers.fork``: the wrapper that forks the env before each
step. Re-exported from :mod:`compiler_gym.wrappers.core`."""

from compiler_gym.wrappers.core import ForkOnStep

__all__ = ["ForkOnStep"]
