"""CompilerGym's ``compiler_gym.envs.llvm.compute_observation``: an observation of a bitcode
file, outside an environment. (The function lives in this module, as in CompilerGym, so that
``compiler_gym.envs.llvm.compute_observation`` stays the function once the module is
imported.)"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Union

from compiler_gym.datasets import Benchmark
from compiler_gym.envs.llvm_env import LlvmEnv
from compiler_gym.spaces import ObservationSpaceSpec
from compiler_gym.util.names import did_you_mean


def compute_observation(
    observation_space: Union[str, ObservationSpaceSpec],
    bitcode: Union[str, Path],
    timeout: float = 300,
) -> Any:
    """The observation ``observation_space`` (a name or a spec) of a bitcode or IR file,
    computed in a worker process: a file that crashes LLVM raises instead of ending this
    process, and one that takes longer than ``timeout`` seconds raises ``TimeoutError``.
    ``FileNotFoundError`` for a missing file, ``BenchmarkInitError`` for one LLVM cannot
    read, ``ValueError`` for an unknown space (as CompilerGym's, which names it in its enum
    form: ``Invalid observation space name: NOT_A_REAL_NAME``)."""
    name = observation_space if isinstance(observation_space, str) else observation_space.id
    path = Path(bitcode).resolve()
    if not path.is_file():
        raise FileNotFoundError(str(bitcode))
    benchmark = Benchmark.from_file(f"file://{path}", str(path))
    parameters = {"worker.step_timeout_seconds": timeout}
    with LlvmEnv(isolation="process", parameters=parameters) as env:
        if name not in env.observation.spaces:  # an unknown name fails before any work
            enum_name = re.sub(r"(?<!^)([A-Z])", r"_\1", name).upper()
            hint = did_you_mean(name, env.observation.spaces)
            raise ValueError(f"Invalid observation space name: {enum_name}{hint}")
        env.reset(benchmark=benchmark)
        return env.observation[name]


__all__ = ["compute_observation"]
