"""CompilerGym's ``compiler_gym.util.shell_format``: small helpers for text printed to a
terminal.

    >>> print(f"{emph('3')} {plural(3, 'benchmark', 'benchmarks')}")
    >>> join_cmd(["opt", "-O2", "my file.ll"])
    "opt -O2 'my file.ll'"
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from typing import Any


class ShellFormatCodes:
    """ANSI escape codes for terminal colours and styles; ``END`` resets them."""

    PURPLE = "\033[95m"
    CYAN = "\033[96m"
    DARKCYAN = "\033[36m"
    BLUE = "\033[94m"
    GREEN = "\033[92m"
    YELLOW = "\033[93m"
    RED = "\033[91m"
    BOLD = "\033[1m"
    UNDERLINE = "\033[4m"
    END = "\033[0m"


def emph(stringable: Any) -> str:
    """``str(stringable)`` in bold blue, followed by the reset code."""
    return f"{ShellFormatCodes.BOLD}{ShellFormatCodes.BLUE}{stringable}{ShellFormatCodes.END}"


def plural(quantity: int, singular: str, plural: str) -> str:
    """``singular`` when ``quantity`` is 1, else ``plural``."""
    return singular if quantity == 1 else plural


def indent(string: Any, n: int = 4) -> str:
    """Every line of ``str(string)`` (empty ones included) prefixed with ``n`` spaces."""
    return "\n".join(" " * n + line for line in str(string).split("\n"))


def join_cmd(cmd: Iterable[str]) -> str:
    """A command line as one string, each argument quoted as a POSIX shell needs: for logs
    and messages a person can paste into a shell."""
    return shlex.join(str(arg) for arg in cmd)


__all__ = ["ShellFormatCodes", "emph", "indent", "join_cmd", "plural"]
