"""Exceptions raised by compiler_gym, in CompilerGym's modules: ``dataset_errors``,
``download_errors``, ``service_errors`` and ``validation_errors``.

The C++ engine reports errors as status codes; ``compiler_gym._C`` turns each code into one of
these (or a builtin such as ``ValueError``) through a single table. These modules are pure
Python so that the exceptions can be caught without importing the extension.
"""

from compiler_gym.errors.dataset_errors import (
    BenchmarkInitError,
    CompileTimeout,
    DatasetInitError,
    RefusedCompilerArgument,
)
from compiler_gym.errors.download_errors import DownloadFailed, TooManyRequests
from compiler_gym.errors.service_errors import (
    CompilerNotFound,
    CompilerNotSupported,
    EnvironmentNotSupported,
    ServiceError,
    ServiceInitError,
    ServiceIsClosed,
    ServiceOSError,
    ServiceTimeout,
    ServiceTransportError,
    SessionNotFound,
)
from compiler_gym.errors.validation_errors import (
    ValidationError,
    ValidationUnavailableError,
    ValidationUnavailableWarning,
)

__all__ = [
    "BenchmarkInitError",
    "CompileTimeout",
    "CompilerNotFound",
    "CompilerNotSupported",
    "DatasetInitError",
    "DownloadFailed",
    "EnvironmentNotSupported",
    "RefusedCompilerArgument",
    "ServiceError",
    "ServiceInitError",
    "ServiceIsClosed",
    "ServiceOSError",
    "ServiceTimeout",
    "ServiceTransportError",
    "SessionNotFound",
    "TooManyRequests",
    "ValidationError",
    "ValidationUnavailableError",
    "ValidationUnavailableWarning",
]
