"""compiler_gym.make: environments by id, from the table the C++ engine exports."""

from __future__ import annotations

import functools
import importlib
from typing import Any

from compiler_gym._engine import _C
from compiler_gym.envs.compiler_env import CompilerEnv
from compiler_gym.util.names import did_you_mean


@functools.cache
def family_class(family: str) -> type[CompilerEnv]:
    """The Python class of an engine family: the ``CompilerEnv`` subclass that the module
    ``compiler_gym.envs.<family>_env`` declares with ``family = "<family>"``. The engine's
    registry (``envs/all_envs.cc``) is the only list of families."""
    module = importlib.import_module(f"compiler_gym.envs.{family}_env")
    for value in vars(module).values():
        if (
            isinstance(value, type)
            and issubclass(value, CompilerEnv)
            and value.__dict__.get("family") == family
        ):
            return value
    raise LookupError(f"{module.__name__} declares no CompilerEnv with family = {family!r}")


def env_ids() -> list[str]:
    """The ids of every environment ``make`` accepts."""
    return [e["id"] for e in _C.env_ids()]


def env_class(id: str) -> type[CompilerEnv]:
    """The class that ``make(id)`` makes (its family's); ``LookupError`` naming the nearest
    ids for an id the engine does not know. ``compiler_gym/<id>`` (Gymnasium's form) is
    ``<id>``."""
    id = id.removeprefix("compiler_gym/")
    entry = next((e for e in _C.env_ids() if e["id"] == id), None)
    if entry is None:
        hint = did_you_mean(id, env_ids()) or f"; known: {', '.join(env_ids())}"
        raise LookupError(f"Unknown environment id {id!r}{hint}")
    return family_class(entry["family"])


def without_service_arguments(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` less CompilerGym's arguments for its gRPC service, which envs made here do
    not have (they run in the C++ engine, in process). ``connection_settings`` (a
    :class:`compiler_gym.service.ConnectionOpts`) is accepted and has no effect, unless it
    asks to start a service script (``script_args``, ``script_env``); ``service`` (the
    address or binary of a service) and ``service_connection`` raise
    :class:`compiler_gym.service.RpcServiceNotIncluded`."""
    from compiler_gym.service.connection import ConnectionOpts
    from compiler_gym.service.rpc_only import RpcServiceNotIncluded

    kwargs = dict(kwargs)
    settings = kwargs.pop("connection_settings", None)
    if settings is not None and not isinstance(settings, ConnectionOpts):
        raise TypeError(
            f"connection_settings is a compiler_gym.service.ConnectionOpts, not {settings!r}"
        )
    if settings is not None and (settings.script_args or settings.script_env):
        raise RpcServiceNotIncluded(
            "ConnectionOpts(script_args=..., script_env=...) configure the process of "
            "CompilerGym's gRPC service, and there is none here: environments run in the C++ "
            "engine, in process. Leave both empty (the other settings are accepted and have "
            "no effect)."
        )
    for name in ("service", "service_connection"):
        if kwargs.pop(name, None) is not None:
            raise RpcServiceNotIncluded(
                f"make(..., {name}=...) connects to CompilerGym's gRPC service, and there is "
                "none here: environments run in the C++ engine, in process. Drop the argument: "
                "compiler_gym.make(id) makes the environment itself."
            )
    return kwargs


def make(id: str, **kwargs) -> CompilerEnv:
    """Makes an environment by id, e.g. ``make("llvm-autophase-ic-v0")``.

    Keyword arguments: ``benchmark``, ``observation_space``, ``reward_space``,
    ``action_space``, ``datasets``, ``isolation``, ``parameters``, and the family's own (GCC's
    ``gcc_bin``, ``timeout``); CompilerGym's ``connection_settings`` is accepted with no
    effect (see :func:`without_service_arguments`).
    """
    id = id.removeprefix("compiler_gym/")
    return env_class(id)(id, **without_service_arguments(kwargs))
