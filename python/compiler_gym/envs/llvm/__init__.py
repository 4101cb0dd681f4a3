"""CompilerGym's ``compiler_gym.envs.llvm``: the LLVM environment and its helpers, under the
names CompilerGym users import (the implementation lives in ``compiler_gym.envs.llvm_env``
and ``compiler_gym.datasets``)."""

from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path
from typing import Any, Union

from compiler_gym.datasets import Benchmark, make_benchmark
from compiler_gym.envs.llvm_env import LlvmEnv, clang_path
from compiler_gym.spaces import ObservationSpaceSpec


def compute_observation(
    observation_space: Union[str, ObservationSpaceSpec],
    bitcode: Union[str, Path],
    timeout: float = 300,
) -> Any:
    """The observation ``observation_space`` (a name or a spec) of a bitcode or IR file,
    computed in a worker process: a file that crashes LLVM raises instead of ending this
    process, and one that takes longer than ``timeout`` seconds raises ``TimeoutError``.
    ``FileNotFoundError`` for a missing file, ``BenchmarkInitError`` for one LLVM cannot
    read, ``LookupError`` for an unknown space."""
    name = observation_space if isinstance(observation_space, str) else observation_space.id
    path = Path(bitcode).resolve()
    benchmark = Benchmark.from_file(f"file://{path}", str(path))
    parameters = {"worker.step_timeout_seconds": timeout}
    with LlvmEnv(isolation="process", parameters=parameters) as env:
        env.observation._spec(name)  # an unknown name fails before any work
        env.reset(benchmark=benchmark)
        return env.observation[name]


@functools.cache
def get_system_library_flags() -> list[str]:
    """The ``-isystem <dir>`` flags of clang's default include search path, for compiling
    a program outside the environment as the environment does."""
    result = subprocess.run(
        [clang_path(), "-xc++", "-E", "-v", "-", "-o", "/dev/null"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    match = re.search(
        r"#include <\.\.\.> search starts here:\n(.*?)\nEnd of search list", result.stderr, re.S
    )
    if result.returncode != 0 or match is None:
        raise OSError(f"cannot read clang's include search path: {result.stderr[-500:]}")
    flags = []
    for line in match.group(1).splitlines():
        directory = line.strip().removesuffix(" (framework directory)")
        if directory:
            flags += ["-isystem", directory]
    return flags


__all__ = [
    "LlvmEnv",
    "compute_observation",
    "get_system_library_flags",
    "make_benchmark",
]
