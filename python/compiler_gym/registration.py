"""compiler_gym.make: environments by id, from the table the C++ engine exports."""

from __future__ import annotations

from compiler_gym import _C
from compiler_gym.envs.compiler_env import CompilerEnv
from compiler_gym.envs.gcc_env import GccEnv
from compiler_gym.envs.llvm_env import LlvmEnv

# One row per compiler family: the engine's family name -> its Python class.
_FAMILIES = {"llvm": LlvmEnv, "gcc": GccEnv}


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
        raise LookupError(f"Unknown environment id {id!r}; known: {', '.join(env_ids())}")
    return _FAMILIES[entry["family"]](id, **kwargs)
