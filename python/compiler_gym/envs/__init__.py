"""Environments."""

from compiler_gym.envs.compiler_env import CompilerEnv
from compiler_gym.envs.llvm_env import LlvmEnv

__all__ = ["CompilerEnv", "LlvmEnv"]
