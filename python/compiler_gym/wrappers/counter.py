"""CompilerGym's ``compiler_gym.wrappers.counter``: the wrapper that counts an env's calls.
Re-exported from :mod:`compiler_gym.wrappers.core`."""

from compiler_gym.wrappers.core import Counter

__all__ = ["Counter"]
