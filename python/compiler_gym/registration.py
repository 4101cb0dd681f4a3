"""compiler_gym.make: environments by id, from the table the C++ engine exports."""

from __future__ import annotations

import functools
import importlib

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


def make(id: str, **kwargs) -> CompilerEnv:
    """Makes an environment by id, e.g. ``make("llvm-autophase-ic-v0")``.

    Keyword arguments: ``benchmark``, ``observation_space``, ``reward_space``,
    ``action_space``, ``datasets``, ``isolation``, ``parameters``, and the family's own (GCC's
    ``gcc_bin``, ``timeout``).
    """
    if id.startswith("compiler_gym/"):
        id = id[len("compiler_gym/") :]
    entry = next((e for e in _C.env_ids() if e["id"] == id), None)
    if entry is None:
        hint = did_you_mean(id, env_ids()) or f"; known: {', '.join(env_ids())}"
        raise LookupError(f"Unknown environment id {id!r}{hint}")
    return family_class(entry["family"])(id, **kwargs)
