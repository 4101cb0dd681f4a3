"""CompilerGym's ``compiler_gym.service``, for the scripts that import its names: the service
errors, ``ConnectionOpts``, and (in submodules) ``proto.Benchmark``, ``proto.File`` and
``client_service_compiler_env.ClientServiceCompilerEnv``, each mapped onto this package's.

CompilerGym ran each compiler as a gRPC service; here they run in the C++ engine, in process.
The names that only meant something for that service (``CompilationSession``,
``CompilerGymServiceConnection``, ``compiler_gym.service.runtime``, the protocol's other
messages) raise :class:`RpcServiceNotIncluded` on import, saying what to use instead
(:mod:`compiler_gym.service.rpc_only` lists them).
"""

from compiler_gym.service.connection import (
    ConnectionOpts,
    EnvironmentNotSupported,
    ServiceError,
    ServiceInitError,
    ServiceIsClosed,
    ServiceOSError,
    ServiceTransportError,
    SessionNotFound,
)
from compiler_gym.service.rpc_only import RpcServiceNotIncluded, install_finder, module_getattr

# `import compiler_gym.service.runtime` (and the other service modules) says why it fails.
install_finder()

__getattr__ = module_getattr(__name__)

__all__ = [
    "ConnectionOpts",
    "EnvironmentNotSupported",
    "RpcServiceNotIncluded",
    "ServiceError",
    "ServiceInitError",
    "ServiceIsClosed",
    "ServiceOSError",
    "ServiceTransportError",
    "SessionNotFound",
]
