"""CompilerGym's ``compiler_gym.envs.gcc``: the GCC environment under the name CompilerGym users
import (the implementation is ``compiler_gym.envs.gcc_env``)."""

from compiler_gym.envs.gcc_env import DEFAULT_GCC, Gcc, GccEnv, GccSpec, Option, gcc_datasets

__all__ = ["DEFAULT_GCC", "Gcc", "GccEnv", "GccSpec", "Option", "gcc_datasets"]
