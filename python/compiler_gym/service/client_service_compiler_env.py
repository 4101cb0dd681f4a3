"""CompilerGym's ``compiler_gym.service.client_service_compiler_env``: the class of its
environments, here the name of this package's, for type hints and ``isinstance`` checks.

CompilerGym's ``ClientServiceCompilerEnv`` was the env that talks to a compiler service over
gRPC; every CompilerGym env (``LlvmEnv``, ``GccEnv``, ...) was one. Here every env is a
:class:`compiler_gym.envs.CompilerEnv`, which runs in the C++ engine, so
``isinstance(env, ClientServiceCompilerEnv)`` holds for each of them, while making one from a
service (``ClientServiceCompilerEnv(service=...)``, the entry point CompilerGym's example
services registered) raises :class:`RpcServiceNotIncluded`.
"""

from __future__ import annotations

import abc

from compiler_gym.envs.compiler_env import CompilerEnv
from compiler_gym.service.rpc_only import RpcServiceNotIncluded, module_getattr


# An ABC for register(): CompilerEnv becomes a virtual subclass without inheriting from it.
class ClientServiceCompilerEnv(abc.ABC):  # noqa: B024 - no abstract methods: never made
    """CompilerGym's env class, as a name: every :class:`CompilerEnv` (and so every env that
    ``compiler_gym.make`` returns) is an instance. It cannot be made: it ran a gRPC service,
    and environments here are made by ``compiler_gym.make(id)``."""

    def __new__(cls, *args, **kwargs):
        raise RpcServiceNotIncluded(
            f"{cls.__name__}(service=...) runs an environment behind CompilerGym's gRPC "
            "service, and this package has none: its environments run in the C++ engine, in "
            "process. Make one with compiler_gym.make(id) (the ids: "
            "compiler_gym.COMPILER_GYM_ENVS); a new compiler is a family of the engine "
            "(docs/adding_a_family.md)."
        )


ClientServiceCompilerEnv.register(CompilerEnv)

__getattr__ = module_getattr(__name__)

__all__ = ["ClientServiceCompilerEnv"]
