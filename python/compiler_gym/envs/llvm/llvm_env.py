"""CompilerGym's ``compiler_gym.envs.llvm.llvm_env``: the LLVM environment class."""

from compiler_gym.envs.llvm_env import LlvmEnv

__all__ = ["LlvmEnv"]
