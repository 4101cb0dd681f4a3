"""CompilerGym's ``compiler_gym.envs.gcc.gcc``: the compiler and its options."""

from compiler_gym.envs.gcc_env import Gcc, GccSpec, Option

__all__ = ["Gcc", "GccSpec", "Option"]
