"""CompilerGym's ``compiler_gym.envs.gcc.gcc_env``: the environment class."""

from compiler_gym.envs.gcc_env import DEFAULT_GCC, GccEnv

__all__ = ["DEFAULT_GCC", "GccEnv"]
