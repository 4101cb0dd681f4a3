"""Errors of benchmarks and datasets that cannot be loaded or installed."""


class BenchmarkInitError(OSError, ValueError):
    """A benchmark could not be loaded: it does not compile, parse, or verify."""


class DatasetInitError(OSError):
    """A dataset could not be installed."""
