"""The include search path of a compiler on this machine, as ``-isystem`` flags: what
CompilerGym's ``get_system_library_flags()`` returned, and what :class:`ClangInvocation`
passes to clang-19 when it compiles with the system's include directories."""

from __future__ import annotations

import functools
import re
import subprocess
from typing import Optional

from compiler_gym._engine import _C


class HostCompilerFailure(OSError):
    """The compiler asked for its include search path could not be run, or failed."""


class UnableToParseHostCompilerOutput(HostCompilerFailure):
    """The compiler ran, but its ``-v`` output holds no ``#include <...>`` search list."""


_SEARCH_LIST = re.compile(r"#include <\.\.\.> search starts here:\n(.*?)\nEnd of search list", re.S)


@functools.cache
def _search_path(compiler: str, language: str) -> tuple[str, ...]:
    # Preprocessing an empty input (-E) prints the search list without compiling or linking.
    command = [compiler, f"-x{language}", "-E", "-v", "-", "-o", "/dev/null"]
    try:
        result = subprocess.run(
            command, input="", capture_output=True, text=True, timeout=60, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise HostCompilerFailure(f"Failed to invoke '{compiler}': {e}") from e
    stderr = result.stderr.strip()
    if result.returncode != 0:
        raise HostCompilerFailure(
            f"Failed to invoke '{compiler}': it exited with status {result.returncode}"
            + (f":\n{stderr[-2000:]}" if stderr else "")
        )
    match = _SEARCH_LIST.search(result.stderr)
    if match is None:
        raise UnableToParseHostCompilerOutput(
            f"Failed to parse '#include <...>' search paths from '{compiler}'"
            + (f":\n{stderr[-2000:]}" if stderr else "")
        )
    directories = (
        line.strip().removesuffix(" (framework directory)") for line in match[1].split("\n")
    )
    return tuple(d for d in directories if d)


def get_system_library_flags(compiler: Optional[str] = None, language: str = "c++") -> list[str]:
    """``-isystem <dir>`` for each directory of ``compiler``'s default ``#include <...>``
    search path for ``language`` (``"c"`` or ``"c++"``), in its order: the flags that compile
    a program outside the environment as the environment does. ``compiler`` defaults to the
    clang-19 that builds benchmarks (CompilerGym's default was ``$CXX``, or ``c++``). The
    answer is kept for the process.

    :raises HostCompilerFailure: when the compiler cannot be run or fails.
    :raises UnableToParseHostCompilerOutput: when its output has no search list.
    """
    if language not in ("c", "c++"):
        raise ValueError(f"language is 'c' or 'c++', not {language!r}")
    compiler = compiler or _C.family_call("llvm", "clang_path")
    return [flag for d in _search_path(compiler, language) for flag in ("-isystem", d)]


__all__ = ["HostCompilerFailure", "UnableToParseHostCompilerOutput", "get_system_library_flags"]
