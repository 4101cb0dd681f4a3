"""Exceptions raised by compiler_gym.

The C++ engine reports errors as status codes; ``compiler_gym._C`` turns each code into one of
these (or a builtin such as ``ValueError``) through a single table. This module is pure Python so
that the exceptions can be caught without importing the extension.
"""


class ServiceError(Exception):
    """An error inside the compiler service (a crashing pass, a failed codegen, ...)."""


class SessionNotFound(ServiceError):
    """The call needs an episode in progress: call ``reset()`` first."""


class ServiceIsClosed(ServiceError):
    """The environment was closed: make another."""


class EnvironmentNotSupported(ServiceError):
    """This machine cannot run the environment (e.g. a CUDA benchmark without a GPU)."""


class BenchmarkInitError(OSError, ValueError):
    """A benchmark could not be loaded: it does not compile, parse, or verify."""


class DatasetInitError(OSError):
    """A dataset could not be installed."""


class DownloadFailed(DatasetInitError):
    """A download failed, or what it fetched does not match its sha256."""


class ValidationError(ValueError):
    """A state failed validation."""
