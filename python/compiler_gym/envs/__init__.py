"""Environments."""

from compiler_gym.envs.compiler_env import CompilerEnv
from compiler_gym.envs.gcc_env import GccEnv
from compiler_gym.envs.llvm_env import LlvmEnv
from compiler_gym.envs.llvm_rewards import RuntimePointEstimateReward
from compiler_gym.envs.loop_tool_env import LoopToolEnv

__all__ = ["CompilerEnv", "GccEnv", "LlvmEnv", "LoopToolEnv", "RuntimePointEstimateReward"]
