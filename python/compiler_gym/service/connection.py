"""CompilerGym's ``compiler_gym.service.connection``: the connection settings and the service
errors, for scripts that import them from there.

Environments here run in the C++ engine, in process, so there is no connection: a
:class:`ConnectionOpts` is accepted where CompilerGym took one (``compiler_gym.make(id,
connection_settings=...)``) and has no effect. The errors are the ones this package raises
(``ServiceError``, ``SessionNotFound``, ...); ``ServiceOSError``, ``ServiceInitError`` and
``ServiceTransportError``, CompilerGym's errors of a service process and of its transport, are
in :mod:`compiler_gym.errors` so that ``except`` clauses that name them work; nothing raises
them. The
connection classes themselves raise :class:`RpcServiceNotIncluded` on import.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from compiler_gym.errors.service_errors import (
    EnvironmentNotSupported,
    ServiceError,
    ServiceInitError,
    ServiceIsClosed,
    ServiceOSError,
    ServiceTransportError,
    SessionNotFound,
)
from compiler_gym.service.rpc_only import RpcServiceNotIncluded, module_getattr


@dataclass
class ConnectionOpts:
    """CompilerGym's settings of the connection to a compiler service, with its field names
    and defaults. There is no connection here: ``compiler_gym.make(id,
    connection_settings=ConnectionOpts(...))`` accepts one and the timing and retry settings
    have no effect; ``script_args`` and ``script_env`` (the service process's arguments and
    environment) must stay empty, as there is no process to start."""

    rpc_max_retries: int = 5
    retry_wait_seconds: float = 0.1
    retry_wait_backoff_exponent: float = 1.5
    init_max_seconds: float = 30
    init_max_attempts: int = 5
    local_service_port_init_max_seconds: float = 30
    local_service_exit_max_seconds: float = 30
    rpc_init_max_seconds: float = 3
    always_send_benchmark_on_reset: bool = False
    script_args: list[str] = dataclasses.field(default_factory=list)
    script_env: dict[str, str] = dataclasses.field(default_factory=dict)


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
