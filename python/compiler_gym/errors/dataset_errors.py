"""Errors of benchmarks and datasets that cannot be loaded or installed."""


class BenchmarkInitError(OSError, ValueError):
    """A benchmark could not be loaded: it does not compile, parse, or verify."""


class DatasetInitError(OSError):
    """A dataset could not be installed."""


class RefusedCompilerArgument(BenchmarkInitError):
    """An argument that :func:`make_benchmark_from_command_line`, :func:`make_benchmark` (its
    ``copt`` and ``link_args``) and :class:`ClangInvocation` do not pass to clang: one that is
    not on the allow-list (it could name an output, load a plugin, or read options from a
    file), a path that is not a regular file or directory, or a flag in the wrong list.
    ``argument`` is the word refused, ``where`` the command line or list that holds it,
    ``reason`` why. Raised before any program runs. A :class:`BenchmarkInitError` (so an
    ``OSError`` and a ``ValueError``): the benchmark cannot be made, which is what
    CompilerGym raised for a flag clang rejects."""

    def __init__(self, argument: str, where: str, reason: str):
        super().__init__(f"Refused {argument!r} in {where}: {reason}")
        self.argument, self.where, self.reason = argument, where, reason


class CompileTimeout(BenchmarkInitError, TimeoutError):
    """clang-19 did not preprocess or compile a source within its time limit (the message says
    which, and how to change the limit)."""
