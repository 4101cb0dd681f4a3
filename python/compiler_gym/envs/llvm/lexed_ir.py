"""CompilerGym's ``compiler_gym.envs.llvm.lexed_ir``: LLVM's IR lexer on a bitcode file, outside
an environment (in a worker process, as :func:`compiler_gym.envs.llvm.compute_observation`)."""

from __future__ import annotations

from pathlib import Path
from typing import Union

from compiler_gym.envs.llvm.compute_observation import compute_observation
from compiler_gym.envs.llvm_env import LexedToken, lexed_tokens


def LexedIr(bitcode: Union[str, Path], timeout: float = 300) -> dict[str, list]:  # noqa: N802
    """The ``LexedIr`` observation of a bitcode or IR file: the columns ``token_id``,
    ``token_kind``, ``token_category`` and ``token_value``."""
    return compute_observation("LexedIr", bitcode, timeout=timeout)


def LexedIrTuple(bitcode: Union[str, Path], timeout: float = 300) -> list[LexedToken]:  # noqa: N802
    """The file's tokens, one :class:`LexedToken` each."""
    return lexed_tokens(LexedIr(bitcode, timeout=timeout))


__all__ = ["LexedIr", "LexedIrTuple", "LexedToken"]
