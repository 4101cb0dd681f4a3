"""compiler_gym: compiler optimization as fast, batched reinforcement-learning environments.

>>> import compiler_gym
>>> env = compiler_gym.make("llvm-v0", benchmark="builtin-v0/qsort",
...                         observation_space="Autophase", reward_space="IrInstructionCount")
>>> env.reset()
"""

# ruff: noqa: E402  (the imports below come after the alias hook is installed)

# CompilerGym's module paths kept as aliases (compiler_gym.wrappers.counter, ...): the import
# hook goes first, before any import below can reach one of them.
from compiler_gym import compat as _compat

_compat.install()

from compiler_gym import errors
from compiler_gym._engine import _C as _C  # the extension, set up once
from compiler_gym._version import __version__ as __version__
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
from compiler_gym.gym_env import register_all as _register_gym
from compiler_gym.gymnasium_env import register_all as _register_gymnasium
from compiler_gym.registration import env_ids, make
from compiler_gym.util.debug_util import (
    configure_logging,
    get_debug_level,
    get_logging_level,
    set_debug_level,
)
from compiler_gym.util.runfiles import cache_path, site_data_path, transient_cache_path
from compiler_gym.validate import validate_states
from compiler_gym.validation_error import ValidationError
from compiler_gym.validation_result import ValidationResult
from compiler_gym.vector import CompilerVecEnv, make_vec

# The package logs to the "compiler_gym" logger (dataset installs, ...); as a library it
# prints nothing unless asked: COMPILER_GYM_DEBUG=1 shows warnings, 2 info, 3 debug messages.
configure_logging()

COMPILER_GYM_ENVS = env_ids()

_register_gymnasium()
_register_gym()  # only when gym is installed (importlib.util.find_spec): it is optional

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
    "cache_path",
    "env_ids",
    "errors",
    "get_debug_level",
    "get_logging_level",
    "make",
    "make_benchmark",
    "make_benchmark_from_command_line",
    "make_vec",
    "set_debug_level",
    "site_data_path",
    "transient_cache_path",
    "validate_states",
    "CompilerVecEnv",
    "make_benchmark_from_source",
]
