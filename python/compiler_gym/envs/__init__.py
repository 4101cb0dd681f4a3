"""The environment classes, one per family (LLVM, GCC, loop_tool; ``CompilerEnv`` their base),
and CompilerGym's package names of the families (``gcc``, ``llvm``, ``loop_tool``)."""

from compiler_gym.envs.compiler_env import CompilerEnv
from compiler_gym.envs.gcc_env import GccEnv
from compiler_gym.envs.llvm_env import LlvmEnv
from compiler_gym.envs.llvm_rewards import RuntimePointEstimateReward
from compiler_gym.envs.loop_tool_env import LoopToolEnv

# CompilerGym's module names, reachable as attributes (compiler_gym.envs.loop_tool.devices())
# without an import of their own; they hold nothing heavier than the modules above. gcc and
# loop_tool are aliases of compiler_gym.compat's table, llvm a package of its own.
from compiler_gym.envs import gcc, llvm, loop_tool  # noqa: E402  isort: skip

__all__ = [
    "CompilerEnv",
    "GccEnv",
    "LlvmEnv",
    "LoopToolEnv",
    "RuntimePointEstimateReward",
    "gcc",
    "llvm",
    "loop_tool",
]
