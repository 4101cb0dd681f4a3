"""CompilerGym's ``compiler_gym.wrappers.validation``: the wrapper that validates the state
after each step. Re-exported from :mod:`compiler_gym.wrappers.core`."""

from compiler_gym.wrappers.core import ValidateBenchmarkAfterEveryStep

__all__ = ["ValidateBenchmarkAfterEveryStep"]
