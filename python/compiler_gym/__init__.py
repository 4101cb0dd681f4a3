"""compiler_gym: compiler optimization as fast, batched reinforcement-learning environments.

>>> import compiler_gym
>>> env = compiler_gym.make("llvm-v0", benchmark="builtin-v0/qsort",
...                         observation_space="Autophase", reward_space="IrInstructionCount")
>>> env.reset()
"""

import logging as _logging
import os as _os
from pathlib import Path as _Path

from compiler_gym import _C, errors
from compiler_gym.compiler_env_state import (
    CompilerEnvState,
    CompilerEnvStateReader,
    CompilerEnvStateWriter,
)
from compiler_gym.datasets import (
    Benchmark,
    make_benchmark,
    make_benchmark_from_command_line,
    make_benchmark_from_source,
)
from compiler_gym.envs import CompilerEnv, GccEnv, LlvmEnv
from compiler_gym.errors import BenchmarkInitError, ServiceError, SessionNotFound
from compiler_gym.gymnasium_env import register_all as _register_gymnasium
from compiler_gym.registration import env_ids, make
from compiler_gym.validate import validate_states
from compiler_gym.validation_error import ValidationError
from compiler_gym.validation_result import ValidationResult
from compiler_gym.vector import CompilerVecEnv, make_vec

# Vocabularies and embeddings ship in compiler_gym/data; the engine reads them from there.
_C.set_data_directory(str(_Path(__file__).parent / "data"))

__version__ = "0.3.0.dev0"

# The package logs to the "compiler_gym" logger (dataset installs, ...); as a library it
# prints nothing unless asked: COMPILER_GYM_DEBUG=1 shows INFO, 2 and more DEBUG, on stderr.
_debug = _os.environ.get("COMPILER_GYM_DEBUG", "").strip()
if _debug and _debug != "0":
    _handler = _logging.StreamHandler()
    _handler.setFormatter(_logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))
    _logging.getLogger("compiler_gym").addHandler(_handler)
    _level = _logging.INFO if _debug == "1" else _logging.DEBUG
    _logging.getLogger("compiler_gym").setLevel(_level)

COMPILER_GYM_ENVS = env_ids()

_register_gymnasium()

__all__ = [
    "Benchmark",
    "BenchmarkInitError",
    "CompilerEnv",
    "CompilerEnvState",
    "CompilerEnvStateReader",
    "CompilerEnvStateWriter",
    "COMPILER_GYM_ENVS",
    "GccEnv",
    "LlvmEnv",
    "ServiceError",
    "SessionNotFound",
    "ValidationError",
    "ValidationResult",
    "env_ids",
    "errors",
    "make",
    "make_benchmark",
    "make_benchmark_from_command_line",
    "make_vec",
    "validate_states",
    "CompilerVecEnv",
    "make_benchmark_from_source",
]
