"""CompilerGym's ``compiler_gym.third_party.llvm``: the LLVM command-line tools, from the same
LLVM 19 installation whose clang builds benchmarks (Debian's, found as ``clang-19`` or through
``$COMPILER_GYM_CLANG``). CompilerGym downloaded its own LLVM; here it is installed by
``scripts/setup.sh``, so nothing is downloaded.

    >>> subprocess.run([str(opt_path()), "-passes=mem2reg", "in.bc", "-o", "out.bc"])
"""

from __future__ import annotations

import functools
from pathlib import Path

from compiler_gym.envs.llvm_env import clang_path as _clang_path


@functools.cache
def _bin_dir() -> Path:
    # clang-19 on $PATH is a link into the installation's bin directory.
    return Path(_clang_path()).resolve().parent


def _tool(name: str) -> Path:
    path = _bin_dir() / name
    if not path.is_file():
        raise FileNotFoundError(f"{name} not found in {_bin_dir()}: install Debian's llvm-19")
    return path


def download_llvm_files() -> Path:
    """The LLVM installation's root (CompilerGym downloaded one; it is installed here)."""
    return _bin_dir().parent


def clang_path() -> Path:
    """The clang that builds benchmarks."""
    return Path(_clang_path())


def lli_path() -> Path:
    """LLVM's interpreter and JIT, ``lli``."""
    return _tool("lli")


def llc_path() -> Path:
    """LLVM's code generator, ``llc``."""
    return _tool("llc")


def llvm_as_path() -> Path:
    """The IR assembler, ``llvm-as``."""
    return _tool("llvm-as")


def llvm_dis_path() -> Path:
    """The bitcode disassembler, ``llvm-dis``."""
    return _tool("llvm-dis")


def llvm_link_path() -> Path:
    """The module linker, ``llvm-link``."""
    return _tool("llvm-link")


def llvm_stress_path() -> Path:
    """The random IR generator, ``llvm-stress``."""
    return _tool("llvm-stress")


def llvm_diff_path() -> Path:
    """The module differ, ``llvm-diff``."""
    return _tool("llvm-diff")


def opt_path() -> Path:
    """The optimizer, ``opt``."""
    return _tool("opt")


__all__ = [
    "clang_path",
    "download_llvm_files",
    "lli_path",
    "llc_path",
    "llvm_as_path",
    "llvm_diff_path",
    "llvm_dis_path",
    "llvm_link_path",
    "llvm_stress_path",
    "opt_path",
]
