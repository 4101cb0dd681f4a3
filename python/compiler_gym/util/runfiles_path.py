"""CompilerGym's ``compiler_gym.util.runfiles_path`` module name for the paths of
:mod:`compiler_gym.util.runfiles`."""

from compiler_gym.util.runfiles import (
    cache_path,
    runfiles_path,
    site_data_path,
    transient_cache_path,
)

__all__ = ["cache_path", "runfiles_path", "site_data_path", "transient_cache_path"]
