"""The names of CompilerGym's gRPC service layer that have no counterpart here, and the error
that using one raises.

CompilerGym ran each compiler as a service process and spoke to it over gRPC; this package runs
them in a C++ engine, in process. The names a CompilerGym script takes from
``compiler_gym.service`` to use an environment (``proto.Benchmark``, ``ConnectionOpts``, the
service errors, ``ClientServiceCompilerEnv`` in ``isinstance`` checks) are mapped onto this
package's; those that only mean something for the service itself (its protocol messages, its
connection, the runtime that serves a ``CompilationSession``) are listed in :data:`RPC_ONLY`
and :data:`RPC_ONLY_MODULES`, and importing one raises :class:`RpcServiceNotIncluded`, which
says why and what to use instead.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Optional

from compiler_gym.errors.service_errors import EnvironmentNotSupported

_WHY = (
    "CompilerGym's gRPC service layer, which this package does not have: its environments run "
    "in a C++ engine, in process, with no service to start or connect to"
)
_MAKE = "make environments with compiler_gym.make(id) (the ids: compiler_gym.COMPILER_GYM_ENVS)"
_NEW_COMPILER = (
    "a new compiler is a family of the C++ engine (docs/adding_a_family.md), not a "
    "CompilationSession served over gRPC"
)

# CompilerGym's service protocol (compiler_gym_service.proto): the messages that only travel
# between a client and a service. Benchmark and File are mapped (compiler_gym.service.proto).
_PROTO_MESSAGES = (
    "ActionSpace AddBenchmarkReply AddBenchmarkRequest BooleanBox BooleanRange "
    "BooleanSequenceSpace BooleanTensor ByteBox ByteSequenceSpace ByteTensor BytesSequenceSpace "
    "CommandlineSpace DictEvent DictSpace DiscreteSpace DoubleBox DoubleRange "
    "DoubleSequenceSpace DoubleTensor EndSessionReply EndSessionRequest Event FloatBox FloatRange "
    "FloatSequenceSpace FloatTensor ForkSessionReply ForkSessionRequest GetSpacesReply "
    "GetSpacesRequest GetVersionReply GetVersionRequest Int64Box Int64Range Int64SequenceSpace "
    "Int64Tensor ListEvent ListSpace NamedDiscreteSpace ObservationSpace Opaque "
    "SendSessionParameterReply SendSessionParameterRequest SessionParameter Space "
    "SpaceSequenceSpace StartSessionReply StartSessionRequest StepReply StepRequest "
    "StringSequenceSpace StringSpace StringTensor CompilerGymServiceServicer "
    "CompilerGymServiceStub"
).split()

_PROTO_HINT = (
    "spaces here are compiler_gym.spaces (Gymnasium spaces) and observations NumPy values, "
    "read from the engine without messages"
)
_BUILD_HINT = (
    "a benchmark's build and run commands are the compile_args, link_args, run_args and "
    "runnable of compiler_gym.datasets.Benchmark"
)
_CONNECTION_HINT = f"there is no connection to configure or share; {_MAKE}"

RPC_ONLY: dict[str, dict[str, str]] = {
    "compiler_gym.service": {
        "CompilationSession": _NEW_COMPILER,
        "CompilerGymServiceConnection": _CONNECTION_HINT,
    },
    "compiler_gym.service.connection": {
        name: _CONNECTION_HINT
        for name in (
            "CompilerGymServiceConnection",
            "Connection",
            "GRPC_CHANNEL_OPTIONS",
            "ManagedConnection",
            "UnmanagedConnection",
        )
    },
    "compiler_gym.service.proto": {
        **{name: _PROTO_HINT for name in _PROTO_MESSAGES},
        "BenchmarkDynamicConfig": _BUILD_HINT,
        "Command": _BUILD_HINT,
    },
    "compiler_gym.service.client_service_compiler_env": {
        "ServiceMessageConverters": _PROTO_HINT,
    },
}
"""Per module of ``compiler_gym.service``: CompilerGym's names that only mean something for
its gRPC service, each with what to use instead."""

RPC_ONLY_MODULES: dict[str, str] = {
    "compiler_gym.service.compilation_session": _NEW_COMPILER,
    "compiler_gym.service.runtime": _NEW_COMPILER,
    "compiler_gym.service.core": _NEW_COMPILER,
    "compiler_gym.service.connection_pool": _CONNECTION_HINT,
    "compiler_gym.service.service_cache": _CONNECTION_HINT,
    "compiler_gym.service.proto.compiler_gym_service_pb2": _PROTO_HINT,
    "compiler_gym.service.proto.compiler_gym_service_pb2_grpc": _PROTO_HINT,
    "compiler_gym.service.proto.py_converters": _PROTO_HINT,
}
"""CompilerGym's modules below ``compiler_gym.service`` that only served its gRPC service,
each with what to use instead."""


class RpcServiceNotIncluded(EnvironmentNotSupported, ImportError):
    """A name, module or argument of CompilerGym's gRPC service layer, which this package
    does not have (its environments run in a C++ engine, in process). An ``ImportError`` when
    a script imports such a name, and an :class:`EnvironmentNotSupported` (a
    ``ServiceError``) when it asks for a service; the message says what to use instead."""


def missing_name(module: str, name: str) -> RpcServiceNotIncluded:
    """The error for ``from <module> import <name>`` of a name listed in :data:`RPC_ONLY`."""
    return RpcServiceNotIncluded(
        f"{module}.{name} is part of {_WHY}; {RPC_ONLY[module][name]}.", name=name
    )


def module_getattr(module: str):
    """A module ``__getattr__`` for ``module``: a name of :data:`RPC_ONLY` raises
    :class:`RpcServiceNotIncluded`, any other missing name ``AttributeError`` as usual."""

    def __getattr__(name: str):
        if name in RPC_ONLY.get(module, {}):
            raise missing_name(module, name)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__


class RpcOnlyModuleFinder(importlib.abc.MetaPathFinder):
    """Makes importing a module of :data:`RPC_ONLY_MODULES` raise
    :class:`RpcServiceNotIncluded` rather than a bare ``ModuleNotFoundError``. It comes last
    on ``sys.meta_path``, so it answers only for names that no other finder found."""

    def find_spec(
        self,
        fullname: str,
        path: Optional[Sequence[str]] = None,
        target: Optional[ModuleType] = None,
    ) -> Optional[importlib.machinery.ModuleSpec]:
        """None for a module not in :data:`RPC_ONLY_MODULES`; raises for one that is."""
        hint = RPC_ONLY_MODULES.get(fullname)
        if hint is None:
            return None
        raise RpcServiceNotIncluded(f"{fullname} is part of {_WHY}; {hint}.", name=fullname)


def install_finder() -> None:
    """Appends :class:`RpcOnlyModuleFinder` to ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, RpcOnlyModuleFinder) for finder in sys.meta_path):
        sys.meta_path.append(RpcOnlyModuleFinder())


__all__ = [
    "RPC_ONLY",
    "RPC_ONLY_MODULES",
    "RpcOnlyModuleFinder",
    "RpcServiceNotIncluded",
    "install_finder",
    "missing_name",
    "module_getattr",
]
